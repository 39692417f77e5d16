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

bool pickle_machine::fast_entry(std::uint64_t at) {
  const std::uint8_t* p = src_.p;  // after EMPTY_DICT
  const std::uint8_t* end = src_.end;
  const std::uint32_t memo_size = ctx_.objects.memo_size();
  if (memo_size >= max_memo || marks_.size() >= ctx_.options.max_depth) return false;
  if (!read_memo_store(p, end, memo_size) || p >= end || *p++ != MARK) return false;
  trace_event e;
  snapshot_builder::event_keys seen;
  std::size_t pairs = 0;
  while (p < end && *p != SETITEMS) {
    value key, v;
    if (++pairs > max_fast_pairs || !read_simple(p, end, ctx_.objects, key) ||
        !read_simple(p, end, ctx_.objects, v) || !builder_.event_field(e, seen, key, v, at, false))
      return false;
  }
  if (p >= end || !builder_.event_done(e, seen, at, false)) return false;
  value event;
  if (stack_.size() >= max_stack_ || !builder_.push_event(e, event, at)) return false;
  src_.p = p + 1;  // past SETITEMS
  ctx_.objects.memo_push_consumed();
  stack_.push_back(event);
  return true;
}

}  // namespace vramscope::observe::detail
