#pragma once
// XLA's best-fit-with-coalescing (BFC) allocator, as the JAX GPU client uses it: one pool per
// device whose limit is memory_fraction x total memory (default 0.75). With preallocation the
// first allocation takes the whole limit from the driver; without it the pool grows in regions
// of doubling size up to the limit. Memory never goes back to the driver.
// Upstream facts: docs/allocators.md ("bfc_allocator"), from XLA's
// xla/tsl/framework/bfc_allocator.cc and xla/pjrt/gpu/gpu_helpers.cc (CreateBFCAllocator).

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>

namespace vramscope::alloc {

/// BFC sizes (tsl BFCAllocator: kMinAllocationSize, kNumBins).
inline constexpr bytes bfc_min_allocation = 256;
inline constexpr int bfc_bin_count = 21;

struct bfc_options {
  /// The pool's limit: XLA_PYTHON_CLIENT_MEM_FRACTION x device memory. Required (> 0).
  bytes pool_limit = 0;
  /// XLA_PYTHON_CLIENT_PREALLOCATE (default true): the first allocation reserves the whole
  /// limit. false ("allow growth") starts with a 2 MiB region and doubles each new region:
  /// a lower footprint for small programs, more fragmentation across regions.
  bool preallocate = true;
  /// What the driver can actually hand out (device memory minus other processes and the CUDA
  /// context); 0 means pool_limit. When a region does not fit, the request is cut by 10 % until
  /// it does or gets smaller than the allocation, as upstream's Extend backpedals.
  bytes driver_limit = 0;
  /// Split a free chunk only if it is at least twice the request or wastes at least this
  /// fraction of the limit (0 = upstream default: 128 MiB).
  double fragmentation_fraction = 0;
  /// Before an OOM, give back regions with no live chunk and retry (upstream option
  /// garbage_collection; off for XLA's GPU client, hence "never shrinks").
  bool garbage_collection = false;
};

/// Options for the JAX defaults: fraction (XLA_PYTHON_CLIENT_MEM_FRACTION, 0.75 since jax 0.4.14,
/// 0.9 before) of the device's total memory.
bfc_options jax_bfc_options(bytes device_total, double memory_fraction = 0.75,
                            bool preallocate = true);

/// 256-byte rounding of BFC (RoundedBytes).
bytes bfc_round_bytes(bytes n);

/// The bin of a chunk size: floor(log2(n / 256)), at most 20 (bins hold [256 << b, 256 << b+1)).
int bfc_bin_for_size(bytes n);

/// Model of tsl::BFCAllocator on one device: free chunks ordered by (size, address) — best fit,
/// identical to upstream's bin-by-bin search — split when the chunk is at least twice the
/// request (or 128 MiB larger), coalesced with free neighbours on free. BFC is not stream-aware;
/// record_stream still defers reuse until the streams complete, like every model here.
/// Pure bookkeeping. Not thread-safe. O(log n) per operation.
class bfc_allocator final : public allocator_model {
 public:
  explicit bfc_allocator(bfc_options options);
  ~bfc_allocator() override;
  bfc_allocator(const bfc_allocator&) = delete;
  bfc_allocator& operator=(const bfc_allocator&) = delete;

  allocation allocate(bytes size, stream_id stream) override;
  void free(handle id) override;
  void record_stream(handle id, stream_id stream) override;
  void complete_stream(stream_id stream) override;
  /// Waits for pending events only: BFC never returns regions (JAX has no empty_cache).
  void empty_cache() override;
  void reset_peaks() override;
  [[nodiscard]] const allocator_stats& stats() const override;
  [[nodiscard]] std::string name() const override;  // "xla-bfc"
  [[nodiscard]] std::vector<block_info> blocks() const override;
  [[nodiscard]] bytes capacity() const override;  // pool_limit

 private:
  struct state;
  std::unique_ptr<state> state_;
};
static_assert(!std::is_abstract_v<bfc_allocator>);

}  // namespace vramscope::alloc
