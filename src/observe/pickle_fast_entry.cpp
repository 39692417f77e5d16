// The fast path for trace entries. A snapshot is mostly trace-entry dicts whose keys and most
// values were seen before, so their bytes are EMPTY_DICT, a memo store, MARK, then pairs of memo
// references and small integers, and SETITEMS. Such a dict is decoded straight into a trace
// event, without building a container or pushing its items. Anything else in it (a new string,
// a nested container, a FRAME boundary, a value of the wrong type, the end of the read window)
// makes the fast path decline before changing any state, and the generic path reads the dict
// and reports any error exactly as it always does.
#include "observe/pickle_machine.hpp"
#include "observe/pickle_opcodes.hpp"
#include "observe/snapshot_keys.hpp"

#include <cstring>

namespace vramscope::observe::detail {

namespace {

constexpr std::size_t max_fast_pairs = 16;  // trace entries have 6 to 8 keys

// Reads one value at `p` (advanced past it) or returns false.
[[gnu::always_inline]] inline bool read_simple(const std::uint8_t*& p, const std::uint8_t* end, const object_store& objects, value& v) {
  if (p >= end) return false;
  const std::uint8_t code = *p++;
  const auto have = [&](std::size_t n) { return static_cast<std::size_t>(end - p) >= n; };
  switch (code) {
    case BINGET:
      if (!have(1) || !objects.memo_get(*p, v)) return false;
      ++p;
      return v.kind != vkind::object;  // containers go the generic way
    case LONG_BINGET:
      if (!have(4) || !objects.memo_get(static_cast<std::uint32_t>(load_le(p, 4)), v)) return false;
      p += 4;
      return v.kind != vkind::object;
    case BININT1:
      if (!have(1)) return false;
      v = value::integer(*p++);
      return true;
    case BININT2:
      if (!have(2)) return false;
      v = value::integer(static_cast<std::int64_t>(load_le(p, 2)));
      p += 2;
      return true;
    case BININT:
      if (!have(4)) return false;
      v = value::integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(load_le(p, 4))));
      p += 4;
      return true;
    case LONG1: {
      if (!have(1) || *p > 8 || !have(1u + *p)) return false;
      const std::size_t n = *p;
      v = decode_long(p + 1, n);
      p += 1 + n;
      return true;
    }
    case NONE: v = value{}; return true;
    case NEWTRUE: v = value{vkind::boolean, 0, 1}; return true;
    case NEWFALSE: v = value{vkind::boolean, 0, 0}; return true;
    default: return false;
  }
}

// The memo store after EMPTY_DICT, when it appends (as picklers write it).
bool read_memo_store(const std::uint8_t*& p, const std::uint8_t* end, std::uint32_t memo_size) {
  if (p >= end) return false;
  if (*p == MEMOIZE) {
    ++p;
    return true;
  }
  if (*p == BINPUT && end - p >= 2 && p[1] == memo_size) {
    p += 2;
    return true;
  }
  if (*p == LONG_BINPUT && end - p >= 5 && load_le(p + 1, 4) == memo_size) {
    p += 5;
    return true;
  }
  return false;
}

}  // namespace

