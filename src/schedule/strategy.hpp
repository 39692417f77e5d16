#pragma once
// A data-parallel wrapper's part of a training step. The step driver (step.cpp) walks the units
// in forward and backward order and calls these hooks; each strategy emits its own parameter,
// gradient, communication and optimizer events.

#include <memory>
#include <vector>

#include "schedule/activations.hpp"
#include "schedule/builder.hpp"
#include "schedule/layout.hpp"
#include "schedule/optimizer_state.hpp"

namespace vramscope::schedule {

/// Everything a strategy reads while emitting events.
struct step_context {
  const model::model_spec& model;
  const job::job_spec& job;
  rank_info rank;
  const layout& lay;
  program_builder& out;
  /// Per unit: its forward, run op by op, makes autocast's weight casts itself (the step
  /// driver's; unit_activations::forward_in_order), so the strategy makes none.
  std::vector<bool> casts_in_forward = {};
  /// `lay`, as shared_layout keeps it.
  std::shared_ptr<const layout> lay_owner = nullptr;
};

class strategy {
 public:
  explicit strategy(step_context& ctx) : ctx_(ctx) {}
  virtual ~strategy() = default;
  /// Init: weights reach the GPU and the wrapper builds its state.
  virtual void init() = 0;
  /// A micro-batch starts; `last` is the one of the step that ends with the optimizer.
  virtual void begin_micro_batch(bool /*last*/) {}
  virtual void pre_forward(std::size_t /*unit*/) {}
  virtual void post_forward(std::size_t /*unit*/) {}
  /// The loss stage's forward (the output head's, when the model has no head unit of its own)
  /// is about to begin.
  virtual void pre_loss() {}
  /// The loss's forward is done (the step driver models it after the last unit's post_forward).
  virtual void end_forward() {}
  /// Backward starts: before the loss's backward.
  virtual void begin_backward() {}
  /// The loss stage's backward (and the head's, when the model has no head unit) is done.
  virtual void post_loss_backward() {}
  virtual void pre_backward(std::size_t /*unit*/) {}
  /// The unit's backward computed its parameter gradients.
  virtual void post_backward(std::size_t unit) = 0;
  virtual void end_backward() {}
  virtual void optimizer_step(int step) = 0;
  /// Resuming: optimizer.load_state_dict gives every parameter its state now, as the first
  /// step would make it, and the first step then makes none. Returns false where the strategy
  /// cannot (the state is made in backward, tensor by tensor).
  virtual bool create_optimizer_state() { return false; }
  virtual void zero_grad() = 0;
  /// Saving a checkpoint (checkpoint.save).
  virtual void save_checkpoint() {}

 protected:
  step_context& ctx_;
  program_builder& out() { return ctx_.out; }
  const layout& lay() const { return ctx_.lay; }
  const job::job_spec& job() const { return ctx_.job; }
};

std::unique_ptr<strategy> make_ddp(step_context& ctx);
std::unique_ptr<strategy> make_fsdp1(step_context& ctx);
std::unique_ptr<strategy> make_fsdp2(step_context& ctx);
std::unique_ptr<strategy> make_zero(step_context& ctx);
std::unique_ptr<strategy> make_megatron(step_context& ctx);

// Shared pieces (common.cpp).

/// Allocates `tensors` element counts of `element_bytes` each; returns their ids.
std::vector<tensor_id> alloc_each(program_builder& out, const std::vector<std::uint64_t>& tensors,
                                  int element_bytes, category cat,
                                  std::uint32_t stream = streams::compute);
void free_all(program_builder& out, std::vector<tensor_id>& ids);

/// Optimizer state for the trainable tensors (created at the first step), and the transient
/// of one step (foreach implementations materialise one state-sized temporary).
struct optimizer_state {
  std::vector<tensor_id> states;
  std::vector<tensor_id> master;
  bool created = false;
};
void optimizer_first_step(program_builder& out, const job::job_spec& job,
                          const std::vector<std::uint64_t>& trainable, int state_bytes,
                          int master_bytes, optimizer_state& st);
void optimizer_step_transient(program_builder& out, const job::job_spec& job,
                              const std::vector<std::uint64_t>& trainable, int state_bytes,
                              std::uint32_t stream = streams::compute);
/// Optimizer in backward (job.optimizer.in_backward) for one tensor of `numel` elements whose
/// gradient has just been accumulated: the post-accumulate-grad hook steps that tensor's own
/// optimizer, which creates its state at its first step (`first`); the caller then frees the
/// gradient (the hook's zero_grad). Allocations land on `stream`, the hook's current stream.
void optimizer_step_in_backward(program_builder& out, const job::job_spec& job, std::uint64_t numel,
                                int state_bytes, int master_bytes, bool first, optimizer_state& st,
                                std::uint32_t stream = streams::compute);

/// The frozen (LoRA base) weights of every unit as this rank keeps them between steps: whole
/// (world 1), or sharded `world` ways per tensor as ZeRO-3 shards frozen parameters like any
/// other. Quantisation constants are module attributes, not parameters, and always stay whole.
std::vector<tensor_id> alloc_frozen(program_builder& out, const layout& lay, std::uint64_t world = 1);

/// The unit holding the token embedding a tied output head shares (the model's first embedding
/// unit with trainable tensors: GPT-2's wte, not its wpe), or the number of units when the head
/// is not tied or the embedding is frozen.
std::size_t tied_embedding_unit(const model::model_spec& model, const layout& lay);
/// The quantisation constants of every unit, whole: what a rank keeps on the GPU of a quantised
/// base whose packed weights are flattened (FSDP1) or offloaded (ZeRO-3 offload_param).
std::vector<tensor_id> alloc_quant_states(program_builder& out, const layout& lay);
/// Loads one whole frozen tensor onto the GPU; a quantised one passes through a transient copy
/// in the load dtype (`load_bytes` a value). Returns the stored tensor.
tensor_id load_frozen(program_builder& out, const frozen_tensor& f, int load_bytes);
/// Bytes of one rank's shard of `f` (padded to a multiple of `world` elements).
bytes frozen_shard_bytes(const frozen_tensor& f, std::uint64_t world);
/// The unsharded frozen tensors of unit `u` in their gathered (compute) form.
std::vector<tensor_id> gather_frozen(program_builder& out, const unit_layout& u,
                                     std::uint32_t stream = streams::compute);

}  // namespace vramscope::schedule
