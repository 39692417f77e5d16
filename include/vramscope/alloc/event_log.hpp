#pragma once
// The allocator event log: a sequence of allocator calls, its CSV form, and replay() which feeds
// a log to any allocator model (rmm's replay tool, in miniature). Format (docs/allocators.md):
//
//   op,size,stream,handle
//   alloc,1048576,0,4294967296
//   record_stream,0,1,4294967296
//   free,0,0,4294967296
//   complete_stream,0,1,0
//
// op is alloc | free | record_stream | complete_stream | empty_cache | reset_peaks; size is the
// requested bytes of an alloc (0 otherwise); handle is what the recorded model returned for the
// alloc (0 when it failed) and the handle the other ops refer to.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/core/result.hpp>

namespace vramscope::alloc {

enum class event_op : std::uint8_t {
  alloc,
  free,
  record_stream,
  complete_stream,
  empty_cache,
  reset_peaks,
};

/// "alloc", "free", ... as in the CSV.
std::string_view name_of(event_op op);

struct logged_event {
  event_op op = event_op::alloc;
  bytes size = 0;
  stream_id stream = 0;
  handle id = 0;
  bool operator==(const logged_event&) const = default;
};

/// The log as CSV text, header included.
std::string to_event_csv(const std::vector<logged_event>& events);

/// Parses CSV text written by to_event_csv. Blank lines are skipped. Fails on a wrong header, a
/// row without four fields, an unknown op or a field that is not an unsigned number, with a
/// diagnostic naming `source`, the line, the column and the offending line.
result<std::vector<logged_event>> parse_event_csv(std::string_view text,
                                                  const std::string& source = "<events>");

/// read_file + parse_event_csv.
result<std::vector<logged_event>> read_event_log(const std::string& path);

/// What a replay did.
struct replay_summary {
  std::uint64_t events = 0;
  std::uint64_t allocations = 0;         // successful allocs
  std::uint64_t failed_allocations = 0;  // allocs the model refused (OOM)
  std::uint64_t skipped = 0;  // frees / record_streams of allocations that failed in the replay
};

/// Feeds `events` to `model` in order, translating recorded handles to the model's own. An
/// alloc recorded as failed (handle 0) is still attempted; if it succeeds it stays live. Fails,
/// naming `source` and the CSV line (event index + 2), when an event refers to a handle that no
/// earlier alloc returned or that was already freed; the model keeps the events before it.
result<replay_summary> replay(const std::vector<logged_event>& events, allocator_model& model,
                              const std::string& source = "<events>");

}  // namespace vramscope::alloc
