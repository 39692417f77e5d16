#pragma once
// Allocator models: pure bookkeeping replicas of the allocators that sit between a framework
// and the driver (PyTorch's caching allocator, XLA's BFC pool, or none). The simulator replays a
// rank's events through one of them to learn `allocated`, `active` and `reserved` at every
// point. No model touches device memory. Models are not thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vramscope/core/units.hpp>

namespace vramscope::alloc {

/// A CUDA stream, as the schedule numbers them (0 = default/compute stream).
using stream_id = std::uint32_t;
/// Identifies one live allocation; returned by allocate, passed back to free.
using handle = std::uint64_t;

/// The handle of every zero-byte allocation: no memory is taken (torch and XLA hand out a null
/// pointer), and free / record_stream on it do nothing. Real handles are never this value.
inline constexpr handle zero_size_handle = ~handle{0};

/// Why an allocation failed: the figures PyTorch prints in its OOM message.
struct oom_info {
  bytes requested = 0;       // the caller's size
  bytes segment_size = 0;    // what the driver was asked for ("Tried to allocate ...")
  bytes allocated = 0;       // allocated_bytes at the failure
  bytes reserved = 0;        // reserved_bytes at the failure (after the cache flush)
  bytes capacity = 0;        // the limit the model runs under
  bytes largest_free = 0;    // largest cached free block
  std::string message;       // the text the framework would print
};

/// Result of one allocation: a handle and the block size actually taken, or an OOM.
struct allocation {
  bool ok = false;
  handle id = 0;
  bytes block_size = 0;  // rounded size counted in allocated_bytes (may exceed the request)
  std::optional<oom_info> oom;
  static allocation failed(oom_info why) { return allocation{false, 0, 0, std::move(why)}; }
};

/// One memory_stats-style quadruple: current value and peak since the last reset.
struct stat {
  bytes current = 0;
  bytes peak = 0;
};

/// The figures every model maintains (names as in torch.cuda.memory_stats()).
struct allocator_stats {
  stat allocated;           // live blocks, rounded sizes
  stat active;              // allocated + freed blocks still waiting for stream events
  stat reserved;            // bytes held from the driver (segments / mapped pages / pool)
  stat requested;           // live requests, unrounded
  bytes inactive_split = 0; // free bytes inside partly used segments (current)
  std::uint64_t segments = 0;
  std::uint64_t device_allocs = 0;  // cudaMalloc / page maps
  std::uint64_t alloc_retries = 0;  // cache flushes before a retry
  std::uint64_t ooms = 0;
  // Added for the alloc module's models; zero where a model has no such notion.
  std::uint64_t allocations = 0;            // live allocations (torch "allocation.all.current")
  std::uint64_t inactive_split_blocks = 0;  // torch "inactive_split.all.current"
  std::uint64_t device_frees = 0;           // cudaFree / page unmaps (torch "num_device_free")
  std::uint64_t sync_all_streams = 0;       // event synchronisations (torch "num_sync_all_streams")
  std::uint64_t oversize_allocations = 0;   // live blocks >= max_split_size (current)
  std::uint64_t oversize_segments = 0;      // segments >= max_split_size (current)
};

/// What a block of reserved memory holds, as a memory snapshot would name it.
enum class block_state : std::uint8_t {
  allocated,     // a live allocation
  pending_free,  // freed by the user, waiting for recorded-stream events ("active_pending_free")
  cached,        // free and reusable
};

/// One block of the debug view `allocator_model::blocks()`.
struct block_info {
  std::uint64_t address = 0;  // simulated device address; blocks never overlap
  bytes size = 0;             // bytes the block covers (rounded)
  bytes requested = 0;        // the caller's size while allocated or pending, else 0
  stream_id stream = 0;       // allocation stream
  block_state state = block_state::cached;
  handle id = 0;  // the live handle when allocated, else 0
};

/// The interface the simulator uses. Implementations: caching_allocator (PyTorch),
/// bfc_allocator (XLA), exact_allocator (no caching). Adaptors wrap any of them.
class allocator_model {
 public:
  virtual ~allocator_model() = default;

