#pragma once
// Internal state of caching_allocator: blocks live in one vector and refer to their segment
// neighbours by index (upstream: Block* prev / next); free blocks sit in per-pool ordered sets
// keyed (stream, size, address) exactly like upstream's BlockComparatorSize, unmapped ranges of
// expandable segments in sets keyed (stream, address). Set nodes come from a pool resource, so
// the per-event cost is a few tree operations without a trip to malloc.
//
// The member functions follow upstream's DeviceCachingAllocator one for one, under the same
// names, spread over caching_allocator.cpp (malloc / free), caching_release.cpp (new segments,
// release paths, events, OOM) and caching_expandable.cpp (expandable segments).

#include <array>
#include <cassert>
#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include <vramscope/alloc/caching_allocator.hpp>

#include "alloc/node_arena.hpp"
#include "alloc/stat_ops.hpp"
#include "alloc/stream_events.hpp"

namespace vramscope::alloc {
namespace detail {

using block_index = std::uint32_t;
inline constexpr block_index no_block = 0xffffffffu;
inline constexpr std::uint32_t no_segment = 0xffffffffu;

struct size_key {
  stream_id stream;
  bytes size;
  std::uint64_t address;
  block_index index;
};
struct size_order {
  bool operator()(const size_key& a, const size_key& b) const {
    if (a.stream != b.stream) return a.stream < b.stream;
    if (a.size != b.size) return a.size < b.size;
    return a.address < b.address;
  }
};

struct address_key {
  stream_id stream;
  std::uint64_t address;
  block_index index;
};
struct address_order {
  bool operator()(const address_key& a, const address_key& b) const {
    if (a.stream != b.stream) return a.stream < b.stream;
    return a.address < b.address;
  }
};

// The free pools; a block in one keeps its place there (cblock::in_blocks, in_unmapped), so
// that a merge or a release erases it without searching, and a split or a merge that leaves a
// key's place in the order as it was changes the key in its node (rekey_in_blocks).
using size_set = std::set<size_key, size_order, node_allocator<size_key>>;
using address_set = std::set<address_key, address_order, node_allocator<address_key>>;

// A block's plain fields, which new_block resets at once; cblock adds its stream-use list,
// whose capacity a reused slot keeps.
struct cblock_fields {
  std::uint64_t address = 0;
  bytes size = 0;
  bytes requested = 0;
  stream_id stream = 0;
  block_index prev = no_block;  // neighbours within the segment
  block_index next = no_block;
  std::uint32_t generation = 0;        // bumped at every hand-out; part of the handle
  std::uint32_t event_count = 0;       // outstanding events after a free with stream uses
  std::uint32_t segment = no_segment;  // expandable segment, or no_segment
  std::int64_t gc_count_base = 0;      // pool's free-block search count when cached
  bool small = false;
  bool allocated = false;
  bool mapped = true;
  bool live = false;                    // the slot holds a block
  size_set::iterator in_blocks{};       // its place in pool.blocks while cached and mapped
  address_set::iterator in_unmapped{};  // its place in pool.unmapped while unmapped
};

struct cblock : cblock_fields {
  std::vector<stream_id> stream_uses;  // empty while the slot is free (delete_block)

  [[nodiscard]] bool is_split() const { return prev != no_block || next != no_block; }
  [[nodiscard]] bool expandable() const { return segment != no_segment; }
};

struct block_pool {
  explicit block_pool(bool is_small)
      : small(is_small),
        blocks(node_allocator<size_key>(&block_nodes)),
        unmapped(node_allocator<address_key>(&unmapped_nodes)) {}
  block_pool(const block_pool&) = delete;
  block_pool& operator=(const block_pool&) = delete;

  bool small;
  node_arena block_nodes;  // before the sets that draw from them
  node_arena unmapped_nodes;
  size_set blocks;                    // cached, mapped, reusable
  address_set unmapped;               // expandable
  std::int64_t free_block_calls = 0;  // get_free_blocks_call_count (garbage collection age)
};

struct expandable_segment {
  std::uint64_t base = 0;
  bytes size = 0;  // address range reserved
  bytes page = 0;  // 2 MiB small pool, 20 MiB large pool
  bool live = false;
};

/// upstream's AllocParams.
struct alloc_params {
  bytes size;  // rounded request
  stream_id stream;
  block_pool* pool;
  bytes alloc_size;  // new-segment size
  block_index block = no_block;
  bool cached = false;  // block is still in pool->blocks (get_free_block leaves it there)
};

}  // namespace detail

struct caching_allocator::state {
  explicit state(caching_allocator_options o);

  // --- storage and pools (caching_allocator.cpp) ---
  /// Takes `other`'s blocks, pools, events and statistics (the options must be equal). The
  /// pools' sets are rebuilt in this state's arenas, and each cached block given its new place.
  void copy_from(const state& other);
  void copy_pool(detail::block_pool& to, const detail::block_pool& from);
  detail::block_index new_block();
  void delete_block(detail::block_index b);
  detail::cblock& at(detail::block_index b) { return blocks[b]; }
  detail::block_pool& pool_of(const detail::cblock& b) { return b.small ? small_pool : large_pool; }
  void insert_into_blocks(detail::block_index b);
  /// Gives b's key in pool.blocks, in the node b.in_blocks names (which may hold another block's
  /// key), b's stream, size and address: in that node when its neighbours still order around the
  /// new key (most splits and merges), else by moving the node to its new place.
  void rekey_in_blocks(detail::block_index b);
  void erase_from_blocks(detail::block_index b);
  void insert_unmapped(detail::block_index b);
  void erase_unmapped(detail::block_index b);
  [[nodiscard]] bool gc_enabled() const;

