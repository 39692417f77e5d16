#pragma once
// The CUDA events every model records when a block used on other streams is freed. One FIFO per
// stream, as upstream's cuda_events map: an event recorded on stream s completes when the work
// queued on s before it finishes, i.e. at the first complete_stream(s) after it was recorded.
// poll() is torch's process_events: per stream, pop completed events in order and stop at the
// first incomplete one. drain() is synchronize_and_free_events.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/core/result.hpp>

namespace vramscope::alloc::detail {

class stream_events {
 public:
  /// Records an event on `stream` guarding `block` (an index the model chooses).
  void record(stream_id stream, std::uint32_t block) {
    queue& q = streams_[stream];
    q.pending.push_back({++q.recorded, block});
    ++pending_;
  }

  /// Every event recorded on `stream` so far is complete.
  void complete(stream_id stream) {
    auto it = streams_.find(stream);
    if (it == streams_.end()) return;
    it->second.completed = it->second.recorded;
    if (!it->second.pending.empty()) ready_ = true;
  }

  [[nodiscard]] bool empty() const { return pending_ == 0; }

  /// Calls on_done(block) for each completed event, per stream in FIFO order. on_done may not
  /// record or complete events.
  template <typename OnDone>
  void poll(OnDone on_done) {
    // Models poll at every allocation; events complete only in complete(), and a poll takes
    // every completed event, so nothing is to be done until the next complete() that finds one.
    if (!ready_) return;
    ready_ = false;
    for (auto& [stream, q] : streams_) {
      while (!q.pending.empty() && q.pending.front().sequence <= q.completed) {
        const std::uint32_t block = q.pending.front().block;
        q.pending.pop_front();
        --pending_;
        on_done(block);
      }
    }
  }

  /// Appends to `out` what decides the events still pending from now on: whether one is
  /// complete and not yet polled, then for each stream with pending events its id, their
  /// number and, in order, whether each is complete and `block_key(block)`. The sequence
  /// numbers, which only grow, are left out: complete() completes every event recorded so far.
  template <typename BlockKey>
  void key(std::vector<std::uint64_t>& out, BlockKey block_key) const {
    out.push_back(ready_ ? 1 : 0);
    for (const auto& [stream, q] : streams_) {
      if (q.pending.empty()) continue;
      out.push_back(stream);
      out.push_back(q.pending.size());
      for (const auto& e : q.pending) {
        out.push_back(e.sequence <= q.completed ? 1 : 0);
        out.push_back(block_key(e.block));
      }
    }
  }

  /// Waits for every event: calls on_done(block) for all of them and forgets them.
  template <typename OnDone>
  void drain(OnDone on_done) {
    for (auto& [stream, q] : streams_) {
      while (!q.pending.empty()) {
        const std::uint32_t block = q.pending.front().block;
        q.pending.pop_front();
        --pending_;
        on_done(block);
      }
      q.completed = q.recorded;
    }
    ready_ = false;
  }

 private:
  struct event {
    std::uint64_t sequence;
    std::uint32_t block;
  };
  struct queue {
    std::uint64_t recorded = 0;
    std::uint64_t completed = 0;
    std::deque<event> pending;
  };
  std::map<stream_id, queue> streams_;
  std::size_t pending_ = 0;
  bool ready_ = false;  // an event is complete and not yet polled
};

/// Handles encode a slot index and a generation, so a stale handle is caught.
inline handle make_handle(std::uint32_t slot, std::uint32_t generation) {
  return (static_cast<handle>(generation) << 32) | slot;
}
inline std::uint32_t handle_slot(handle id) { return static_cast<std::uint32_t>(id & 0xffffffffu); }
inline std::uint32_t handle_generation(handle id) { return static_cast<std::uint32_t>(id >> 32); }

/// Slots whose references stay valid as the store grows, indexed by a shift and a mask: chunks of
/// 2^Shift elements. std::deque keeps references valid too, but its nodes hold 512 bytes (six
/// blocks), so every index paid a division and a node lookup (6 % of a what-if grid's
/// instructions, callgrind of bench/fit_bench). A chunk's slots are constructed one by one as
/// the store grows into them: a what-if row's allocator model uses a few hundred of the first
/// chunk's 1,024, and constructing all of them was 3 % of a grid's instructions.
template <typename T, unsigned Shift = 10>
class stable_slots {
 public:
  stable_slots() = default;
  stable_slots(const stable_slots&) = delete;
  stable_slots& operator=(const stable_slots&) = delete;
  ~stable_slots() {
    for (std::size_t i = 0; i < size_; ++i) (*this)[i].~T();
  }

  T& operator[](std::size_t i) { return *std::launder(reinterpret_cast<T*>(slot(i))); }
  const T& operator[](std::size_t i) const {
    return *std::launder(reinterpret_cast<const T*>(slot(i)));
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  T& emplace_back() {
    grow();
    T* t = ::new (static_cast<void*>(slot(size_))) T();
    ++size_;
    return *t;
  }
  /// Makes this store hold copies of `other`'s elements, at the same indices.
  void copy_from(const stable_slots& other) {
    for (; size_ > 0; --size_) (*this)[size_ - 1].~T();
    for (std::size_t i = 0; i < other.size_; ++i) {
      grow();
      ::new (static_cast<void*>(slot(size_))) T(other[i]);
      ++size_;
    }
  }

 private:
  struct alignas(T) storage {
    std::byte bytes[sizeof(T)];
  };
  storage* slot(std::size_t i) const { return &chunks_[i >> Shift][i & mask]; }
  void grow() {
    if ((size_ >> Shift) == chunks_.size())
      chunks_.push_back(std::make_unique_for_overwrite<storage[]>(std::size_t{1} << Shift));
  }
  static constexpr std::size_t mask = (std::size_t{1} << Shift) - 1;
  std::vector<std::unique_ptr<storage[]>> chunks_;
  std::size_t size_ = 0;
};

/// A slot for a new block, chunk or entry: the last one freed, or a new one at the end of
/// `slots`. Its contents are the caller's to reset; the generation it holds must survive, so
/// stale handles stay detectable.
template <typename Slots>
std::uint32_t take_slot(Slots& slots, std::vector<std::uint32_t>& free_slots) {
  if (!free_slots.empty()) {
    const std::uint32_t index = free_slots.back();
    free_slots.pop_back();
    return index;
  }
  slots.emplace_back();
  return static_cast<std::uint32_t>(slots.size() - 1);
}

/// The live allocation `id` names in `slots` (the blocks, chunks or entries of a model, each with
/// `live`, `allocated` and `generation`); a contract violation for an unknown or stale handle.
template <typename Slots>
auto& allocated_slot(Slots& slots, handle id) {
  const std::uint32_t slot = handle_slot(id);
  VRAMSCOPE_EXPECTS(slot < slots.size(), "unknown allocation handle");
  auto& s = slots[slot];
  VRAMSCOPE_EXPECTS(s.live && s.allocated && s.generation == handle_generation(id),
                    "handle is not a live allocation (freed twice?)");
  return s;
}

}  // namespace vramscope::alloc::detail
