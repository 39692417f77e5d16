// caching_allocator: the public face, block storage and statistics. The allocation logic is in
// caching_malloc.cpp, caching_release.cpp and caching_expandable.cpp.

#include <vramscope/alloc/caching_allocator.hpp>

#include <algorithm>
#include <iterator>
#include <tuple>

#include "alloc/caching_state.hpp"
#include "alloc/stat_ops.hpp"
#include "alloc/torch_messages.hpp"

namespace vramscope::alloc {

using detail::block_index;
using detail::cblock;
using detail::no_block;

caching_allocator::state::state(caching_allocator_options o)
    : options(std::move(o)),
      device_total(options.device_total != 0 ? options.device_total : options.capacity),
      allowed_memory_maximum(
          options.memory_fraction > 0
              ? static_cast<bytes>(options.memory_fraction * static_cast<double>(device_total))
              : 0),
      small_pool(true),
      large_pool(false) {
  VRAMSCOPE_EXPECTS(options.memory_fraction >= 0 && options.memory_fraction <= 1,
                    "memory_fraction must lie in [0, 1]");
  VRAMSCOPE_EXPECTS(
      options.garbage_collection_threshold >= 0 && options.garbage_collection_threshold < 1,
      "garbage_collection_threshold must lie in [0, 1)");
  for (std::uint32_t d : options.roundup_power2_divisions)
    VRAMSCOPE_EXPECTS((d & (d - 1)) == 0, "roundup_power2_divisions must be 0 or powers of 2");
}

// --- block storage ---

block_index caching_allocator::state::new_block() {
  const block_index index = detail::take_slot(blocks, free_slots);
  cblock& b = blocks[index];
  const std::uint32_t generation = b.generation;
  static_cast<detail::cblock_fields&>(b) = detail::cblock_fields{};  // stream_uses as it was
  b.generation = generation;
  b.live = true;
  return index;
}

void caching_allocator::state::delete_block(block_index index) {
  cblock& b = blocks[index];
  b.live = false;
  b.stream_uses.clear();
  free_slots.push_back(index);
}

void caching_allocator::state::insert_into_blocks(block_index index) {
  cblock& b = at(index);
  detail::block_pool& pool = pool_of(b);
  b.gc_count_base = pool.free_block_calls;
  b.in_blocks = pool.blocks.insert({b.stream, b.size, b.address, index}).first;
}

void caching_allocator::state::rekey_in_blocks(block_index index) {
  cblock& b = at(index);
  detail::block_pool& pool = pool_of(b);
  b.gc_count_base = pool.free_block_calls;
  const detail::size_key key{b.stream, b.size, b.address, index};
  const detail::size_order less;
  const auto it = b.in_blocks;
  assert(it->stream == key.stream);
  const bool in_place = less(*it, key)
                            ? std::next(it) == pool.blocks.end() || less(key, *std::next(it))
                            : it == pool.blocks.begin() || less(*std::prev(it), key);
  if (in_place) {
    // The node's value is a size_key object like any (std::set's iterators only make it
    // read-only), and the order of the set stays as it was.
    const_cast<detail::size_key&>(*it) = key;
    return;
  }
  auto node = pool.blocks.extract(it);
  node.value() = key;
  b.in_blocks = pool.blocks.insert(std::move(node)).position;
}

void caching_allocator::state::erase_from_blocks(block_index index) {
  const cblock& b = at(index);
  assert(b.in_blocks->index == index && b.in_blocks->size == b.size &&
         b.in_blocks->address == b.address);
  pool_of(b).blocks.erase(b.in_blocks);
}

void caching_allocator::state::insert_unmapped(block_index index) {
  cblock& b = at(index);
  b.in_unmapped = pool_of(b).unmapped.insert({b.stream, b.address, index}).first;
}

void caching_allocator::state::erase_unmapped(block_index index) {
  const cblock& b = at(index);
  assert(b.in_unmapped->index == index && b.in_unmapped->address == b.address);
  pool_of(b).unmapped.erase(b.in_unmapped);
}

namespace {

// The options but the device index, which only out-of-memory messages name: a state copies
// between devices (the ranks of a node).
bool same_but_device(const caching_allocator_options& a, const caching_allocator_options& b) {
  if (a.device == b.device) return a == b;
  auto c = a;
  c.device = b.device;
  return c == b;
}

}  // namespace

void caching_allocator::state::copy_from(const state& other) {
  assert(same_but_device(options, other.options));
  blocks.copy_from(other.blocks);  // in_blocks and in_unmapped point into other's sets here
  copy_pool(small_pool, other.small_pool);
  copy_pool(large_pool, other.large_pool);
  free_slots = other.free_slots;
  expandable_segments = other.expandable_segments;
  events = other.events;
  totals = other.totals;
  per_pool = other.per_pool;
  next_segment_address = other.next_segment_address;
  next_expandable_address = other.next_expandable_address;
}

void caching_allocator::state::copy_pool(detail::block_pool& to, const detail::block_pool& from) {
  to.blocks.clear();
  to.unmapped.clear();
  for (const auto& key : from.blocks)  // in order, so each insert lands at the end
    blocks[key.index].in_blocks = to.blocks.emplace_hint(to.blocks.end(), key);
  for (const auto& key : from.unmapped)
    blocks[key.index].in_unmapped = to.unmapped.emplace_hint(to.unmapped.end(), key);
  to.free_block_calls = from.free_block_calls;
}

bool caching_allocator::state::gc_enabled() const {
  return allowed_memory_maximum > 0 && options.garbage_collection_threshold > 0;
}

// --- statistics: every change goes to the aggregate and to the block's pool ---

// --- the public interface ---

caching_allocator::caching_allocator(caching_allocator_options options)
    : state_(std::make_unique<state>(std::move(options))) {}

caching_allocator::~caching_allocator() = default;

allocation caching_allocator::allocate(bytes size, stream_id stream) {
  return state_->malloc(size, stream);
}

void caching_allocator::free(handle id) { state_->free(id); }

void caching_allocator::record_stream(handle id, stream_id stream) {
  if (id == zero_size_handle) return;
  cblock& b = state_->allocated_block(id);
  // Uses on the allocation stream need no event (upstream recordStream).
  if (stream == b.stream) return;
  if (std::find(b.stream_uses.begin(), b.stream_uses.end(), stream) == b.stream_uses.end())
    b.stream_uses.push_back(stream);
}

void caching_allocator::complete_stream(stream_id stream) { state_->events.complete(stream); }

void caching_allocator::empty_cache() { state_->release_cached_blocks(); }

void caching_allocator::reset_peaks() {
  detail::reset_peaks(state_->totals);
  for (auto& pool : state_->per_pool) detail::reset_peaks(pool);
}

const allocator_stats& caching_allocator::stats() const { return state_->totals; }

std::string caching_allocator::name() const { return "torch-caching"; }

bytes caching_allocator::capacity() const { return state_->options.capacity; }

std::optional<std::string> caching_allocator::oom_message(const oom_info& info) const {
  return detail::torch_oom_message(info, state_->device_total, state_->allowed_memory_maximum,
                                   state_->options.device);
}

std::unique_ptr<allocator_model> caching_allocator::clone() const {
  auto copy = std::make_unique<caching_allocator>(state_->options);
  copy->state_->copy_from(*state_);
  return copy;
}

bool caching_allocator::copy_state_from(const allocator_model& other) {
  const auto* from = dynamic_cast<const caching_allocator*>(&other);
  if (from == nullptr || !same_but_device(from->state_->options, state_->options)) return false;
  if (from != this) state_->copy_from(*from->state_);
  return true;
}

bool caching_allocator::state_key(std::span<const handle> live,
                                  std::vector<std::uint64_t>& key) const {
  const state& s = *state_;
  // Garbage collection's ages (free_block_calls, gc_count_base), which only grow, decide which
  // blocks it releases: a state with them is not keyed.
  if (s.gc_enabled()) return false;
  const auto current = [&](const allocator_stats& t) {
    for (const stat* f : {&t.allocated, &t.active, &t.reserved, &t.requested})
      key.push_back(f->current);
    for (std::uint64_t v : {t.inactive_split, t.segments, t.allocations, t.inactive_split_blocks,
                            t.oversize_allocations, t.oversize_segments})
      key.push_back(v);
  };
  current(s.totals);
  for (const auto& pool : s.per_pool) current(pool);
  key.push_back(s.next_segment_address);
  key.push_back(s.next_expandable_address);
  for (const auto& e : s.expandable_segments)
    for (std::uint64_t v : {e.base, e.size, e.page, std::uint64_t{e.live}}) key.push_back(v);
  // Every block by address (each slot's number only names it), unmapped ones included.
  std::vector<block_index> held;
  for (std::size_t i = 0; i < s.blocks.size(); ++i)
    if (s.blocks[i].live) held.push_back(static_cast<block_index>(i));
  const auto address = [&](block_index b) { return s.blocks[b].address; };
  const auto segment_order = [&](block_index a, block_index b) {
    const cblock& x = s.blocks[a];
    const cblock& y = s.blocks[b];
    return std::tie(x.address, x.mapped) < std::tie(y.address, y.mapped);
  };
  std::sort(held.begin(), held.end(), segment_order);
  key.push_back(held.size());
  for (block_index i : held) {
    const cblock& b = s.blocks[i];
    const auto neighbour = [&](block_index n) { return n == no_block ? ~std::uint64_t{0} : address(n); };
    for (std::uint64_t v : {b.address, b.size, b.requested, std::uint64_t{b.stream}, neighbour(b.prev),
                            neighbour(b.next), std::uint64_t{b.segment}, std::uint64_t{b.small},
                            std::uint64_t{b.allocated}, std::uint64_t{b.mapped},
                            std::uint64_t{b.event_count}, b.stream_uses.size()})
      key.push_back(v);
    for (stream_id u : b.stream_uses) key.push_back(u);
  }
  s.events.key(key, address);
  for (handle id : live) key.push_back(s.blocks[detail::handle_slot(id)].address);
  return true;
}

const allocator_stats& caching_allocator::pool_stats(pool_kind pool) const {
  return state_->per_pool[pool == pool_kind::small ? 0 : 1];
}

const caching_allocator_options& caching_allocator::options() const { return state_->options; }

std::vector<block_info> caching_allocator::blocks() const {
  std::vector<block_info> out;
  for (std::size_t i = 0; i < state_->blocks.size(); ++i) {
    const cblock& b = state_->blocks[i];
    if (!b.live || !b.mapped) continue;
    block_info info{b.address, b.size, b.requested, b.stream, block_state::cached, 0};
    if (b.allocated) {
      info.state = block_state::allocated;
      info.id = detail::make_handle(static_cast<block_index>(i), b.generation);
    } else if (b.event_count > 0 || !b.stream_uses.empty()) {
      info.state = block_state::pending_free;
    }
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(),
            [](const block_info& a, const block_info& b) { return a.address < b.address; });
  return out;
}

}  // namespace vramscope::alloc
