#pragma once
// Activation memory per unit: the tensors autograd saves in forward for backward, the
// transients of forward, and the temporaries of backward, for a HF-style implementation of each
// family. Sizes are per rank (after tensor-parallel splitting) for `tokens` tokens.

#include <cstdint>
#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::schedule {

/// One step of a forward pass that keeps nothing for backward: allocate `alloc` bytes, or, where
/// `alloc` is 0, free the tensor that step `index` allocated.
struct forward_step {
  bytes alloc = 0;
  std::size_t index = 0;
  // A matmul runs here (after this step's allocation, its output): a thread's first matmul
  // creates the thread's cuBLAS workspace. With `alloc` 0 the step only marks the matmul (its
  // output is allocated elsewhere, or is small) and frees nothing.
  bool gemm = false;
  bool weight_cast = false;  // autocast's copy of a weight (kept by its matmul): a parameter's
};

struct unit_activations {
  std::vector<bytes> saved;           // allocated in forward, freed in this unit's backward
  std::vector<bytes> forward_temps;   // allocated and freed within forward, after `saved`
  // Forward temporaries in op order around one saved tensor, saved[saved_from_at]: `saved_from`
  // (what it is computed from) is allocated just before it, `saved_after` just after it, and
  // both are freed, last first, before the next saved tensor (the logits and their fp32 upcast
  // before the loss's log-softmax output; math attention's scores before its softmax output
  // and the bool mask after it).
  std::vector<bytes> saved_from;
  // Allocated before `saved_from` and freed, last first, as soon as its first entry exists: a
  // tensor-parallel head's output shard and the all-gather's output that its whole-vocabulary
  // logits are assembled from.
  std::vector<bytes> gathered_from;
  std::vector<bytes> saved_scratch;  // allocated and freed between `saved_from` and the saved one
  std::vector<bytes> saved_after;
  std::size_t saved_from_at = 0;
  // The saved tensors from saved[saved_steps_at] on made in op order, with the temporaries
  // between them, where that order is known (eager attention's scores): steps as in
  // checkpointed_forward, over a list of their own; each allocation that no later step frees is
  // the next saved tensor, of the size `saved` gives it.
  std::vector<forward_step> saved_steps;
  std::size_t saved_steps_at = 0;
  std::vector<bytes> backward_temps;  // allocated in backward before `saved` is released
  // The backward in op order, where it is known (else `backward_temps` are allocated beside
  // everything saved, and all of it goes at the end): steps over a list that begins with the
  // tensors of `saved`, in order, and goes on with one entry per step (what an allocating step
  // allocates); what is left when the steps end goes then, in list order.
  std::vector<forward_step> backward_steps;
  bytes checkpoint_input = 0;         // what activation checkpointing keeps instead of `saved`
  std::vector<bytes> checkpoint_extra;  // per-operator selective checkpointing: the op outputs
                                        // its policy keeps beside the input
  // The first forward under activation checkpointing, op by op, where it is known (else every
  // tensor of `saved` lives until the unit's forward ends): the checkpoint input is there
  // already; step `checkpoint_output` allocates the unit's output, the next unit's input, and
  // stays allocated.
  std::vector<forward_step> checkpointed_forward;
  std::size_t checkpoint_output = 0;
  // The forward of a unit that is not checkpointed, op by op, where it is known (else `saved`
  // in its order, then `forward_temps`): steps as in checkpointed_forward, the first allocating
  // the unit's input; what is still allocated when they end is what the unit saved, the same
  // tensors as `saved`.
  std::vector<forward_step> forward_in_order;
  std::size_t saved_by_head = 0;      // trailing entries of `saved` that the output head saves
                                      // (its input), outside activation offloading's reach
  int tp_collectives = 0;             // tensor-parallel collectives per pass (forward or backward)
  bytes tp_buffer = 0;                // size of one tensor-parallel collective buffer
};

/// What the training job's micro-batch looks like to a stack.
struct token_shape {
  std::uint64_t batch = 1;
  std::uint64_t seq = 1;
  [[nodiscard]] std::uint64_t tokens() const { return batch * seq; }
};

/// Which inputs of a block's layers autograd keeps. A linear layer saves its input only to
/// compute its weight's gradient (autograd saves a matmul operand only when the other one
/// requires grad), so frozen linears (LoRA bases) keep nothing unless an adapter or a
/// quantised matmul needs the input; a norm's weight multiply saves the normalised value only
/// when the weight trains.
struct saved_inputs {
  bool norm_weights = true;  // norm weights train
  bool qkv = true;           // input of the q/k/v projections (the first norm's output)
  bool o = true;             // input of the attention output projection
  bool mlp = true;           // input of the MLP's first projections (the second norm's output)
  bool down = true;          // input of the MLP's output projection
  bool head = true;          // input of the output head (the final norm's output)
  // Separate matrices reading the first and second norm's output (q, k, v: 3; gate, up: 2; a
  // fused qkv or gate_up: 1; 0 when unknown, taken as 1). Under autocast over an fp32 residual
  // stream each one casts that output to the compute dtype for itself and keeps its cast.
  std::uint8_t qkv_readers = 0;
  std::uint8_t mlp_readers = 0;
  bool operator==(const saved_inputs&) const = default;
};

/// Activations of one unit of kind `kind` belonging to a stack of shape `s`.
unit_activations activations_for(model::unit_kind kind, const model::stack_shape& s,
                                 const job::job_spec& job, token_shape t, int tp,
                                 const saved_inputs& inputs);

/// The head of training.loss litgpt (`a`, as activations_for made it, before anything else was
/// added to its backward) whose weight bitsandbytes quantised: `dequantised` bytes (the weight
/// as each slice's matmul dequantises it, of which `uncast` bytes are the fp16 copy its cast is
/// made from, a tensor of its own; 0 where there is no cast) made before the logits in forward,
/// and the backward in op order (activations_litgpt.cpp).
void litgpt_dequantised_head(unit_activations& a, bytes dequantised, bytes uncast = 0);

}  // namespace vramscope::schedule
