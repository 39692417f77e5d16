// exact_allocator: one driver allocation per request, released on free (or when the streams
// recorded on the block complete).

#include <vramscope/alloc/exact_allocator.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "alloc/stat_ops.hpp"
#include "alloc/stream_events.hpp"

namespace vramscope::alloc {

struct exact_allocator::state {
  struct entry {
    std::uint64_t address = 0;
    bytes size = 0;
    bytes requested = 0;
    stream_id stream = 0;
    std::uint32_t generation = 0;
    std::uint32_t event_count = 0;
    bool allocated = false;
    bool live = false;
    std::vector<stream_id> stream_uses;
  };

  entry& allocated_entry(handle id) { return detail::allocated_slot(entries, id); }

  // cudaFree: the memory goes back to the driver.
  void release(std::uint32_t slot) {
    entry& e = entries[slot];
    detail::decrease(stats.active, e.size);
    detail::decrease(stats.reserved, e.size);
    detail::decrease(stats.requested, e.requested);
    --stats.segments;
    ++stats.device_frees;
    e.live = false;
    e.stream_uses.clear();
    free_slots.push_back(slot);
  }

  void on_event_done(std::uint32_t slot) {
    if (--entries[slot].event_count == 0) release(slot);
  }

  // `info` holds the figures at the failure: the rounded request and what was allocated and
  // reserved then.
  std::string oom_text(const oom_info& info) const {
    const bytes total = options.device_total != 0 ? options.device_total : options.capacity;
    if (options.flavour == exact_flavour::cuda_malloc_async)
      return fmt::format(
          "Allocation on device {} would exceed allowed memory. (out of memory) Currently "
          "allocated: {}, requested: {}, device limit: {}, free (according to CUDA): {}.",
          options.device, format_bytes(info.allocated), format_bytes(info.segment_size),
          format_bytes(total), format_bytes(options.capacity - info.reserved));
    return fmt::format(
        "CUDA error: out of memory (cudaMalloc of {} with PYTORCH_NO_CUDA_MEMORY_CACHING=1; {} of "
        "{} in use).",
        format_bytes(info.segment_size), format_bytes(info.reserved),
        format_bytes(options.capacity));
  }

  exact_options options;
  std::vector<entry> entries;
  std::vector<std::uint32_t> free_slots;
  detail::stream_events events;
  allocator_stats stats;
  std::uint64_t next_address = std::uint64_t{1} << 40;
};

exact_allocator::exact_allocator(exact_options options) : state_(std::make_unique<state>()) {
  VRAMSCOPE_EXPECTS(options.granularity > 0, "granularity must be positive");
  state_->options = options;
}

exact_allocator::exact_allocator(bytes capacity) : exact_allocator(exact_options{capacity}) {}

exact_allocator::~exact_allocator() = default;

allocation exact_allocator::allocate(bytes size, stream_id stream) {
  if (size == 0) return allocation{true, zero_size_handle, 0, std::nullopt};
  state& s = *state_;
  s.events.poll([&s](std::uint32_t slot) { s.on_event_done(slot); });
  const bytes rounded = round_up(size, s.options.granularity);
  if (s.stats.reserved.current + rounded > s.options.capacity && !s.events.empty()) {
    ++s.stats.alloc_retries;
    ++s.stats.sync_all_streams;
    s.events.drain([&s](std::uint32_t slot) { s.on_event_done(slot); });
  }
  if (s.stats.reserved.current + rounded > s.options.capacity) {
    ++s.stats.ooms;
    oom_info info;
    info.requested = size;
    info.segment_size = rounded;
    info.allocated = s.stats.allocated.current;
    info.reserved = s.stats.reserved.current;
    info.capacity = s.options.capacity;
    info.message = s.oom_text(info);
    return allocation::failed(std::move(info));
  }
  const std::uint32_t slot = detail::take_slot(s.entries, s.free_slots);
  state::entry& e = s.entries[slot];
  e.address = s.next_address;
  s.next_address += rounded;
  e.size = rounded;
  e.requested = size;
  e.stream = stream;
  e.allocated = true;
  e.live = true;
  if (++e.generation == 0) ++e.generation;
  ++s.stats.allocations;
  ++s.stats.segments;
  ++s.stats.device_allocs;
  detail::increase(s.stats.allocated, rounded);
  detail::increase(s.stats.active, rounded);
  detail::increase(s.stats.reserved, rounded);
  detail::increase(s.stats.requested, size);
  return allocation{true, detail::make_handle(slot, e.generation), rounded, std::nullopt};
}

void exact_allocator::free(handle id) {
  if (id == zero_size_handle) return;
  state& s = *state_;
  state::entry& e = s.allocated_entry(id);
  const std::uint32_t slot = detail::handle_slot(id);
  e.allocated = false;
  --s.stats.allocations;
  detail::decrease(s.stats.allocated, e.size);
  if (e.stream_uses.empty()) {
    s.release(slot);
    return;
  }
  for (stream_id used : e.stream_uses) {
    ++e.event_count;
    s.events.record(used, slot);
  }
  e.stream_uses.clear();
}

void exact_allocator::record_stream(handle id, stream_id stream) {
  if (id == zero_size_handle) return;
  state::entry& e = state_->allocated_entry(id);
  if (stream != e.stream &&
      std::find(e.stream_uses.begin(), e.stream_uses.end(), stream) == e.stream_uses.end())
    e.stream_uses.push_back(stream);
}

void exact_allocator::complete_stream(stream_id stream) { state_->events.complete(stream); }

void exact_allocator::empty_cache() {
  state& s = *state_;
  ++s.stats.sync_all_streams;
  s.events.drain([&s](std::uint32_t slot) { s.on_event_done(slot); });
}

void exact_allocator::reset_peaks() { detail::reset_peaks(state_->stats); }

const allocator_stats& exact_allocator::stats() const { return state_->stats; }

std::string exact_allocator::name() const {
  return state_->options.flavour == exact_flavour::cuda_malloc_async ? "torch-cuda-malloc-async"
                                                                     : "exact";
}

bytes exact_allocator::capacity() const { return state_->options.capacity; }

std::optional<std::string> exact_allocator::oom_message(const oom_info& info) const {
  return state_->oom_text(info);
}

std::vector<block_info> exact_allocator::blocks() const {
  std::vector<block_info> out;
  for (std::size_t i = 0; i < state_->entries.size(); ++i) {
    const state::entry& e = state_->entries[i];
    if (!e.live) continue;
    block_info info{e.address, e.size, e.requested, e.stream, block_state::pending_free, 0};
    if (e.allocated) {
      info.state = block_state::allocated;
      info.id = detail::make_handle(static_cast<std::uint32_t>(i), e.generation);
    }
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(),
            [](const block_info& a, const block_info& b) { return a.address < b.address; });
  return out;
}

}  // namespace vramscope::alloc
