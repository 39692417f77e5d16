#pragma once
// Turns the generic values of the unpickler into what the analysis needs, as soon as each dict
// is complete: frame dicts become interned frames, frame lists become reduced call stacks
// (category + a few displayable frames), block and segment dicts become compact records, and
// trace-entry dicts become events that are replayed the moment they are appended to their list
// and then forgotten. Everything else stays a generic value (the top-level dict, settings).
//
// Dicts are recognised by their keys (docs/formats/snapshot.md): "action" -> trace entry;
// "blocks" + "total_size" -> segment; "state" + "size" -> block; "filename" + "line" -> frame.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <vramscope/observe/torch_snapshot.hpp>

#include "observe/pickle_value.hpp"
#include "observe/snapshot_replay.hpp"

namespace vramscope::observe::detail {

struct pickle_failure {
  std::uint64_t offset = 0;
  std::string message;
};

/// State shared by the unpickler and the builder.
struct pickle_context {
  explicit pickle_context(const snapshot_options& o) : options(o) {}
  const snapshot_options& options;
  object_store objects;
  string_table strings;
  std::uint64_t retained_values = 0;   // values held in generic containers
  std::uint64_t retained_bytes = 0;    // frames, call stacks, blocks, segments, live blocks
  std::optional<pickle_failure> failure;

  bool fail(std::uint64_t offset, std::string message) {
    if (!failure) failure = pickle_failure{offset, std::move(message)};
    return false;
  }
  bool over_budget() const;
};

enum class block_state : std::uint8_t { active_allocated, active_pending_free, inactive };

struct frame_record {
  std::uint32_t name = 0;
  std::uint32_t filename = 0;
  std::int64_t line = 0;
  std::uint8_t flags = 0;
};

struct traceback_record {
  std::uint32_t first = 0;   // into display_frames
  std::uint8_t count = 0;
  memory_category category = memory_category::other;
};

struct block_record {
  std::uint64_t address = 0;
  bool has_address = false;
  bytes size = 0;
  bytes requested = 0;
  block_state state = block_state::inactive;
  std::uint32_t traceback = 0;
};

struct segment_record {
  int device = 0;
  std::uint64_t address = 0;
  bytes total_size = 0;
  bool expandable = false;
  std::vector<std::uint32_t> blocks;  // into blocks
};

class snapshot_builder {
 public:
  explicit snapshot_builder(pickle_context& ctx);

  /// After SETITEM(S)/DICT completed the dict in `top`: may replace it with a compact value.
  bool dict_filled(value& top, std::uint64_t offset);
  /// After APPEND(S)/LIST added `n` items to `list`: replays trace entries, stores the rest.
  bool list_extended(const value& list, const value* items, std::size_t n, std::uint64_t offset);
  /// Reads one key/value pair of a trace entry into `e`; event_done checks the entry is whole.
  /// With `report` false a problem returns false without a failure (the caller falls back to
  /// the generic path, which reports it).
  struct event_keys {
    bool action = false, addr = false, size = false;
    std::uint32_t action_id = 0;
  };
  bool event_field(trace_event& e, event_keys& seen, const value& key, const value& v, std::uint64_t offset,
                   bool report);
  bool event_done(trace_event& e, const event_keys& seen, std::uint64_t offset, bool report);
  /// Queues a completed trace entry; `out` becomes the value standing for it on the stack.
  bool push_event(const trace_event& e, value& out, std::uint64_t offset) {
    if ((pending_.size() + 1) * sizeof(trace_event) > ctx_.options.max_retained) [[unlikely]]
      return too_many_pending(offset);
    pending_.push_back(e);
    pending_done_.push_back(0);
    out = value{vkind::event, static_cast<std::uint32_t>(pending_.size() - 1), pending_epoch_};
    return true;
  }
  /// At STOP: reads the top-level dict (or a bare list of segments).
  bool finish(const value& top, std::uint64_t offset);

  // What the analysis reads afterwards.
  std::vector<frame_record> frames;
  std::vector<traceback_record> tracebacks;   // [0]: no frames
  std::vector<std::uint32_t> display_frames;  // frame ids
  std::vector<block_record> blocks;
  std::vector<segment_record> segments;
  std::vector<trace_replay> replays;
  std::vector<std::pair<int, std::uint32_t>> device_replays;  // device -> index into replays
  std::string alloc_conf;
  std::optional<bool> expandable_segments;
  std::uint64_t skipped_frames = 0;      // frame-list items that were not frame dicts
  std::uint64_t unknown_states = 0;      // blocks with a state we do not know (read as inactive)
  std::uint64_t unplaced_entries = 0;    // trace entries outside device_traces

 private:
  [[gnu::cold]] bool too_many_pending(std::uint64_t offset);
  bool make_event(object_slot& d, value& top, std::uint64_t offset);
  bool make_block(object_slot& d, value& top, std::uint64_t offset);
  bool make_segment(object_slot& d, value& top, std::uint64_t offset);
  bool attach_blocks(segment_record& s, const value& block_list, std::uint64_t offset);
  bool make_frame(object_slot& d, value& top, std::uint64_t offset);
  bool traceback_of(const value& v, std::uint32_t& out, std::uint64_t offset, const char* what);
  std::uint32_t intern_traceback(const std::vector<std::uint32_t>& frame_ids);
  bool replay_into(object_slot& list, const value& item, std::uint64_t offset);
  bool read_device_traces(const value& v, std::uint64_t offset);
  void read_settings(const value& v);
  void replace(value& top, const value* replacement);

  pickle_context& ctx_;
  std::vector<trace_event> pending_;     // completed trace entries not yet appended to a list
  std::vector<std::uint8_t> pending_done_;  // 1: appended to a list (and replayed)
  std::size_t pending_consumed_ = 0;
  std::uint64_t pending_epoch_ = 0;     // event values carry it; stale ones are detected
  std::unordered_map<std::string, std::uint32_t> traceback_ids_;
  struct frame_key_hash {
    std::size_t operator()(const frame_record& f) const;
  };
  struct frame_key_equal {
    bool operator()(const frame_record& a, const frame_record& b) const;
  };
  std::unordered_map<frame_record, std::uint32_t, frame_key_hash, frame_key_equal> frame_ids_;
};

}  // namespace vramscope::observe::detail
