#pragma once
// What one rank holds, before any timing: the units of the model as this rank sees them after
// tensor-parallel splitting and LoRA, and the dtypes each kind of state is kept in.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/schedule/event.hpp>

#include "schedule/activations.hpp"

namespace vramscope::schedule {

/// A rank's coordinates in the job's mesh. The sizes are the job's, the same on every rank; the
/// rank's place in the mesh (rank, local_rank, pp_rank, ep_rank) is read through accessors
/// that note the read in `*place_read` when it is set. A program built without reading them is
/// every rank's program (program::rank_specific), so plan need not build it again.
struct rank_info {
  int world = 1;
  int tp = 1;
  int dp_shard = 1;      // size of the sharding group (FSDP / ZeRO)
  int dp_replicate = 1;  // replicas of the sharding group
  int pp = 1;            // pipeline stages (ranks along the pipeline dimension)
  int cp = 1;            // context-parallel ranks sharing each sequence
  int ep = 1;            // expert-parallel ranks sharing each MoE layer's experts
  bool* place_read = nullptr;  // set by whoever needs to know (the step driver)

  [[nodiscard]] int rank() const { return read(rank_); }
  [[nodiscard]] int local_rank() const { return read(local_rank_); }
  [[nodiscard]] int pp_rank() const { return read(pp_rank_); }  // place along the pipeline
  [[nodiscard]] int ep_rank() const { return read(ep_rank_); }  // place among the ep ranks
  /// The same sizes and the same place in the mesh (reads nothing: `place_read` is left alone).
  [[nodiscard]] bool same_coordinates(const rank_info& o) const {
    return world == o.world && tp == o.tp && dp_shard == o.dp_shard &&
           dp_replicate == o.dp_replicate && pp == o.pp && cp == o.cp && ep == o.ep &&
           rank_ == o.rank_ && local_rank_ == o.local_rank_ && pp_rank_ == o.pp_rank_ &&
           ep_rank_ == o.ep_rank_;
  }

 private:
  friend rank_info make_rank_info(const job::job_spec& job, int rank);
  int read(int place) const {
    if (place_read != nullptr) *place_read = true;
    return place;
  }
  int rank_ = 0;
  int local_rank_ = 0;
  int pp_rank_ = 0;  // the outermost mesh dimension
  int ep_rank_ = 0;
};

/// The routed expert a tensor belongs to: N of "...experts.N..." (Mixtral's
/// block_sparse_moe.experts.N.w1, Qwen's mlp.experts.N.gate_proj); none for other tensors.
std::optional<std::uint64_t> expert_index(const std::string& name);

/// A frozen base tensor of a LoRA job as this rank stores it before any data-parallel sharding.
/// Quantised weights (QLoRA) are packed into `element_bytes`-sized elements
/// (bnb_4bit_quant_storage); their quantisation constants are not parameters, so FSDP and
/// ZeRO-3 never shard them.
struct frozen_tensor {
  std::uint64_t numel = 0;     // values of the tensor (after the TP split)
  std::uint64_t elements = 0;  // elements as FSDP / ZeRO-3 see them (packed ones for quantised)
  int element_bytes = 2;       // bytes of one such element
  bytes stored = 0;            // elements * element_bytes
  bytes gathered = 0;          // bytes once unsharded for compute (mixed precision casts floats)
  bytes quant_state = 0;       // absmax / scales of a quantised weight (0 when not quantised)
  bool quantised = false;

  friend bool operator==(const frozen_tensor&, const frozen_tensor&) = default;
};

/// A torchao Float8Linear on this rank (precision.float8), after the TP split: its matmuls take
/// float8 copies of their operands, made just before and freed just after.
struct float8_linear {
  std::uint64_t in = 0, out = 0;  // input and output features on this rank
  std::uint64_t numel = 0;        // weight elements on this rank

