#pragma once
// Our unpickler: executes the opcodes of pickle protocols 2-5 that data pickles use (no GLOBAL,
// REDUCE or other object-building opcodes), with a value stack, a mark stack and the memo,
// reading from a byte_source. Completed dicts and list appends go to the snapshot_builder,
// which keeps only what the analysis needs. Opcode layouts: CPython's Lib/pickletools.py, the
// definition of the pickle protocols.
//
// Limits (snapshot_options): open MARKs (nesting depth), values on the stack, string length,
// memo size (2^29 entries). Every failure records the byte offset of the opcode.

#include <array>
#include <cstdint>
#include <vector>

#include "observe/pickle_source.hpp"
#include "observe/pickle_value.hpp"
#include "observe/snapshot_builder.hpp"

namespace vramscope::observe::detail {

class pickle_machine {
 public:
  pickle_machine(pickle_context& ctx, snapshot_builder& builder, byte_source& src);

  /// Runs to STOP. False on failure, with ctx.failure set.
  bool run();
  int protocol() const { return protocol_; }

 private:
  bool step(std::uint8_t op, std::uint64_t at);
  /// Values below the innermost MARK are out of reach until that MARK is consumed, as in
  /// Python's unpickler, which starts a fresh stack at each MARK.
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  bool push(const value& v, std::uint64_t at);
  bool memo_push(std::uint32_t index, std::uint8_t op, std::uint64_t at);
  bool memoize(std::uint64_t at);
  bool long1(std::uint64_t at);
  /// Decodes a trace-entry dict in one go (pickle_fast_entry.cpp); false: nothing consumed.
  bool fast_entry(std::uint64_t at);
  bool fast_entry_one(std::uint64_t at);
  /// Reads an entry's pairs from `p` (just past its MARK) to SETITEMS, which `after` points
  /// at; the window holds at least scan_room bytes from `p`. False: decline.
  bool scan_entry(const std::uint8_t* p, trace_event& e, snapshot_builder::event_keys& seen,
                  const std::uint8_t*& after);
  std::uint32_t take_le(std::size_t width);
  [[gnu::cold]] bool stack_full(std::uint64_t at);
  [[gnu::cold]] bool at_end(std::uint64_t at);
  [[gnu::cold]] bool memo_missing(std::uint64_t index, std::uint8_t op, std::uint64_t at);
  [[gnu::cold]] bool truncated(std::uint8_t op, std::uint64_t at, std::size_t needed);
  bool read_uint(std::uint8_t op, std::uint64_t at, std::size_t width, std::uint64_t& out);
  bool read_string(std::uint8_t op, std::uint64_t at, std::size_t length_width);
  bool read_long(std::uint8_t op, std::uint64_t at, std::size_t length_width);
  bool read_float(std::uint64_t at);
  bool memo_put(std::uint8_t op, std::uint64_t at, std::size_t width);
  bool mark(std::uint64_t at);
  bool pop_mark(std::uint8_t op, std::uint64_t at, std::size_t& mark_at, bool needs_container);
  bool set_items(std::uint8_t op, std::uint64_t at, bool single);
  bool append(std::uint8_t op, std::uint64_t at, bool single);
  bool build_from_mark(std::uint8_t op, std::uint64_t at, okind kind);
  bool build_tuple(std::uint64_t at, std::size_t n);
  bool frame(std::uint64_t at);
  bool proto(std::uint64_t at);
  bool unsupported(std::uint8_t op, std::uint64_t at);

  pickle_context& ctx_;
  snapshot_builder& builder_;
  byte_source& src_;
  std::vector<value> stack_;
  std::vector<std::size_t> marks_;
  std::size_t max_stack_ = 0;
  bool fast_entries_ = true;
  int protocol_ = 0;
  bool stopped_ = false;
  // The scanner's keys, pair by pair, as the last entries spelled them: the bytes of the memo
  // reference (opcode and index, `mask` keeps them) and the field it resolved to, valid while
  // no memo entry changes (object_store::memo_rewrites). Entries of one trace spell their keys
  // alike, so a key is resolved once, not once an entry.
  struct key_spelling {
    std::uint64_t bytes = 0;
    std::uint64_t mask = 0;  // 0: nothing kept
    std::uint32_t length = 0;
    std::uint32_t key = 0;
  };
  std::array<key_spelling, 16> keys_{};
  std::uint64_t keys_rewrites_ = 0;
};

}  // namespace vramscope::observe::detail
