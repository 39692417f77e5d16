// bfc_allocator: tsl::BFCAllocator (xla/tsl/framework/bfc_allocator.cc) reduced to its
// bookkeeping: regions obtained by Extend, chunks split by FindChunkPtr / SplitChunk and merged
// by TryToCoalesce. Upstream keeps free chunks in 21 bins, each ordered by (size, address), and
// takes the first fitting chunk from the request's bin upward; since every chunk of a higher
// bin is larger, one set ordered by (size, address) and a lower_bound pick the same chunk.

#include <vramscope/alloc/bfc_allocator.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "alloc/bfc_state.hpp"

namespace vramscope::alloc {

bfc_options jax_bfc_options(bytes device_total, double memory_fraction, bool preallocate) {
  bfc_options options;
  options.pool_limit = static_cast<bytes>(memory_fraction * static_cast<double>(device_total));
  options.preallocate = preallocate;
  return options;
}

bytes bfc_round_bytes(bytes n) { return round_up(n, bfc_min_allocation); }

int bfc_bin_for_size(bytes n) {
  const bytes units = n / bfc_min_allocation;
  if (units == 0) return 0;
  return std::min(static_cast<int>(std::bit_width(units)) - 1, bfc_bin_count - 1);
}

bool bfc_allocator::state::extend(bytes rounded) {
  const bytes pool = stats.reserved.current;
  const bytes available = (options.pool_limit - pool) / bfc_min_allocation * bfc_min_allocation;
  if (rounded > available) return false;
  bool increased = false;
  while (rounded > curr_region_allocation_bytes) {
    curr_region_allocation_bytes *= 2;
    increased = true;
  }
  bytes size = std::min(curr_region_allocation_bytes, available);
  // The driver may have less room than the limit: back off by 10 % while it does not fit.
  const bytes driver_room = options.driver_limit > pool ? options.driver_limit - pool : 0;
  while (size > driver_room) {
    bytes smaller = bfc_round_bytes(static_cast<bytes>(static_cast<double>(size) * 0.9));
    if (smaller >= size) smaller = size - bfc_min_allocation;
    size = smaller;
    if (size < rounded) return false;
  }
  if (!increased) curr_region_allocation_bytes *= 2;

  const std::uint32_t index = new_chunk();
  chunk& c = chunks[index];
  c.address = next_address;
  c.size = size;
  c.region = static_cast<std::uint32_t>(regions.size());
  regions.push_back(region{next_address, size, index, true});
  next_address += round_up(size, 2_MiB) + 2_MiB;
  detail::increase(stats.reserved, size);
  ++stats.segments;
  ++stats.device_allocs;
  insert_free(index);
  return true;
}

bool bfc_allocator::state::deallocate_free_regions(bytes rounded) {
  if (!options.garbage_collection) return false;
  std::vector<std::uint32_t> idle;
  bytes idle_bytes = 0;
  for (std::uint32_t r = 0; r < regions.size(); ++r) {
    if (!regions[r].live) continue;
    bool used = false;
    for (std::uint32_t c = regions[r].first; c != no_chunk && !used; c = chunks[c].next)
      used = chunks[c].in_use;
    if (used) continue;
    idle.push_back(r);
    idle_bytes += regions[r].size;
  }
  if (idle_bytes == 0 || rounded > options.pool_limit - stats.reserved.current + idle_bytes)
    return false;
  for (std::uint32_t r : idle) {
    for (std::uint32_t c = regions[r].first; c != no_chunk;) {
      const std::uint32_t next = chunks[c].next;
      remove_free(c);
      delete_chunk(c);
      c = next;
    }
    detail::decrease(stats.reserved, regions[r].size);
    --stats.segments;
    ++stats.device_frees;
    regions[r].live = false;
  }
  return true;
}

std::uint32_t bfc_allocator::state::find_or_grow(bytes rounded) {
  std::uint32_t index = find_chunk(rounded);
  if (index == no_chunk && extend(rounded)) index = find_chunk(rounded);
  if (index == no_chunk && deallocate_free_regions(rounded) && extend(rounded))
    index = find_chunk(rounded);
  return index;
}

allocation bfc_allocator::state::out_of_memory(bytes size, bytes rounded) {
  ++stats.ooms;
  oom_info info;
  info.requested = size;
  info.segment_size = rounded;
  info.allocated = stats.allocated.current;
  info.reserved = stats.reserved.current;
  info.capacity = options.pool_limit;
  info.largest_free = free_chunks.empty() ? 0 : free_chunks.rbegin()->size;
  info.message = fmt::format(
      "RESOURCE_EXHAUSTED: Out of memory while trying to allocate {} bytes. (BFC pool: {} in use "
      "of a {} limit, largest free chunk {})",
      size, format_bytes(info.allocated), format_bytes(options.pool_limit),
      format_bytes(info.largest_free));
  return allocation::failed(std::move(info));
}

bfc_allocator::bfc_allocator(bfc_options options) : state_(std::make_unique<state>(options)) {}

bfc_allocator::~bfc_allocator() = default;

allocation bfc_allocator::allocate(bytes size, stream_id stream) {
  if (size == 0) return allocation{true, zero_size_handle, 0, std::nullopt};
  state& s = *state_;
  s.events.poll([&s](std::uint32_t index) { s.on_event_done(index); });
  const bytes rounded = bfc_round_bytes(size);
  std::uint32_t index = s.find_or_grow(rounded);
  if (index == no_chunk && !s.events.empty()) {
    // Chunks held by pending events: wait for them and try once more.
    ++s.stats.alloc_retries;
    ++s.stats.sync_all_streams;
    s.events.drain([&s](std::uint32_t i) { s.on_event_done(i); });
    index = s.find_or_grow(rounded);
  }
  if (index == no_chunk) return s.out_of_memory(size, rounded);
  state::chunk& c = s.chunks[index];
  c.allocated = true;
  c.requested = size;
  c.stream = stream;
  if (++c.generation == 0) ++c.generation;
  ++s.stats.allocations;
  detail::increase(s.stats.allocated, c.size);
  detail::increase(s.stats.active, c.size);
  detail::increase(s.stats.requested, size);
  return allocation{true, detail::make_handle(index, c.generation), c.size, std::nullopt};
}

void bfc_allocator::free(handle id) {
  if (id == zero_size_handle) return;
  state& s = *state_;
  state::chunk& c = s.allocated_chunk(id);
  const std::uint32_t index = detail::handle_slot(id);
  c.allocated = false;
  --s.stats.allocations;
  detail::decrease(s.stats.allocated, c.size);
  if (c.stream_uses.empty()) {
    s.release(index);
    return;
  }
  for (stream_id used : c.stream_uses) {
    ++c.event_count;
    s.events.record(used, index);
  }
  c.stream_uses.clear();
}

void bfc_allocator::record_stream(handle id, stream_id stream) {
  if (id == zero_size_handle) return;
  state::chunk& c = state_->allocated_chunk(id);
  if (stream != c.stream &&
      std::find(c.stream_uses.begin(), c.stream_uses.end(), stream) == c.stream_uses.end())
    c.stream_uses.push_back(stream);
}

void bfc_allocator::complete_stream(stream_id stream) { state_->events.complete(stream); }

void bfc_allocator::empty_cache() {
  state& s = *state_;
  ++s.stats.sync_all_streams;
  s.events.drain([&s](std::uint32_t index) { s.on_event_done(index); });
}

void bfc_allocator::reset_peaks() { detail::reset_peaks(state_->stats); }

const allocator_stats& bfc_allocator::stats() const { return state_->stats; }

std::string bfc_allocator::name() const { return "xla-bfc"; }

bytes bfc_allocator::capacity() const { return state_->options.pool_limit; }

std::vector<block_info> bfc_allocator::blocks() const {
  std::vector<block_info> out;
  for (std::size_t i = 0; i < state_->chunks.size(); ++i) {
    const state::chunk& c = state_->chunks[i];
    if (!c.live) continue;
    block_info info{c.address, c.size, c.requested, c.stream, block_state::cached, 0};
    if (c.allocated) {
      info.state = block_state::allocated;
      info.id = detail::make_handle(static_cast<std::uint32_t>(i), c.generation);
    } else if (c.in_use) {
      info.state = block_state::pending_free;
    }
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(),
            [](const block_info& a, const block_info& b) { return a.address < b.address; });
  return out;
}

}  // namespace vramscope::alloc
