#pragma once
// Replays one device's trace entries as they are read, keeping only live blocks, the running
// levels and their peaks, and the blocks that were live at the allocated peak and freed since
// (a journal that is cleared at each new peak). Nothing per entry is stored, so memory follows
// the number of live blocks, not the length of the trace.
//
// Allocations that predate the trace are discovered late (a free without an alloc, a block live
// in the final state). Such a block was live at every earlier entry, so discovering it raises
// every earlier level by its size: the peak's value grows and its position does not move.

#include <cstdint>
#include <optional>
#include <vector>

#include <vramscope/observe/torch_snapshot.hpp>

#include "observe/addr_map.hpp"

namespace vramscope::observe::detail {

enum class trace_action : std::uint8_t {
  alloc, free_requested, free_completed, free_legacy, segment_alloc, segment_free, segment_map,
  segment_unmap, oom, snapshot, other
};

struct trace_event {
  trace_action action = trace_action::other;
  bool has_time = false;
  std::uint32_t traceback = 0;   // 0: no frames
  std::uint64_t addr = 0;
  std::uint64_t size = 0;
  std::uint64_t time_us = 0;
  std::uint64_t device_free = 0;
};

/// A block of the final state, as the replay needs it.
struct final_block {
  std::uint64_t address = 0;
  bytes size = 0;
  bytes requested = 0;
  bool pending_free = false;     // "active_pending_free"
  std::uint32_t traceback = 0;
};

/// A block live at the allocated peak.
struct peak_block {
  std::uint64_t address = 0;
  bytes size = 0;
  bytes requested = 0;
  std::uint32_t traceback = 0;
  std::optional<std::uint64_t> trace_index;  // empty: allocated before the trace
};

struct replay_result {
  trace_peak allocated, active, reserved;
  std::vector<timeline_point> timeline;
  bytes reserved_at_allocated_peak = 0;
  std::vector<peak_block> at_peak;
  std::uint64_t allocated_before_trace = 0;
  bool reserved_inconsistent = false;  // the trace frees more than the final segments explain
};

class trace_replay {
 public:
  /// `timeline_points`: stretches the timeline keeps; when the trace outgrows them, neighbours
  /// merge (keeping their maxima) and each stretch covers twice as many entries.
  explicit trace_replay(std::size_t timeline_points = 1024) : timeline_capacity_(timeline_points) {}
  void feed(const trace_event& e);

  /// Reconciles with the final state (`reserved_end`: sum of the device's segment sizes;
  /// `live_end`: its active blocks) and returns the levels and the blocks live at the peak.
  replay_result finish(bytes reserved_end, const std::vector<final_block>& live_end);

  std::uint64_t entries() const { return seq_; }
  std::size_t live_blocks() const { return live_.size(); }
  std::uint64_t allocs = 0, frees = 0, segment_allocs = 0, segment_frees = 0, others = 0;
  std::vector<snapshot_oom> ooms;
  std::optional<std::uint64_t> first_time_us, last_time_us;

 private:
  struct live_block {
    bytes size = 0;
    bytes requested = 0;
    std::int64_t alloc_seq = -1;  // -1: before the trace
    std::uint32_t traceback = 0;
    bool pending = false;
  };
  struct running_peak {
    std::uint64_t value = 0;
    std::int64_t seq = -1;
    std::optional<std::uint64_t> time_us;
  };

  void alloc(const trace_event& e);
  void free_requested(const trace_event& e);
  void free_completed(const trace_event& e);
  void segment(std::int64_t delta);
  void raise_allocated_peak();
  void raise_active_peak();
  void journal_if_live_at_peak(std::uint64_t addr, const live_block& b);
  void record_timeline();
  [[gnu::noinline]] void start_stretch();  // record_timeline at a stretch's first entry
  void raise_timeline(bytes size);  // a block found live since before the trace

  struct stretch {
    std::uint64_t first_entry = 0;
    std::optional<std::uint64_t> time_us;
    std::uint64_t allocated = 0;
    std::int64_t reserved_delta = 0;
  };
  std::vector<stretch> timeline_;
  std::size_t timeline_capacity_ = 1024;
  unsigned stretch_shift_ = 0;          // a stretch covers 2^stretch_shift_ entries
  std::uint64_t next_stretch_seq_ = 0;  // the first entry past the last stretch

  addr_map<live_block> live_;
  std::vector<peak_block> journal_;  // live at the allocated peak, freed since
  std::uint64_t allocated_ = 0, active_ = 0;
  std::int64_t reserved_delta_ = 0;
  running_peak peak_allocated_, peak_active_;
  std::int64_t peak_reserved_delta_ = 0;
  std::int64_t peak_reserved_seq_ = -1;
  std::optional<std::uint64_t> peak_reserved_time_;
  std::int64_t reserved_delta_at_allocated_peak_ = 0;
  std::uint64_t seq_ = 0;  // index of the entry being replayed
  std::optional<std::uint64_t> time_;
  std::uint64_t found_before_ = 0;
};

}  // namespace vramscope::observe::detail
