// caching_allocator: obtaining new segments and giving memory back — alloc_block,
// release_available_cached_blocks, release_cached_blocks, garbage_collect_cached_blocks and the
// OOM report (c10/cuda/CUDACachingAllocator.cpp).

#include <algorithm>
#include <vector>

#include "alloc/caching_state.hpp"
#include "alloc/stat_ops.hpp"
#include "alloc/torch_messages.hpp"

namespace vramscope::alloc {

using detail::alloc_params;
using detail::block_index;
using detail::cblock;

bool caching_allocator::state::alloc_block(alloc_params& p, bool is_retry) {
  if (is_retry) ++totals.alloc_retries;
  const bytes reserved = totals.reserved.current;
  // set_per_process_memory_fraction is checked against the segment size, before any mapping.
  if (allowed_memory_maximum > 0 && reserved + p.alloc_size > allowed_memory_maximum) return false;
  if (options.expandable_segments) {
    p.block = try_allocate_expandable_block(p);
    return p.block != detail::no_block;
  }
  // cudaMalloc fails when the device has no room for the whole segment.
  if (reserved + p.alloc_size > options.capacity) return false;
  const block_index index = new_block();
  cblock& b = at(index);
  next_segment_address -= round_up(p.alloc_size, large_segment_rounding);
  b.address = next_segment_address;
  b.size = p.alloc_size;
  b.stream = p.stream;
  b.small = p.pool->small;
  add(&allocator_stats::segments, b.small, 1);
  increase(&allocator_stats::reserved, b.small, b.size);
  if (b.size >= options.max_split_size) add(&allocator_stats::oversize_segments, b.small, 1);
  ++totals.device_allocs;
  p.block = index;
  return true;
}

bool caching_allocator::state::release_available_cached_blocks(const alloc_params& p) {
  const bytes max_split = options.max_split_size;
  // Upstream skips expandable segments here (PyTorch PR #134338).
  if (max_split == unlimited_split || options.expandable_segments) return false;
  detail::block_pool& pool = *p.pool;
  const bytes wanted = std::max(p.size, max_split);
  // Only whole (unsplit) segments can be cudaFree'd; oversize cached blocks always are.
  auto releasable = [&](auto it) {
    return it->stream == p.stream && it->size >= max_split && !at(it->index).is_split();
  };
  auto it = pool.blocks.lower_bound({p.stream, wanted, 0, 0});
  if (it != pool.blocks.end() && it->stream == p.stream) {
    if (!releasable(it)) return false;
    release_block(it->index);
    return true;
  }
  // No single block is large enough: free oversize blocks of this stream, largest first.
  if (it == pool.blocks.begin()) return false;
  bytes released = 0;
  --it;
  while (released < wanted && releasable(it)) {
    const block_index index = it->index;
    released += it->size;
    const bool at_begin = it == pool.blocks.begin();
    if (!at_begin) --it;
    release_block(index);
    if (at_begin) break;
  }
  return released >= wanted;
}

bool caching_allocator::state::release_cached_blocks() {
  synchronize_and_free_events();
  release_blocks(large_pool);
  release_blocks(small_pool);
  return true;
}

void caching_allocator::state::release_blocks(detail::block_pool& pool) {
  std::vector<block_index> to_unmap;
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    const block_index index = it->index;
    ++it;
    if (at(index).expandable())
      to_unmap.push_back(index);  // unmapping changes the pool: collect first
    else if (!at(index).is_split())
      release_block(index);
  }
  for (block_index index : to_unmap) {
    unmap_block(index);
    if (!at(index).mapped && !at(index).is_split()) release_expandable_segment(index);
  }
}

void caching_allocator::state::release_block(block_index index) {
  const cblock& b = at(index);
  ++totals.device_frees;
  subtract(&allocator_stats::segments, b.small, 1);
  decrease(&allocator_stats::reserved, b.small, b.size);
  if (b.size >= options.max_split_size) subtract(&allocator_stats::oversize_segments, b.small, 1);
  erase_from_blocks(index);
  delete_block(index);
}

void caching_allocator::state::garbage_collect_cached_blocks() {
  const auto threshold = static_cast<bytes>(options.garbage_collection_threshold *
                                            static_cast<double>(allowed_memory_maximum));
  const bytes reserved = totals.reserved.current;
  if (reserved <= threshold) return;
  const bytes target = reserved - threshold;

  // Candidates: whole cached segments of the large pool; age = free-block searches since cached.
  auto collectable = [](const cblock& b) { return !b.is_split() && !b.expandable(); };
  auto age = [this](const cblock& b) {
    return static_cast<std::uint64_t>(large_pool.free_block_calls - b.gc_count_base);
  };
  std::uint64_t total_age = 0;
  std::uint64_t candidates = 0;
  for (const auto& key : large_pool.blocks) {
    if (!collectable(at(key.index))) continue;
    total_age += age(at(key.index));
    ++candidates;
  }
  bytes reclaimed = 0;
  bool freed = candidates > 0;
  // Release blocks at least as old as the average, repeatedly, until the target is met.
  while (reclaimed < target && freed && candidates > 0) {
    const double age_threshold = static_cast<double>(total_age) / static_cast<double>(candidates);
    freed = false;
    for (auto it = large_pool.blocks.begin(); it != large_pool.blocks.end();) {
      const block_index index = it->index;
      ++it;
      const cblock& b = at(index);
      if (!collectable(b) || static_cast<double>(age(b)) < age_threshold) continue;
      freed = true;
      reclaimed += b.size;
      total_age -= age(b);
      --candidates;
      release_block(index);
    }
  }
}

bytes caching_allocator::state::largest_cached_block() const {
  bytes largest = 0;
  for (const auto* pool : {&small_pool, &large_pool})
    for (const auto& key : pool->blocks) largest = std::max(largest, key.size);
  return largest;
}

allocation caching_allocator::state::out_of_memory(const alloc_params& p, bytes orig_size) {
  ++totals.ooms;
  oom_info info;
  info.requested = orig_size;
  info.segment_size = p.alloc_size;
  info.allocated = totals.allocated.current;
  info.reserved = totals.reserved.current;
  info.capacity = options.capacity;
  info.largest_free = largest_cached_block();
  info.message =
      detail::torch_oom_message(info, device_total, allowed_memory_maximum, options.device);
  return allocation::failed(std::move(info));
}

}  // namespace vramscope::alloc