  friend bool operator==(const float8_linear&, const float8_linear&) = default;
};

/// True when torchao's convert_to_float8_training swaps the module of weight `t` for a
/// Float8Linear: an nn.Linear (not the output head, which torchtitan's converter filters out,
/// nor routed experts, which are not nn.Linear in torchtitan's MoE) whose in and out features
/// are multiples of 16 (torch._scaled_mm's requirement, checked by the converter).
bool float8_convertible(const model::tensor& t, model::unit_kind kind);

/// One unit (FSDP wrap / ZeRO-3 gather granule) on this rank, after the TP split.
struct unit_layout {
  std::string name;
  model::unit_kind kind = model::unit_kind::other;
  std::vector<std::uint64_t> tensors;    // element counts of its tensors (TP-split)
  std::vector<std::uint64_t> trainable;  // element counts of tensors that get gradients
  std::vector<bool> expert;              // per trainable tensor: a routed expert's (this rank's
                                         // share under expert parallelism)
  std::vector<bool> float8;              // per trainable tensor: a Float8Linear's weight
  std::vector<float8_linear> float8_linears;
  std::uint64_t numel = 0;               // sum of `tensors`
  std::uint64_t trainable_numel = 0;     // sum of `trainable`
  std::vector<frozen_tensor> frozen;     // frozen base tensors (LoRA), TP-split
  bytes frozen_bytes = 0;                // sum of frozen[].stored (summed by make_layout)
  bytes frozen_gathered_bytes = 0;       // sum of frozen[].gathered (summed by make_layout)
  bytes quant_state_bytes = 0;           // sum of frozen[].quant_state (summed by make_layout)
  bytes largest_dequantised = 0;         // largest quantised weight as its matmul dequantises it
                                         // (with the uncast copy where a cast follows)
  bytes largest_dequantised_uncast = 0;  // of it, the uncast fp16 copy, a tensor of its own (0:
                                         // the dequantisation is in the compute dtype)
  bytes autocast_frozen_bytes = 0;       // frozen float matrices cast by autocast, saved for backward
  bytes adapter_saved_per_token = 0;     // PEFT activations saved for backward, per token
  bytes adapter_transient = 0;           // PEFT transient in forward (DoRA's weight norm)
  // Per token: the inputs of the unit's bitsandbytes 4-bit matmuls that need a gradient, one
  // entry per distinct tensor (q, k and v read one). bitsandbytes before 0.43.2 keeps them as
  // attributes of the autograd context (MatMul4Bit.forward: ctx.tensors = (A, B)), which
  // backward does not release: they live as long as the graph (step.cpp, the previous graph).
  bytes bnb_ctx_inputs_per_token = 0;
  saved_inputs inputs;                   // which layer inputs autograd keeps (all when training
                                         // every weight)

  friend bool operator==(const unit_layout&, const unit_layout&) = default;
};

/// Dtype sizes in bytes of each kind of state (see docs/job-spec.md, "precision").
struct state_dtypes {
  int compute = 2;     // dtype parameters are used in by forward/backward
  int stored = 2;      // persistent trainable parameters (sharded ones for FSDP/ZeRO)
  int grad = 2;        // persistent gradients
  int reduce = 4;      // gradient reduction
  int master = 0;      // extra master copy held by the optimizer (0 = none)
  int frozen = 2;      // frozen float base weights (LoRA): the dtype the model was loaded in
  int state = 4;       // optimizer state: job.optimizer.state, as resolve_job decided it

  friend bool operator==(const state_dtypes&, const state_dtypes&) = default;
};

struct layout {
  std::vector<unit_layout> units;  // forward order
  state_dtypes dtypes;
  std::uint64_t numel = 0;
  std::uint64_t trainable_numel = 0;

  friend bool operator==(const layout&, const layout&) = default;
};

rank_info make_rank_info(const job::job_spec& job, int rank);
state_dtypes make_state_dtypes(const job::job_spec& job);
layout make_layout(const model::model_spec& model, const job::job_spec& job, const rank_info& r);
/// make_layout's answer, kept per thread for the next call that asks for the same one. What-if
/// rows differ mostly in the training loop's sizes (micro-batch, sequence length, checkpointing,
/// accumulation, steps), which no layout reads: the layout is made from layout_job(job), which
/// fixes them, and kept under that job, a copy of the model and the rank's coordinates; a call
/// whose three are equal (the model compared whole) takes the kept one. A model given as
/// `shared` too (the same object, held constant by its owners) is held instead of copied, and
/// found by its address. Sets *r.place_read where making it read the rank's place.
std::shared_ptr<const layout> shared_layout(const model::model_spec& model,
                                            const job::job_spec& job, const rank_info& r,
                                            const std::shared_ptr<const model::model_spec>& shared = nullptr);
/// The job as shared_layout makes its layout from: `job` with the training loop's sizes set to
/// fixed values and where it came from (provenance, an inline model's keys) left out.
job::job_spec layout_job(const job::job_spec& job);
/// What `lay` holds before data-parallel sharding: its trainable values and frozen bytes.
parameter_split split_of(const layout& lay);

/// Bytes a quantised frozen weight of `shape` takes on the GPU: {packed weight, quantisation
/// constants}. nf4/int4 (bitsandbytes Params4bit): two values a byte, one absmax per block of 64
/// values, fp32, or with double quantisation 8-bit with one fp32 absmax per 256 blocks.
/// int8 (LLM.int8 Int8Params): one byte a value and one fp32 scale per output row (SCB).
struct quantised_size {
  bytes packed = 0;
  bytes state = 0;
};
quantised_size quantised_bytes(dtype q, const std::vector<std::uint64_t>& shape, bool double_quant);

/// True when `t` is a weight bitsandbytes would quantise: nn.Linear weights only (embeddings,
/// norms and biases stay in the load dtype), except modules named in `skip` (transformers'
/// modules_to_not_convert: the output head by default).
bool quantisable(const model::tensor& t, model::unit_kind kind, const std::vector<std::string>& skip);

/// True when the strategy shards parameters over the data-parallel group.
bool shards_parameters(const job::job_spec& job);

}  // namespace vramscope::schedule
