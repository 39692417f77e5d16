#pragma once
// program_builder: appends events to a program with tensor ids handed out in order.

#include <cassert>
#include <optional>
#include <string>

#include <vramscope/schedule/event.hpp>

namespace vramscope::schedule {

/// A tensor id returned by alloc; 0 means "none" (so optional tensors need no extra flag).
using tensor_id = std::uint32_t;

class program_builder {
 public:
  /// `watcher`, when given, sees the program at each phase boundary and may stop it (it must
  /// outlive the builder).
  explicit program_builder(program_watcher* watcher = nullptr);
  /// Allocates `size` bytes (0 returns the null id and emits nothing).
  tensor_id alloc(bytes size, category cat, std::uint32_t stream = streams::compute);
  /// Frees `id` (null id ignored) and resets it to null.
  void free(tensor_id& id);
  void record_stream(tensor_id id, std::uint32_t stream);
  void sync(std::uint32_t stream);
  void sync_all();
  void phase(std::string name);
  void empty_cache();
  /// Adds `size` bytes of CUDA unified memory (cudaMallocManaged) to program::managed: memory
  /// the rank's process holds outside the allocator, never freed while training.
  void managed(bytes size);
  /// Records `size` bytes of saved activations copied to host memory (program::offloaded).
  void offloaded(bytes size);
  /// A training step of `seq_len` tokens a sequence ends here (program::steps).
  void end_step(std::uint64_t seq_len) {
    program_.steps.push_back({seq_len, program_.events.size()});
  }
  [[nodiscard]] const std::string& current_phase() const;
  /// True once the watcher has ended the program: what is built from then on is dropped by
  /// take(), so the caller may stop building (or go on: the result is the same).
  [[nodiscard]] bool stopped() const { return cut_.has_value(); }
  /// At the end of a step or micro-batch that others of its kind follow: whether the watcher
  /// (program_watcher::steady) says they would all repeat it; false without a watcher.
  bool steady(boundary kind) {
    return watcher_ != nullptr && !cut_ && watcher_->steady(program_, kind);
  }
  /// At the end of a pipeline schedule's steady period: program_watcher::period_repeats, 0
  /// without a watcher.
  std::size_t period_repeats() {
    return watcher_ != nullptr && !cut_ ? watcher_->period_repeats(program_) : 0;
  }
  program take();

 private:
  void push(event_kind kind, category cat, std::uint32_t stream, tensor_id id, bytes size);
  // Where the watcher ended the program: take() cuts it back to this.
  struct cut {
    std::size_t events, phases;
    std::uint32_t tensors;
    bytes managed, offloaded;
  };
  program program_;
  program_watcher* watcher_;
  std::optional<cut> cut_;
  std::uint32_t phase_ = 0;
};

// Allocations and frees are most of a program's events, built for every what-if row: defined
// here so that the strategies' loops append them in line.
inline tensor_id program_builder::alloc(bytes size, category cat, std::uint32_t stream) {
  if (size == 0) return 0;
  const tensor_id id = program_.tensors++;
  push(event_kind::alloc, cat, stream, id, size);
  return id;
}

inline void program_builder::free(tensor_id& id) {
  if (id == 0) return;
  push(event_kind::free, category::temporary, 0, id, 0);
  id = 0;
}

inline void program_builder::push(event_kind kind, category cat, std::uint32_t stream, tensor_id id,
                                  bytes size) {
  assert(stream <= streams::offload);
  program_.events.push_back(event{kind, cat, static_cast<std::uint16_t>(stream), id, size});
}

}  // namespace vramscope::schedule