// The entry scanner over a window with room for a whole entry: no bound checks per byte. Each
// key is resolved from its memo word to the field it names (no value is built for it), each
// value is read as that field's type, and anything the checked path would decline is declined
// here too, so both read the same entries the same way.
namespace {

// An entry the scanner reads has at most max_fast_pairs pairs of at most 5 (LONG_BINGET) + 10
// (LONG1 of 8 bytes) bytes, then SETITEMS; reads of 8 bytes past a LONG1's start stay inside.
constexpr std::size_t scan_room = max_fast_pairs * 15 + 1 + 8;

using tag = object_store::tag;

// The memo's words, read in place while one entry is scanned (nothing changes the memo then).
struct memo_view {
  const std::uint32_t* words;
  std::uint32_t size;
  std::uint32_t word(std::uint32_t index) const { return index < size ? words[index] : 0; }
};

// The memo index of a BINGET or LONG_BINGET at p (advanced past it), or false.
[[gnu::always_inline]] inline bool memo_index(const std::uint8_t*& p, std::uint32_t& index) {
  if (*p == BINGET) {
    index = p[1];
    p += 2;
    return true;
  }
  if (*p == LONG_BINGET) {
    index = static_cast<std::uint32_t>(load_le(p + 1, 4));
    p += 5;
    return true;
  }
  return false;
}

// An integer field (BININT1, BININT2, BININT, LONG1 of up to 8 bytes, or a memoised number) as
// quiet_number reads it: false for anything else or a negative value.
[[gnu::always_inline]] inline bool scan_number(const std::uint8_t*& p, const object_store& objects,
                                               std::uint64_t& out) {
  switch (*p) {
    case BININT1:
      out = p[1];
      p += 2;
      return true;
    case BININT2:
      out = load_le(p + 1, 2);
      p += 3;
      return true;
    case BININT: {
      const auto v = static_cast<std::int32_t>(static_cast<std::uint32_t>(load_le(p + 1, 4)));
      p += 5;
      out = static_cast<std::uint64_t>(v);
      return v >= 0;
    }
    case LONG1: {
      const std::size_t n = p[1];
      if (n > 8) return false;
      std::uint64_t raw = 0;
      std::memcpy(&raw, p + 2, 8);  // scan_room keeps these 8 bytes inside the window
      p += 2 + n;
      if (n == 0) {
        out = 0;
        return true;
      }
      if (n < 8) raw &= (std::uint64_t{1} << (8 * n)) - 1;
      out = raw;
      return !(raw >> (8 * n - 1) & 1);  // the sign bit: negative numbers are not fields
    }
    default: {
      std::uint32_t index = 0;
      value v;
      if (!memo_index(p, index) || !objects.memo_get(index, v)) return false;
      return quiet_number(v, out);
    }
  }
}

// Any other value, as read_simple reads it (its value is not kept).
[[gnu::always_inline]] inline bool scan_other(const std::uint8_t*& p, const object_store& objects,
                                              const memo_view& memo) {
  switch (*p) {
    case BININT1:
      p += 2;
      return true;
    case BININT2:
      p += 3;
      return true;
    case BININT:
      p += 5;
      return true;
    case LONG1:
      if (p[1] > 8) return false;
      p += 2 + p[1];
      return true;
    case NONE:
    case NEWTRUE:
    case NEWFALSE:
      ++p;
      return true;
    default: {
      std::uint32_t index = 0;
      if (!memo_index(p, index)) return false;
      const std::uint32_t word = memo.word(index);
      const std::uint32_t t = word >> object_store::ref_bits;
      if (t == tag::empty_tag || t == tag::object_tag) return false;
      if (t != tag::boxed_tag) return true;
      value v;
      return objects.memo_get(index, v) && v.kind != vkind::object;
    }
  }
}

}  // namespace

