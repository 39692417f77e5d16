#pragma once
// Internal state of bfc_allocator: chunks in one deque, linked to their neighbours within a
// region by index (upstream: ChunkHandle prev / next), free chunks in one set ordered by
// (size, address). The chunk operations mirror tsl::BFCAllocator's FindChunkPtr, SplitChunk,
// MarkFree, TryToCoalesce and MergeChunks; Extend and the region collection are in
// bfc_allocator.cpp.

#include <cassert>
#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include <vramscope/alloc/bfc_allocator.hpp>

#include "alloc/node_arena.hpp"
#include "alloc/stat_ops.hpp"
#include "alloc/stream_events.hpp"

namespace vramscope::alloc {

namespace detail {
inline constexpr std::uint32_t no_chunk = 0xffffffffu;
}  // namespace detail
using detail::no_chunk;

struct bfc_allocator::state {
  struct chunk {
    std::uint64_t address = 0;
    bytes size = 0;
    bytes requested = 0;
    std::uint32_t prev = no_chunk;
    std::uint32_t next = no_chunk;
    std::uint32_t region = 0;
    stream_id stream = 0;
    std::uint32_t generation = 0;
    std::uint32_t event_count = 0;
    bool in_use = false;     // allocated, or freed with events pending
    bool allocated = false;  // a live allocation
    bool live = false;       // the slot holds a chunk
    std::vector<stream_id> stream_uses;
  };
  struct free_key {
    bytes size;
    std::uint64_t address;
    std::uint32_t index;
  };
  struct free_order {
    bool operator()(const free_key& a, const free_key& b) const {
      return a.size != b.size ? a.size < b.size : a.address < b.address;
    }
  };
  struct region {
    std::uint64_t base = 0;
    bytes size = 0;
    std::uint32_t first = no_chunk;
    bool live = false;
  };

  explicit state(bfc_options o)
      : options(o),
        // Upstream default: at most 128 MiB of padding before a chunk must be split.
        max_internal_fragmentation(
            o.fragmentation_fraction > 0
                ? static_cast<bytes>(o.fragmentation_fraction * static_cast<double>(o.pool_limit))
                : 128_MiB),
        // allow_growth starts at 2 MiB; preallocation asks for the whole limit at once.
        curr_region_allocation_bytes(
            bfc_round_bytes(o.preallocate ? o.pool_limit : std::min<bytes>(o.pool_limit, 2_MiB))),
        free_chunks(detail::node_allocator<free_key>(&free_nodes)) {
    VRAMSCOPE_EXPECTS(o.pool_limit > 0, "bfc_options.pool_limit must be set");
    if (options.driver_limit == 0) options.driver_limit = options.pool_limit;
  }

  // --- chunk storage ---
  std::uint32_t new_chunk() {
    const std::uint32_t index = detail::take_slot(chunks, free_slots);
    chunk& c = chunks[index];
    const std::uint32_t generation = c.generation;
    c = chunk{};
    c.generation = generation;
    c.live = true;
    return index;
  }
  void delete_chunk(std::uint32_t index) {
    chunks[index].live = false;
    free_slots.push_back(index);
  }
  void insert_free(std::uint32_t i) { free_chunks.insert({chunks[i].size, chunks[i].address, i}); }
  void remove_free(std::uint32_t i) {
    const auto it = free_chunks.find({chunks[i].size, chunks[i].address, i});
    assert(it != free_chunks.end());
    free_chunks.erase(it);
  }
  [[nodiscard]] bool is_free(std::uint32_t i) const {
    return i != no_chunk && chunks[i].live && !chunks[i].in_use;
  }

  chunk& allocated_chunk(handle id) { return detail::allocated_slot(chunks, id); }

  // --- FindChunkPtr / SplitChunk ---
  std::uint32_t find_chunk(bytes rounded) {
    auto it = free_chunks.lower_bound({rounded, 0, 0});
    if (it == free_chunks.end()) return no_chunk;
    const std::uint32_t index = it->index;
    free_chunks.erase(it);
    chunk& c = chunks[index];
    if (c.size >= rounded * 2 || c.size - rounded >= max_internal_fragmentation)
      split(index, rounded);
    c.in_use = true;
    return index;
  }

  void split(std::uint32_t index, bytes size) {
    const std::uint32_t rest_index = new_chunk();
    chunk& c = chunks[index];
    chunk& rest = chunks[rest_index];
    rest.address = c.address + size;
    rest.size = c.size - size;
    rest.region = c.region;
    rest.prev = index;
    rest.next = c.next;
    if (c.next != no_chunk) chunks[c.next].prev = rest_index;
    c.next = rest_index;
    c.size = size;
    insert_free(rest_index);
  }

  // --- DeallocateRawInternal / TryToCoalesce ---
  void release(std::uint32_t index) {
    chunk& c = chunks[index];
    detail::decrease(stats.active, c.size);
    detail::decrease(stats.requested, c.requested);
    c.in_use = false;
    c.requested = 0;
    insert_free(coalesce(index));
  }

  std::uint32_t coalesce(std::uint32_t index) {
    if (is_free(chunks[index].next)) {
      remove_free(chunks[index].next);
      merge(index, chunks[index].next);
    }
    if (is_free(chunks[index].prev)) {
      const std::uint32_t prev = chunks[index].prev;
      remove_free(prev);
      merge(prev, index);
      return prev;
    }
    return index;
  }

  void merge(std::uint32_t first, std::uint32_t second) {
    chunk& a = chunks[first];
    const chunk& b = chunks[second];
    a.next = b.next;
    if (a.next != no_chunk) chunks[a.next].prev = first;
    a.size += b.size;
    delete_chunk(second);
  }

  void on_event_done(std::uint32_t index) {
    if (--chunks[index].event_count == 0) release(index);
  }

  bool extend(bytes rounded);
  bool deallocate_free_regions(bytes rounded);
  std::uint32_t find_or_grow(bytes rounded);
  allocation out_of_memory(bytes size, bytes rounded);

  bfc_options options;
  bytes max_internal_fragmentation;
  bytes curr_region_allocation_bytes;
  detail::node_arena free_nodes;  // before the set that draws from it
  std::set<free_key, free_order, detail::node_allocator<free_key>> free_chunks;
  std::deque<chunk> chunks;
  std::vector<std::uint32_t> free_slots;
  std::vector<region> regions;
  detail::stream_events events;
  allocator_stats stats;
  std::uint64_t next_address = std::uint64_t{1} << 40;
};

}  // namespace vramscope::alloc
