#pragma once
// Analysis of a PyTorch memory snapshot: the pickle written by
// torch.cuda.memory._dump_snapshot() (protocols 2-5), without Python. The file is streamed in
// chunks through our own unpickler; trace entries are replayed as they are read and then
// dropped, so memory stays proportional to the live blocks and the distinct call stacks, not to
// the file (which can be gigabytes). docs/formats/snapshot.md describes the format, the replay
// and the frame rules.
//
// What the replay computes, per device (the levels of docs/design.md):
//   allocated  live blocks, sizes rounded to 512 B as the allocator rounds by default; a free
//              counts at "free_requested" (as allocated_bytes does)
//   active     allocated plus blocks freed but still waiting for stream events; a free counts at
//              "free_completed" (as active_bytes does)
//   reserved   segments: segment_alloc/map add, segment_free/unmap subtract; anchored so that
//              the end of the trace equals the sum of the final segments
// Allocations made before recording started (the ring buffer drops old entries) are found from
// frees without an alloc and from blocks live in the final state, and are counted as live from
// the first entry. Thread-safe: no shared state.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::observe {

/// What an allocation is for, guessed from its call stack (rules in docs/formats/snapshot.md).
enum class memory_category : std::uint8_t {
  parameters, gradients, optimizer, activations, communication, other
};
inline constexpr std::size_t memory_category_count = 6;
std::string_view name_of(memory_category c);

struct stack_frame {
  std::string name;       // function name
  std::string filename;
  std::int64_t line = 0;
};

/// A block live at the allocated peak.
struct snapshot_allocation {
  std::uint64_t address = 0;
  bytes size = 0;             // rounded (what allocated_bytes counts)
  bytes requested = 0;        // what the program asked for
  memory_category category = memory_category::other;
  std::vector<stack_frame> frames;         // innermost first, torch internals filtered out
  std::optional<std::uint64_t> trace_index;  // its alloc entry; empty: allocated before recording
};

/// Blocks live at the allocated peak grouped by call stack.
struct allocation_site {
  memory_category category = memory_category::other;
  std::vector<stack_frame> frames;
  std::uint64_t count = 0;
  bytes total = 0;
};

/// The highest value a level reached. trace_index is the entry after which it was reached
/// (empty: already at the start, before the first entry).
struct trace_peak {
  bytes value = 0;
  std::optional<std::uint64_t> trace_index;
  std::optional<std::uint64_t> time_us;   // microseconds since the Unix epoch
};

struct snapshot_oom {
  std::uint64_t trace_index = 0;
  std::optional<std::uint64_t> time_us;
  bytes requested = 0;        // rounded request size
  bytes device_free = 0;      // cudaMemGetInfo free bytes at the failure
};

/// The allocator state at the moment of the snapshot ("segments").
struct segment_state {
  std::uint64_t segments = 0;
  std::uint64_t expandable_segments = 0;
  std::uint64_t blocks = 0;
  bytes reserved = 0;                 // sum of segment sizes
  bytes allocated = 0;                // blocks "active_allocated"
  bytes requested = 0;                // their requested sizes
  bytes active_pending_free = 0;      // freed, waiting for stream events
  bytes inactive = 0;                 // free blocks
  bytes inactive_split = 0;           // free blocks in segments with other blocks: not releasable
  std::uint64_t inactive_split_blocks = 0;
  bytes largest_inactive_block = 0;
};

/// The levels over a stretch of trace entries (their maxima, so that no peak is lost when a long
/// trace is drawn in a few hundred points).
struct timeline_point {
  std::uint64_t first_entry = 0;          // index of the stretch's first trace entry
  std::optional<std::uint64_t> time_us;   // its time, when recorded
  bytes allocated = 0;                    // the most allocated within the stretch
  bytes reserved = 0;                     // the most reserved within the stretch
};

/// One segment of the final state: how much of it is allocated, waiting for stream events or
/// free, and its largest free block (what fragmentation leaves usable).
struct segment_view {
  std::uint64_t address = 0;
  bytes size = 0;
  bytes allocated = 0;
  bytes pending_free = 0;
  bytes free = 0;
  bytes largest_free = 0;
  std::uint64_t blocks = 0;
  bool expandable = false;
};

struct device_snapshot {
  int device = 0;
  segment_state final_state;
  std::uint64_t trace_entries = 0;
  std::uint64_t allocs = 0, frees = 0, segment_allocs = 0, segment_frees = 0;
  std::uint64_t other_entries = 0;    // snapshot, annotations, unknown actions
  std::uint64_t allocated_before_trace = 0;  // blocks found live before the first entry
  trace_peak peak_allocated, peak_active, peak_reserved;
  bytes reserved_at_allocated_peak = 0;
  std::uint64_t allocations_at_peak = 0;
  std::array<bytes, memory_category_count> categories_at_peak{};  // sums to peak_allocated
  std::vector<snapshot_allocation> top_allocations;               // largest first
  std::vector<allocation_site> top_sites;                         // largest total first
  std::vector<snapshot_oom> ooms;
  std::optional<std::uint64_t> first_time_us, last_time_us;
  std::vector<timeline_point> timeline;   // in trace order, at most snapshot_options::timeline_points
  std::vector<segment_view> segments;     // the final state's, by address
};

struct snapshot_summary {
  std::string source;
  std::uint64_t file_bytes = 0;
  int protocol = 0;                      // pickle protocol from PROTO; 0 when absent
  std::vector<device_snapshot> devices;  // devices with segments or trace entries, by index
  std::string alloc_conf;                // allocator_settings.PYTORCH_CUDA_ALLOC_CONF
  std::optional<bool> expandable_segments;
  vramscope::warnings warnings;
};

struct snapshot_options {
  std::size_t top_allocations = 10;       // entries kept in top_allocations and top_sites
  std::size_t frames_per_allocation = 4;  // frames kept per call stack (at most 16)
  std::size_t max_depth = 100;            // open MARKs; real snapshots use fewer than 10
  bytes max_string = 16_MiB;              // longest string or bytes value accepted
  bytes max_retained = 1_GiB;             // strings and values kept outside trace entries
  std::size_t max_stack = 1'000'000;      // values on the unpickler stack
  std::size_t chunk = 4_MiB;              // read size when streaming a file
  std::size_t timeline_points = 1024;     // stretches the timeline keeps (a power of two)
  bool fast_trace_entries = true;         // decode plain trace-entry dicts directly; the result is
                                          // the same either way (off only to test that it is)
};

/// Streams and analyses the snapshot at `path`. Fails with a diagnostic naming the file and the
/// byte offset: truncated file, unknown or unsupported opcode, nesting or string limits, a
/// value of the wrong type in a segment, block or trace entry, or a top level that is not a
/// snapshot dict.
result<snapshot_summary> analyze_snapshot(const std::string& path,
                                          const snapshot_options& options = {});

/// The same on bytes in memory (tests, fuzzing). `source` names them in messages.
result<snapshot_summary> analyze_snapshot_bytes(std::string_view data, const std::string& source,
                                                const snapshot_options& options = {});

}  // namespace vramscope::observe