bool pickle_machine::scan_entry(const std::uint8_t* p, trace_event& e,
                                snapshot_builder::event_keys& seen, const std::uint8_t*& after) {
  const object_store& objects = ctx_.objects;
  const memo_view memo{objects.memo_words(), objects.memo_size()};
  static_assert(std::tuple_size_v<decltype(keys_)> == max_fast_pairs);
  if (keys_rewrites_ != objects.memo_rewrites()) {
    keys_ = {};
    keys_rewrites_ = objects.memo_rewrites();
  }
  std::uint32_t index = 0;
  for (std::size_t pairs = 0; *p != SETITEMS; ++pairs) {
    if (pairs == max_fast_pairs) return false;
    key_spelling& spelled = keys_[pairs];
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, p, 8);  // scan_room keeps these 8 bytes inside the window
    std::uint32_t key = k_empty;
    if ((bytes & spelled.mask) == spelled.bytes && spelled.mask != 0) {
      key = spelled.key;
      p += spelled.length;
    } else {
      const std::uint8_t* const at = p;
      if (!memo_index(p, index)) return false;
      const std::uint32_t word = memo.word(index);
      switch (word >> object_store::ref_bits) {
        case tag::string_tag: {
          const std::uint32_t ref = word & object_store::ref_mask;
          key = ref < known_count ? ref : k_empty;
          break;
        }
        case tag::empty_tag:
        case tag::object_tag:
          return false;
        case tag::boxed_tag: {
          value v;
          if (!objects.memo_get(index, v) || v.kind == vkind::object) return false;
          key = known_key(v);
          break;
        }
        default:
          break;  // a frame, call stack, block or segment: no field's name
      }
      const auto length = static_cast<std::uint32_t>(p - at);
      const std::uint64_t mask = (std::uint64_t{1} << (8 * length)) - 1;  // length is 2 or 5
      spelled = {bytes & mask, mask, length, key};
    }
    switch (key) {
      case k_action: {
        seen.action = true;
        if (!memo_index(p, index)) return false;
        const std::uint32_t w = memo.word(index);
        if (w >> object_store::ref_bits == tag::string_tag) {
          seen.action_id = w & object_store::ref_mask;
          break;
        }
        value v;
        if ((w >> object_store::ref_bits) != tag::boxed_tag || !objects.memo_get(index, v) ||
            v.kind != vkind::string)
          return false;
        seen.action_id = v.ref;
        break;
      }
      case k_addr:
        seen.addr = true;
        if (!scan_number(p, objects, e.addr)) return false;
        break;
      case k_size:
        seen.size = true;
        if (!scan_number(p, objects, e.size) || e.size > max_size) return false;
        break;
      case k_time_us:
        e.has_time = true;
        if (!scan_number(p, objects, e.time_us)) return false;
        break;
      case k_device_free:
        if (!scan_number(p, objects, e.device_free)) return false;
        break;
      case k_frames: {
        if (*p == NONE) {
          ++p;
          e.traceback = 0;
          break;
        }
        if (!memo_index(p, index)) return false;
        const std::uint32_t w = memo.word(index);
        if (w >> object_store::ref_bits == tag::traceback_tag) {
          e.traceback = w & object_store::ref_mask;
          break;
        }
        value v;
        if ((w >> object_store::ref_bits) != tag::boxed_tag || !objects.memo_get(index, v))
          return false;
        if (v.kind == vkind::traceback)
          e.traceback = v.ref;
        else if (v.kind == vkind::none)
          e.traceback = 0;
        else
          return false;
        break;
      }
      default:
        if (!scan_other(p, objects, memo)) return false;
        break;
    }
  }
  after = p;
  return true;
}

bool pickle_machine::fast_entry(std::uint64_t at) {
  if (!fast_entry_one(at)) return false;
  // Trace entries come in runs (a list's items between MARK and APPENDS): read on while the
  // next opcode starts another, leaving a declined one to the caller's loop.
  while (src_.p < src_.end && *src_.p == EMPTY_DICT) {
    const std::uint64_t next = src_.offset();
    ++src_.p;
    if (!fast_entry_one(next)) {
      --src_.p;
      break;
    }
  }
  return true;
}

[[gnu::flatten]] bool pickle_machine::fast_entry_one(std::uint64_t at) {
  const std::uint8_t* p = src_.p;  // after EMPTY_DICT
  const std::uint8_t* end = src_.end;
  const std::uint32_t memo_size = ctx_.objects.memo_size();
  if (memo_size >= max_memo || marks_.size() >= ctx_.options.max_depth) return false;
  if (!read_memo_store(p, end, memo_size) || p >= end || *p++ != MARK) return false;
  trace_event e;
  snapshot_builder::event_keys seen;
  if (static_cast<std::size_t>(end - p) >= scan_room) {
    if (!scan_entry(p, e, seen, p)) return false;
  } else {
    std::size_t pairs = 0;
    while (p < end && *p != SETITEMS) {
      value key, v;
      if (++pairs > max_fast_pairs || !read_simple(p, end, ctx_.objects, key) ||
          !read_simple(p, end, ctx_.objects, v) ||
          !builder_.event_field(e, seen, key, v, at, false))
        return false;
    }
    if (p >= end) return false;
  }
  if (!builder_.event_done(e, seen, at, false)) return false;
  value event;
  if (stack_.size() >= max_stack_ || !builder_.push_event(e, event, at)) return false;
  src_.p = p + 1;  // past SETITEMS
  ctx_.objects.memo_push_consumed();
  stack_.push_back(event);
  return true;
}

}  // namespace vramscope::observe::detail
