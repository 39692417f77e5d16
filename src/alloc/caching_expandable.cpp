// caching_allocator: expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True).
// One virtual segment per (stream, pool) spans 1 1/8 of the device's memory; physical pages of
// 2 MiB (small pool) or 20 MiB (large pool) are mapped on demand, lowest address first, and free
// whole pages are unmapped on empty_cache and before an OOM. Follows find_expandable_block,
// map_block, try_allocate_expandable_block and unmap_block of CUDACachingAllocator.cpp; the
// segment is a chain of blocks, unmapped ranges included, so no page table is needed.

#include <algorithm>

#include "alloc/caching_state.hpp"
#include "alloc/stat_ops.hpp"

namespace vramscope::alloc {

using detail::alloc_params;
using detail::block_index;
using detail::cblock;
using detail::no_block;

bool caching_allocator::state::allocatable(block_index index) const {
  if (index == no_block) return false;
  const cblock& b = blocks[index];
  return !b.allocated && b.event_count == 0 && b.stream_uses.empty();
}

block_index caching_allocator::state::find_expandable_block(const alloc_params& p) {
  detail::block_pool& pool = *p.pool;
  auto has_room = [this, &p](block_index b) {
    bytes room = 0;
    while (room < p.size && allocatable(b)) {
      room += at(b).size;
      b = at(b).next;
    }
    return room >= p.size;
  };
  // Lowest unmapped range of this stream first, together with a free block just before it.
  for (auto it = pool.unmapped.lower_bound({p.stream, 0, 0});
       it != pool.unmapped.end() && it->stream == p.stream; ++it) {
    block_index candidate = it->index;
    if (allocatable(at(candidate).prev)) candidate = at(candidate).prev;
    if (has_room(candidate)) return candidate;
  }
  // A new segment: its address range covers 1 1/8 of the device's memory.
  const bytes page = pool.small ? small_segment_size : large_segment_size;
  detail::expandable_segment segment;
  segment.base = next_expandable_address;
  segment.size = round_up(device_total + device_total / 8, page);
  segment.page = page;
  segment.live = true;
  next_expandable_address += segment.size + large_segment_size;
  expandable_segments.push_back(segment);

  const block_index index = new_block();
  cblock& b = at(index);
  b.address = segment.base;
  b.size = segment.size;
  b.stream = p.stream;
  b.small = pool.small;
  b.mapped = false;
  b.segment = static_cast<std::uint32_t>(expandable_segments.size() - 1);
  insert_unmapped(index);
  return index;
}

bool caching_allocator::state::map_block(block_index index, bytes size) {
  cblock& b = at(index);
  const detail::expandable_segment& segment = expandable_segments[b.segment];
  const bytes offset = b.address - segment.base;
  assert(!b.mapped && size <= b.size && offset % segment.page == 0);
  const bytes mapped =
      (ceil_div(offset + size, segment.page) - offset / segment.page) * segment.page;
  // cuMemCreate fails when the device has no room for the pages.
  if (totals.reserved.current + mapped > options.capacity) return false;

  erase_unmapped(index);
  b.mapped = true;
  if (mapped < b.size) {
    const block_index rest_index = new_block();
    cblock& rest = at(rest_index);
    rest.address = b.address + mapped;
    rest.size = b.size - mapped;
    rest.stream = b.stream;
    rest.small = b.small;
    rest.segment = b.segment;
    rest.mapped = false;
    rest.prev = index;
    rest.next = b.next;
    if (b.next != no_block) at(b.next).prev = rest_index;
    b.next = rest_index;
    insert_unmapped(rest_index);
    b.size = mapped;
  }
  detail::block_pool& pool = pool_of(b);
  try_merge_blocks(index, b.prev, pool);
  try_merge_blocks(index, b.next, pool);
  insert_into_blocks(index);
  increase(&allocator_stats::reserved, b.small, mapped);
  ++totals.device_allocs;
  return true;
}

block_index caching_allocator::state::try_allocate_expandable_block(const alloc_params& p) {
  block_index candidate = find_expandable_block(p);
  // The candidate is unmapped, or a free block followed by unmapped space: map until it fits.
  if (!at(candidate).mapped && !map_block(candidate, std::min(at(candidate).size, p.size)))
    return no_block;
  while (at(candidate).size < p.size) {
    const bytes missing = p.size - at(candidate).size;
    const block_index next = at(candidate).next;
    // The segment's address range ends (a device_total too small for the request): no room.
    if (next == no_block) return no_block;
    if (!map_block(next, std::min(missing, at(next).size))) return no_block;
    candidate = next;  // the mapped range absorbed the free block before it
  }
  erase_from_blocks(candidate);
  return candidate;
}

void caching_allocator::state::unmap_block(block_index index) {
  cblock& b = at(index);
  const detail::expandable_segment& segment = expandable_segments[b.segment];
  const bytes offset = b.address - segment.base;
  const bytes first_page = ceil_div(offset, segment.page);
  const bytes end_page = (offset + b.size) / segment.page;
  if (first_page >= end_page) return;  // no whole page inside the block
  erase_from_blocks(index);

  const std::uint64_t unmapped_address = segment.base + first_page * segment.page;
  const bytes unmapped_size = (end_page - first_page) * segment.page;
  auto make_free_piece = [&](std::uint64_t address, bytes size) {
    const block_index piece_index = new_block();
    cblock& piece = at(piece_index);
    piece.address = address;
    piece.size = size;
    piece.stream = b.stream;
    piece.small = b.small;
    piece.segment = b.segment;
    return piece_index;
  };
  if (const bytes before = unmapped_address - b.address; before > 0) {
    const block_index piece = make_free_piece(b.address, before);
    at(piece).prev = b.prev;
    at(piece).next = index;
    if (b.prev != no_block) at(b.prev).next = piece;
    b.prev = piece;
    insert_into_blocks(piece);
  }
  const bytes after = b.address + b.size - (unmapped_address + unmapped_size);
  if (after > 0) {
    const block_index piece = make_free_piece(unmapped_address + unmapped_size, after);
    at(piece).prev = index;
    at(piece).next = b.next;
    if (b.next != no_block) at(b.next).prev = piece;
    b.next = piece;
    insert_into_blocks(piece);
  }
  b.address = unmapped_address;
  b.size = unmapped_size;
  b.mapped = false;
  detail::block_pool& pool = pool_of(b);
  try_merge_blocks(index, b.prev, pool);
  try_merge_blocks(index, b.next, pool);
  insert_unmapped(index);
  decrease(&allocator_stats::reserved, b.small, unmapped_size);
  ++totals.device_frees;
}

void caching_allocator::state::release_expandable_segment(block_index index) {
  cblock& b = at(index);
  assert(!b.mapped && b.size == expandable_segments[b.segment].size);
  erase_unmapped(index);
  expandable_segments[b.segment].live = false;
  delete_block(index);
}

}  // namespace vramscope::alloc