  // --- statistics ---
  void increase(stat allocator_stats::*field, bool small, bytes n);
  void decrease(stat allocator_stats::*field, bool small, bytes n);
  void add(std::uint64_t allocator_stats::*field, bool small, std::uint64_t n);
  void subtract(std::uint64_t allocator_stats::*field, bool small, std::uint64_t n);

  // --- malloc / free (caching_allocator.cpp) ---
  allocation malloc(bytes orig_size, stream_id stream);
  bool get_free_block(detail::alloc_params& p);
  [[nodiscard]] bool should_split(const detail::cblock& b, bytes size) const;
  detail::block_index split_front(detail::block_index b, bytes size, bool cached);
  allocation alloc_found_block(detail::alloc_params& p, bytes orig_size, bool split_remainder);
  detail::cblock& allocated_block(handle id);
  void free(handle id);
  void free_block(detail::block_index b);
  /// Merges free neighbour `src` into `dst`. `src`'s key leaves the pool or, given `take` not
  /// yet set, stays for `dst` to take over: dst.in_blocks names it and `take` is set.
  bytes try_merge_blocks(detail::block_index dst, detail::block_index src, detail::block_pool& pool,
                         bool* take = nullptr);
  void insert_events(detail::block_index b);
  void process_events();
  void synchronize_and_free_events();

  // --- new segments, release paths, OOM (caching_release.cpp) ---
  bool alloc_block(detail::alloc_params& p, bool is_retry);
  bool release_available_cached_blocks(const detail::alloc_params& p);
  bool release_cached_blocks();
  void release_blocks(detail::block_pool& pool);
  void release_block(detail::block_index b);
  void garbage_collect_cached_blocks();
  allocation out_of_memory(const detail::alloc_params& p, bytes orig_size);
  [[nodiscard]] bytes largest_cached_block() const;

  // --- expandable segments (caching_expandable.cpp) ---
  detail::block_index try_allocate_expandable_block(const detail::alloc_params& p);
  detail::block_index find_expandable_block(const detail::alloc_params& p);
  [[nodiscard]] bool allocatable(detail::block_index b) const;
  bool map_block(detail::block_index b, bytes size);
  void unmap_block(detail::block_index b);
  void release_expandable_segment(detail::block_index b);

  caching_allocator_options options;
  bytes device_total;
  bytes allowed_memory_maximum;  // memory_fraction * device_total, or 0 when unset
  detail::block_pool small_pool;
  detail::block_pool large_pool;
  detail::stable_slots<detail::cblock> blocks;  // references stay valid as it grows
  std::vector<detail::block_index> free_slots;
  std::vector<detail::expandable_segment> expandable_segments;
  detail::stream_events events;
  allocator_stats totals;
  std::array<allocator_stats, 2> per_pool;              // [0] small, [1] large
  // Simulated device addresses. The CUDA driver hands out each new cudaMalloc range below the
  // previous one, so the newest segment has the lowest address, and upstream's best fit, which
  // breaks ties between equal free blocks by address, prefers blocks of newer segments. Which
  // block a request takes decides what a later request finds, hence what is reserved:
  // allocator histories recorded on an H200 replay to the byte only with this order
  // (tests/alloc/measured_trace_test.cpp). Expandable segments reserve their address ranges
  // upwards from the same point, so the two never overlap.
  static constexpr std::uint64_t address_origin = std::uint64_t{1} << 46;
  std::uint64_t next_segment_address = address_origin;     // the lowest segment's start
  std::uint64_t next_expandable_address = address_origin;  // the end of the last reservation
};

// The statistics change on every event: defined here so that the allocation paths inline them.
inline void caching_allocator::state::increase(stat allocator_stats::*field, bool small, bytes n) {
  detail::increase(totals.*field, n);
  detail::increase(per_pool[small ? 0 : 1].*field, n);
}

inline void caching_allocator::state::decrease(stat allocator_stats::*field, bool small, bytes n) {
  detail::decrease(totals.*field, n);
  detail::decrease(per_pool[small ? 0 : 1].*field, n);
}

inline void caching_allocator::state::add(std::uint64_t allocator_stats::*field, bool small,
                                          std::uint64_t n) {
  totals.*field += n;
  per_pool[small ? 0 : 1].*field += n;
}

inline void caching_allocator::state::subtract(std::uint64_t allocator_stats::*field, bool small,
                                               std::uint64_t n) {
  assert(totals.*field >= n && per_pool[small ? 0 : 1].*field >= n);
  totals.*field -= n;
  per_pool[small ? 0 : 1].*field -= n;
}

}  // namespace vramscope::alloc