  /// Allocates `size` bytes for work on `stream`. On failure returns allocation::failed with
  /// the OOM figures; the model's state is then as the real allocator leaves it (cache flushed).
  virtual allocation allocate(bytes size, stream_id stream) = 0;

  /// The user frees `id`. allocated drops now; if the block had recorded streams it stays
  /// active until those streams' events complete and a later allocate() polls them.
  /// Requires: `id` is live.
  virtual void free(handle id) = 0;

  /// torch's Tensor.record_stream: `id` is used by `stream` too (no-op for its own stream).
  virtual void record_stream(handle id, stream_id stream) = 0;

  /// All work queued so far on `stream` has finished: events recorded on it complete. Blocks
  /// they guard become reusable at the next allocate() (as process_events polls them).
  virtual void complete_stream(stream_id stream) = 0;

  /// torch.cuda.empty_cache(): synchronise, release every fully free segment.
  virtual void empty_cache() = 0;

  /// peak = current for every stat (torch.cuda.reset_peak_memory_stats()).
  virtual void reset_peaks() = 0;

  [[nodiscard]] virtual const allocator_stats& stats() const = 0;

  /// Short name for reports: "torch-caching", "xla-bfc", "exact".
  [[nodiscard]] virtual std::string name() const = 0;

  /// Debug view: every block of memory the model holds from the driver (mapped memory only),
  /// sorted by address. The sizes of all blocks add up to stats().reserved.current. Cost is
  /// linear in the number of blocks: for tests and snapshots, not for the replay loop. Every
  /// model of this module overrides it; the default (a model that keeps no blocks) is empty.
  [[nodiscard]] virtual std::vector<block_info> blocks() const { return {}; }

  /// The most the model may ever reserve (its device limit); reserved never exceeds it.
  [[nodiscard]] virtual bytes capacity() const { return ~bytes{0}; }

  /// The message this model would give for an out-of-memory error with `info`'s figures, as
  /// allocate() writes it into oom_info::message. A replay is a pure function of the events, the
  /// capacity and the options, and the device index of the options appears only in this text, so
  /// a caller may reuse another device's replay and ask the model of this device for its words.
  /// nullopt where a model cannot say (the default): the caller replays instead.
  [[nodiscard]] virtual std::optional<std::string> oom_message(const oom_info& info) const {
    (void)info;
    return std::nullopt;
  }

  /// A model in this one's state (the same options, blocks, pools, statistics and pending
  /// events), which then goes on as this one would; nullptr where a model cannot copy itself
  /// (the default). A replay is a pure function of the events and the options, so a caller may
  /// keep the state after a run of events and take it up again for the same run of events.
  [[nodiscard]] virtual std::unique_ptr<allocator_model> clone() const { return nullptr; }

  /// Puts this model in `other`'s state when `other` is the same kind of model with the same
  /// options (the caching model's may differ in the device its out-of-memory messages name,
  /// which stays this model's), and says whether it did; otherwise (and by default) changes
  /// nothing. Afterwards this model behaves as `other` would, handles included.
  virtual bool copy_state_from(const allocator_model& other) {
    (void)other;
    return false;
  }

  /// Appends to `key` what decides everything this model does from now on: where two states of
  /// one model under the same options give equal keys, every run of calls goes on alike from
  /// both, up to the numbers of the handles handed out. Then, for each handle of `live` in its
  /// order, the block it names, so that a caller holding those handles can tell states apart by
  /// what each of them holds. Cumulative counters (device_allocs, alloc_retries, peaks) are left
  /// out: they never decide an allocation. Linear in the blocks held: for a replay's step
  /// boundaries, not its events. false where the model cannot say (the default), or while its
  /// state holds something the key leaves out (the caching model: garbage collection's
  /// ages): callers then take no two states for equal. Requires: every handle of `live` is live.
  [[nodiscard]] virtual bool state_key(std::span<const handle> live,
                                       std::vector<std::uint64_t>& key) const {
    (void)live;
    (void)key;
    return false;
  }
};

}  // namespace vramscope::alloc
