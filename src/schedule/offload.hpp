#pragma once
// Activation offloading as torchtune does it (torchtune/training/_activation_offloading.py,
// OffloadActivations and get_act_offloading_ctx_manager): a saved-tensor hook around the model's
// forward copies every saved tensor of at least 1 KiB to pinned host memory and hands autograd
// an id instead; backward copies each one back when its node needs it. The output head runs
// under NoOpManager and the loss outside the hook, so their tensors stay on the GPU.

#include <cstdint>
#include <deque>
#include <vector>

#include <vramscope/job/job_spec.hpp>

#include "schedule/builder.hpp"

namespace vramscope::schedule {

/// OffloadActivations' min_offload_size: smaller tensors stay where they are.
inline constexpr bytes min_offload_size = 1024;
/// OffloadActivations' max_fwd_stash_size: with a copy stream, an offloaded tensor stays on the
/// GPU until this many later tensors have been saved (its copy has surely finished by then).
inline constexpr std::uint64_t max_fwd_stash_size = 5;

/// The hook's bookkeeping for one rank, emitting its events into `out`. Not thread-safe.
class activation_offloader {
 public:
  /// Enabled by job.training.activation_offloading. torch >= 2.5 copies on a side stream
  /// (use_streams' default); earlier versions copy on the compute stream, where the GPU tensor
  /// can be released as soon as its copy is queued.
  activation_offloader(const job::job_spec& job, program_builder& out);

  [[nodiscard]] bool enabled() const { return enabled_; }

  /// Unit `unit` saves a tensor of `size` bytes in forward (its producer allocates it here).
  /// Returns the tensor to keep until the unit's backward, or 0 when it went to host memory.
  /// `record` adds the offloaded bytes to program::offloaded (once per micro-batch's worth).
  tensor_id pack(bytes size, std::size_t unit, bool record);

  /// The backward of `unit` begins: the forward stash is released and the unit's offloaded
  /// tensors are on the GPU again. Returns them, for the caller to free at the unit's end.
  std::vector<tensor_id> unpack(std::size_t unit);

 private:
  struct stashed {
    std::uint64_t id;  // pack order: OffloadActivations counts every saved tensor
    tensor_id tensor;
    std::size_t unit;
  };
  program_builder& out_;
  bool enabled_ = false;
  bool streams_ = false;
  std::uint64_t packed_ = 0;
  std::deque<stashed> stash_;
  std::vector<std::vector<bytes>> host_;  // per unit: sizes of its tensors in host memory
};

}  // namespace vramscope::schedule
