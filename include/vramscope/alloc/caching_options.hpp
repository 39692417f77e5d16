#pragma once
// Configuration of the PyTorch caching-allocator model: one field per PYTORCH_CUDA_ALLOC_CONF
// key plus the device figures the model needs, the parser for the PYTORCH_CUDA_ALLOC_CONF
// string, and the size rules (rounding, new-segment size, torch's size formatting) as free
// functions so that other modules (the doctor, the snapshot reader) apply the same arithmetic.
// Upstream facts: docs/allocators.md, from PyTorch's c10/cuda/CUDACachingAllocator.cpp and
// c10/core/AllocatorConfig.cpp.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::alloc {

/// Sizes from CUDACachingAllocator.cpp (kMinBlockSize, kSmallSize, kSmallBuffer, kMinLargeAlloc,
/// kLargeBuffer, kRoundLarge).
inline constexpr bytes min_block_size = 512;
inline constexpr bytes small_request_limit = 1_MiB;
inline constexpr bytes small_segment_size = 2_MiB;
inline constexpr bytes min_large_alloc = 10_MiB;
inline constexpr bytes large_segment_size = 20_MiB;
inline constexpr bytes large_segment_rounding = 2_MiB;

/// max_split_size when max_split_size_mb is not set (upstream: SIZE_MAX).
inline constexpr bytes unlimited_split = std::numeric_limits<bytes>::max();

/// Number of power-of-two size intervals of roundup_power2_divisions: 1 MiB, 2 MiB, ... 32 GiB+.
inline constexpr std::size_t roundup_intervals = 16;

/// PYTORCH_CUDA_ALLOC_CONF "backend".
enum class alloc_backend : std::uint8_t {
  native,             // the caching allocator
  cuda_malloc_async,  // CUDA's stream-ordered pool; modelled by exact_allocator (see factory.hpp)
};

struct caching_allocator_options {
  /// Bytes the allocator may hold from the driver: the device's memory minus everything that
  /// lives outside the allocator (CUDA context, NCCL buffers, libraries, other processes). A new
  /// segment that would push reserved above it fails like cudaMalloc does. Default: 80 GiB.
  bytes capacity = 80_GiB;
  /// Total device memory, printed as "total capacity" in the OOM message, basis of
  /// memory_fraction and of the address range of expandable segments. 0 means `capacity`.
  bytes device_total = 0;
  /// GPU index printed in the OOM message ("GPU 0 has ...").
  int device = 0;
  /// torch.cuda.set_per_process_memory_fraction(f); 0 = never called. When set, a new segment
  /// fails once reserved + segment > f * device_total, and garbage_collection_threshold works.
  double memory_fraction = 0;

  /// max_split_size_mb (default unlimited). Cached blocks >= this are never split and serve only
  /// requests >= it (within max_non_split_rounding). Lower values curb fragmentation from large
  /// blocks at the cost of more cudaMalloc calls and more cache flushes near the limit.
  bytes max_split_size = unlimited_split;
  /// max_non_split_rounding_mb (trunk; default 20 MiB, minimum 20): how much larger than an
  /// oversize request an oversize cached block may be and still serve it whole.
  bytes max_non_split_rounding = 20_MiB;
  /// roundup_power2_divisions per interval [2^k MiB, 2^(k+1) MiB), index 0 also covering < 1 MiB
  /// (default all 0 = plain 512-byte rounding). More divisions waste less per block; fewer make
  /// sizes of varying batches coincide, so cached blocks are reused more often.
  std::array<std::uint32_t, roundup_intervals> roundup_power2_divisions{};
  /// garbage_collection_threshold in (0, 1); 0 = off (default). Only acts when memory_fraction is
  /// set: before a new segment, releases old unsplit cached large blocks while reserved exceeds
  /// threshold * fraction * device_total. Trades cudaMalloc churn for a lower reserved peak.
  double garbage_collection_threshold = 0;
  /// expandable_segments (default false): one growing virtual segment per stream and pool,
  /// mapped in 2 MiB (small) / 20 MiB (large) pages. Avoids slivers when sizes vary; free pages
  /// are returned on empty_cache and before an OOM.
  bool expandable_segments = false;
  /// backend (default native).
  alloc_backend backend = alloc_backend::native;
  /// release_lock_on_cudamalloc: a locking detail; accepted, changes no figure.
  bool release_lock_on_cudamalloc = false;

  bool operator==(const caching_allocator_options&) const = default;
};

/// Parses a PYTORCH_CUDA_ALLOC_CONF value such as
/// "expandable_segments:True,max_split_size_mb:512,roundup_power2_divisions:[256:1,>:8]" into
/// options with every other field at its default. Keys and values are case-sensitive as in
/// PyTorch (booleans are True / False). Keys that only affect pinned host memory or CUDA graphs
/// (pinned_use_cuda_host_register, pinned_num_register_threads, pinned_use_background_threads,
/// pinned_reserve_segment_size_mb, graph_capture_record_stream_reuse) are checked, then ignored
/// with a warning appended to `warnings_out` when it is not null.
/// Fails with a diagnostic (source "PYTORCH_CUDA_ALLOC_CONF", line 1, the column of the
/// offending token, the text as context) naming the key and what was expected.
result<caching_allocator_options> parse_alloc_conf(std::string_view conf,
                                                   warnings* warnings_out = nullptr);

/// torch's round_size: the block size a request of `size` bytes is rounded to.
bytes caching_round_size(bytes size, const caching_allocator_options& options);

/// torch's roundup_power2_next_division: `size` rounded up to the next of `divisions` equal
/// steps between the powers of two around it (1200 B, 4 divisions -> 1280 B).
/// Requires: divisions is a power of two >= 2.
bytes round_to_power2_division(bytes size, std::uint32_t divisions);

/// torch's get_allocation_size: size of the new segment for an already rounded request:
/// 2 MiB up to 1 MiB, 20 MiB below 10 MiB, else rounded up to 2 MiB.
bytes caching_segment_size(bytes rounded);

/// torch's format_size: "512 bytes", "1.50 KiB", "600.00 MiB", "9.00 GiB" (two decimals; a unit
/// is used up to and including 1024 of it, so 1 GiB prints as "1024.00 MiB").
std::string format_torch_size(bytes n);

}  // namespace vramscope::alloc
