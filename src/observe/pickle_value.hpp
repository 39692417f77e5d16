#pragma once
// Values of our snapshot unpickler. A value is 16 bytes: a kind, a 32-bit reference (string,
// object slot, frame, traceback, block, segment or pending trace entry) and a 64-bit payload
// (an integer, a double's bits, or an object slot's generation). Containers live in slots that
// are recycled once the snapshot builder has turned a dict into a compact record; the generation
// makes a reference to a recycled slot detectable instead of silently aliasing.
//
// The memo keeps 4 bytes per index: a 3-bit tag and a 29-bit reference. Values that do not fit
// (a second memo entry for one object, a memoised number) are boxed in a side table.

#include <bit>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vramscope::observe::detail {

// integer: fits int64 (payload is its two's complement); big_integer: 2^63 .. 2^64-1 (payload is
// the unsigned value); huge_integer: does not fit 64 bits (payload unused).
enum class vkind : std::uint8_t {
  none, boolean, integer, big_integer, huge_integer, floating, string, object, frame, traceback,
  block, segment, event
};

struct value {
  vkind kind = vkind::none;
  std::uint32_t ref = 0;
  std::uint64_t payload = 0;

  static value integer(std::int64_t v) { return {vkind::integer, 0, static_cast<std::uint64_t>(v)}; }
  static value floating(double d) { return {vkind::floating, 0, std::bit_cast<std::uint64_t>(d)}; }
  std::int64_t as_int() const { return static_cast<std::int64_t>(payload); }
  double as_double() const { return std::bit_cast<double>(payload); }
};

/// Names a value's kind for messages: "a string", "an integer", ...
const char* describe(vkind k);

/// Interned strings; id 0 is "". Views stay valid for the table's lifetime.
class string_table {
 public:
  string_table();
  std::uint32_t intern(std::string_view s);
  std::string_view get(std::uint32_t id) const { return strings_[id]; }
  std::uint64_t bytes() const { return bytes_; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  std::uint64_t bytes_ = 0;
};

enum class okind : std::uint8_t { free, list, dict, tuple };

inline constexpr std::uint32_t no_index = 0xFFFFFFFFu;

struct object_slot {
  okind kind = okind::free;
  std::uint32_t gen = 0;
  std::uint32_t memo = no_index;     // the memo index holding this object, if any
  std::uint32_t replay = no_index;   // the trace replay this list feeds, if any
  std::uint64_t streamed = 0;        // trace entries replayed instead of stored
  std::vector<value> items;          // list/tuple items; dict keys and values interleaved
};

/// Object slots and the memo. The accessors used once per opcode are inline.
class object_store {
 public:
  value create(okind kind) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    object_slot& s = slots_[index];
    s.kind = kind;
    s.memo = no_index;
    s.replay = no_index;
    s.streamed = 0;
    return {vkind::object, index, s.gen};
  }

  /// The slot `v` refers to, or nullptr when `v` is not a live object.
  object_slot* get(const value& v) {
    if (v.kind != vkind::object || v.ref >= slots_.size()) return nullptr;
    object_slot& s = slots_[v.ref];
    if (s.kind == okind::free || s.gen != v.payload) return nullptr;
    return &s;
  }

  /// Frees the slot; a memo entry that pointed at it now holds `replacement` (or nothing).
  void release(const value& v, const value* replacement);

  /// Memo operations; false when the index is out of range or the entry is empty.
  bool memo_put(std::uint32_t index, const value& v) {
    if (index > memo_.size()) return false;
    if (index == memo_.size()) {
      // The common case first: MEMOIZE right after a new container or string.
      if (v.kind == vkind::object && v.ref <= ref_mask && slots_[v.ref].memo == no_index) {
        slots_[v.ref].memo = index;
        memo_.push_back(pack(object_tag, v.ref));
        return true;
      }
      if (v.kind == vkind::string && v.ref <= ref_mask) {
        memo_.push_back(pack(string_tag, v.ref));
        return true;
      }
      memo_.push_back(0);
    } else {
      ++rewrites_;
    }
    memo_[index] = encode(v, index);
    return true;
  }
  bool memo_get(std::uint32_t index, value& out) const {
    if (index >= memo_.size()) return false;
    const std::uint32_t e = memo_[index];
    const std::uint32_t ref = e & ref_mask;
    switch (e >> ref_bits) {
      case empty_tag: return false;
      case string_tag: out = {vkind::string, ref, 0}; return true;
      case object_tag: out = {vkind::object, ref, slots_[ref].gen}; return true;
      case frame_tag: out = {vkind::frame, ref, 0}; return true;
      case traceback_tag: out = {vkind::traceback, ref, 0}; return true;
      case block_tag: out = {vkind::block, ref, 0}; return true;
      case segment_tag: out = {vkind::segment, ref, 0}; return true;
      default: out = boxed_[ref]; return true;
    }
  }
  std::uint32_t memo_size() const { return static_cast<std::uint32_t>(memo_.size()); }
  /// Room for `entries` memo entries, so that growing to them copies nothing.
  void reserve_memo(std::size_t entries) { memo_.reserve(entries); }

  // A memo entry's packed word (tag << ref_bits | reference), for readers that resolve a
  // reference without building a value; 0 (the empty tag) when the index is out of range.
  enum tag : std::uint32_t {
    empty_tag = 0, string_tag, object_tag, frame_tag, traceback_tag, block_tag, segment_tag, boxed_tag
  };
  static constexpr std::uint32_t ref_bits = 29;
  static constexpr std::uint32_t ref_mask = (1u << ref_bits) - 1;
  std::uint32_t memo_word(std::uint32_t index) const {
    return index < memo_.size() ? memo_[index] : 0;
  }
  /// The memo's words, valid until the memo next changes.
  const std::uint32_t* memo_words() const { return memo_.data(); }
  /// Counts the changes to existing memo entries (a re-put, a consumed or replaced object): a
  /// reader may keep what an entry resolved to while this count stays.
  std::uint64_t memo_rewrites() const { return rewrites_; }
  /// Appends a memo entry for an object consumed as it was read (a trace entry).
  void memo_push_consumed() { memo_.push_back(consumed_word); }
  /// True when the entry existed but its object was consumed (a trace entry already replayed).
  bool memo_was_consumed(std::uint32_t index) const {
    return index < memo_.size() && memo_[index] == consumed_word;
  }

  std::size_t live_slots() const { return slots_.size() - free_.size(); }

 private:
  // Memo entry: 3-bit tag (tag), 29-bit reference. An empty entry whose reference is 1 held an
  // object that was consumed.
  static constexpr std::uint32_t consumed_word = 1;
  static constexpr std::uint32_t pack(std::uint32_t t, std::uint32_t ref) { return (t << ref_bits) | ref; }

  std::uint32_t encode(const value& v, std::uint32_t index);
  std::vector<object_slot> slots_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> memo_;
  std::vector<value> boxed_;
  std::uint64_t rewrites_ = 0;
};

}  // namespace vramscope::observe::detail
