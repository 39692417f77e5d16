// caching_allocator: malloc and free, following DeviceCachingAllocator::malloc / free /
// free_block / alloc_found_block (c10/cuda/CUDACachingAllocator.cpp) step by step.

#include <array>
#include <cstdint>

#include "alloc/caching_state.hpp"
#include "alloc/stat_ops.hpp"

namespace vramscope::alloc {

using detail::alloc_params;
using detail::block_index;
using detail::cblock;
using detail::no_block;

allocation caching_allocator::state::malloc(bytes orig_size, stream_id stream) {
  if (orig_size == 0) return allocation{true, zero_size_handle, 0, std::nullopt};
  // Upstream polls the events of blocks freed with stream uses at the start of every malloc.
  process_events();
  const bytes size = caching_round_size(orig_size, options);
  detail::block_pool& pool = size <= small_request_limit ? small_pool : large_pool;
  alloc_params p{size, stream, &pool, caching_segment_size(size)};

  bool found = get_free_block(p);
  if (!found) {
    if (gc_enabled()) garbage_collect_cached_blocks();
    // A new segment; else release oversize cached blocks and retry; else synchronise, release
    // every unsplit cached block and retry once more (counted as a retry).
    found = alloc_block(p, false) ||
            (release_available_cached_blocks(p) && alloc_block(p, false)) ||
            (release_cached_blocks() && alloc_block(p, true));
  }
  if (!found) return out_of_memory(p, orig_size);
  return alloc_found_block(p, orig_size, should_split(at(p.block), size));
}

bool caching_allocator::state::get_free_block(alloc_params& p) {
  detail::block_pool& pool = *p.pool;
  if (gc_enabled()) ++pool.free_block_calls;
  auto it = pool.blocks.lower_bound({p.stream, p.size, 0, 0});
  if (it == pool.blocks.end() || it->stream != p.stream) return false;

  if (at(it->index).expandable()) {
    // A free block followed by unmapped address space counts, for best fit, as the size it can
    // grow to: walk on while the next candidate could grow less.
    auto expandable_size = [this](const detail::size_key& k) {
      const cblock& b = at(k.index);
      return b.size + (b.next != no_block && !at(b.next).mapped ? at(b.next).size : 0);
    };
    auto next = std::next(it);
    while (at(it->index).expandable() && next != pool.blocks.end() && next->stream == p.stream &&
           expandable_size(*next) < expandable_size(*it))
      it = next++;
  }

  const bytes max_split = options.max_split_size;
  // A normal request never takes an oversize block; an oversize request takes one only if it
  // is less than max_non_split_rounding larger.
  if (p.size < max_split && it->size >= max_split) return false;
  if (p.size >= max_split && it->size >= p.size + options.max_non_split_rounding) return false;
  p.block = it->index;
  p.cached = true;  // leaves the pool in alloc_found_block, or gives its node to the split's rest
  return true;
}

bool caching_allocator::state::should_split(const cblock& b, bytes size) const {
  const bytes remaining = b.size - size;
  if (b.small || options.expandable_segments) return remaining >= min_block_size;
  return size < options.max_split_size && remaining > small_request_limit;
}

block_index caching_allocator::state::split_front(block_index index, bytes size, bool cached) {
  // The allocation takes the front of the block; the rest stays in `index`, back in the pool
  // (in the whole block's node when the block was cached).
  const block_index front = new_block();
  cblock& b = at(front);
  cblock& rest = at(index);
  b.address = rest.address;
  b.size = size;
  b.stream = rest.stream;
  b.small = rest.small;
  b.segment = rest.segment;
  b.prev = rest.prev;
  if (b.prev != no_block) at(b.prev).next = front;
  b.next = index;
  rest.prev = front;
  rest.address += size;
  rest.size -= size;
  if (cached)
    rekey_in_blocks(index);
  else
    insert_into_blocks(index);
  return front;
}

allocation caching_allocator::state::alloc_found_block(alloc_params& p, bytes orig_size,
                                                       bool split_remainder) {
  block_index index = p.block;
  const bool small = p.pool->small;
  const bool already_split = at(index).is_split();
  // inactive_split is not tracked for expandable segments.
  const bool track_split = !at(index).expandable();
  if (split_remainder) {
    const block_index rest = index;
    index = split_front(rest, p.size, p.cached);
    if (track_split && already_split) {
      subtract(&allocator_stats::inactive_split, small, p.size);
    } else if (track_split) {
      add(&allocator_stats::inactive_split, small, at(rest).size);
      add(&allocator_stats::inactive_split_blocks, small, 1);
    }
  } else {
    if (p.cached) erase_from_blocks(index);
    if (already_split && track_split) {
      subtract(&allocator_stats::inactive_split, small, at(index).size);
      subtract(&allocator_stats::inactive_split_blocks, small, 1);
    }
  }

  cblock& b = at(index);
  b.allocated = true;
  b.requested = orig_size;
  if (++b.generation == 0) ++b.generation;
  add(&allocator_stats::allocations, small, 1);
  increase(&allocator_stats::allocated, small, b.size);
  increase(&allocator_stats::active, small, b.size);
  increase(&allocator_stats::requested, small, orig_size);
  if (b.size >= options.max_split_size) add(&allocator_stats::oversize_allocations, small, 1);
  return allocation{true, detail::make_handle(index, b.generation), b.size, std::nullopt};
}

cblock& caching_allocator::state::allocated_block(handle id) {
  return detail::allocated_slot(blocks, id);
}

void caching_allocator::state::free(handle id) {
  if (id == zero_size_handle) return;
  cblock& b = allocated_block(id);
  const block_index index = detail::handle_slot(id);
  b.allocated = false;
  subtract(&allocator_stats::allocations, b.small, 1);
  decrease(&allocator_stats::allocated, b.small, b.size);
  if (b.size >= options.max_split_size)
    subtract(&allocator_stats::oversize_allocations, b.small, 1);
  if (!b.stream_uses.empty())
    insert_events(index);  // stays active until the events complete and are polled
  else
    free_block(index);
}

void caching_allocator::state::free_block(block_index index) {
  cblock& b = at(index);
  const bytes original_size = b.size;
  const bytes requested = b.requested;
  detail::block_pool& pool = pool_of(b);
  std::int64_t net_split_blocks = 0;
  std::int64_t net_split_bytes = 0;
  const std::array<block_index, 2> candidates = {b.prev, b.next};
  bool took_node = false;  // b took over a merged neighbour's node in the pool
  for (block_index candidate : candidates) {
    const bytes subsumed = try_merge_blocks(index, candidate, pool, &took_node);
    if (subsumed > 0) {
      net_split_blocks -= 1;
      net_split_bytes -= static_cast<std::int64_t>(subsumed);
    }
  }
  if (took_node)
    rekey_in_blocks(index);
  else
    insert_into_blocks(index);
  if (b.is_split()) {
    net_split_blocks += 1;
    net_split_bytes += static_cast<std::int64_t>(b.size);
  }
  // inactive_split is not tracked for expandable segments (upstream excludes them).
  if (!b.expandable()) {
    if (net_split_blocks > 0)
      add(&allocator_stats::inactive_split_blocks, b.small,
          static_cast<std::uint64_t>(net_split_blocks));
    if (net_split_blocks < 0)
      subtract(&allocator_stats::inactive_split_blocks, b.small,
               static_cast<std::uint64_t>(-net_split_blocks));
    if (net_split_bytes > 0)
      add(&allocator_stats::inactive_split, b.small, static_cast<bytes>(net_split_bytes));
    if (net_split_bytes < 0)
      subtract(&allocator_stats::inactive_split, b.small, static_cast<bytes>(-net_split_bytes));
  }
  decrease(&allocator_stats::active, b.small, original_size);
  decrease(&allocator_stats::requested, b.small, requested);
  b.requested = 0;
}

bytes caching_allocator::state::try_merge_blocks(block_index dst, block_index src,
                                                 detail::block_pool& pool, bool* take) {
  if (src == no_block) return 0;
  cblock& s = at(src);
  cblock& d = at(dst);
  if (s.allocated || s.event_count > 0 || !s.stream_uses.empty() || d.mapped != s.mapped) return 0;
  if (d.prev == src) {  // [src dst]
    d.address = s.address;
    d.prev = s.prev;
    if (d.prev != no_block) at(d.prev).next = dst;
  } else {  // [dst src]
    d.next = s.next;
    if (d.next != no_block) at(d.next).prev = dst;
  }
  const bytes subsumed = s.size;
  d.size += subsumed;
  if (s.mapped && take != nullptr && !*take) {
    d.in_blocks = s.in_blocks;
    *take = true;
  } else if (s.mapped) {
    pool.blocks.erase(s.in_blocks);
  } else {
    pool.unmapped.erase(s.in_unmapped);
  }
  delete_block(src);
  return subsumed;
}

void caching_allocator::state::insert_events(block_index index) {
  cblock& b = at(index);
  for (stream_id stream : b.stream_uses) {
    ++b.event_count;
    events.record(stream, index);
  }
  b.stream_uses.clear();
}

void caching_allocator::state::process_events() {
  events.poll([this](std::uint32_t index) {
    if (--at(index).event_count == 0) free_block(index);
  });
}

void caching_allocator::state::synchronize_and_free_events() {
  ++totals.sync_all_streams;
  events.drain([this](std::uint32_t index) {
    if (--at(index).event_count == 0) free_block(index);
  });
}

}  // namespace vramscope::alloc
