#include "schedule/activations.hpp"

#include "schedule/activations_parts.hpp"

#include <vramscope/schedule/schedule.hpp>

#include <algorithm>

namespace vramscope::schedule {

namespace activation {

namespace {

bool tensor_parallel_sequence(const job::job_spec& job) {
  return job.parallel.tp > 1 && job.parallel.sequence_parallel;
}

// Liger's fused linear cross-entropy, on the rank's part of the head: the logits are never
// materialised.
unit_activations liger_fused_head(const dims& d, const head_sizes& h) {
  unit_activations a;
  const std::uint64_t lv = h.lv;
  const std::uint64_t inc = ceil_div(lv, std::max<std::uint64_t>(1, d.h));
  std::uint64_t chunk = 1;
  while (chunk < ceil_div(d.n, inc)) chunk *= 2;
  chunk = std::min(chunk, d.n);
  a.saved.push_back(d.c * d.n * d.h);  // gradient w.r.t. the input, computed in forward
  a.saved.push_back(d.c * lv * d.h);   // gradient w.r.t. the head weight
  a.forward_temps.push_back(d.c * chunk * lv);
  a.forward_temps.push_back(4 * chunk);
  return a;
}

// JAX: one compiled XLA program, whose buffer assignment, not a Python loop, decides what lives.
// The harness's JAX step (bench/groundtruth/jax_model.py) measured within 1 % of the logits
// in the compute dtype and the fp32 log-softmax output held through backward, with the
// gradients of both beside them (bench/data/smoke-h100.jsonl).
unit_activations jax_head(const dims& d, const head_sizes& h) {
  unit_activations a;
  const std::uint64_t nv = h.nv;
  a.saved.insert(a.saved.end(), {d.c * nv, 4 * nv});
  a.forward_temps.push_back(4 * nv);
  a.backward_temps.insert(a.backward_temps.end(), {4 * nv, 4 * nv, d.c * nv});
  return a;
}

// torch.compile (inductor) fuses each chain of pointwise ops into one kernel, and AOTAutograd's
// min-cut partitioner keeps for backward only what the chain cannot recompute cheaply: its
// inputs and a norm's per-row statistics (torch/_functorch/partitioners.py,
// min_cut_rematerialization_partition). An RMSNorm then keeps its input and rstd, not its fp32
// upcast and normalised output, and a gated activation keeps the two projections' outputs, not
// SiLU(gate) - exactly what Liger's fused kernels keep - and a Python-level activation chain
// (gelu_new) keeps its input only. Attention kernels, matmuls and the loss are not pointwise
// chains and are planned as without compile.
unit_activations block(const dims& d, const model::stack_shape& s, const job::job_spec& job,
                       const saved_inputs& in) {
  unit_activations a;
  const bool liger = job.training.liger_kernels || job.training.compile;
  switch (s.form) {
    case model::block_form::sequential:  // the second norm reads x + attention
      add_norm(a.saved, d, s, liger, in.norm_weights, in.qkv, false, in.qkv_readers);
      add_norm(a.saved, d, s, liger, in.norm_weights, in.mlp, false, in.mlp_readers);
      break;
    case model::block_form::parallel:  // both norms read the block input x
      add_norm(a.saved, d, s, liger, in.norm_weights, in.qkv, false, in.qkv_readers);
      add_norm(a.saved, d, s, liger, in.norm_weights, in.mlp, /*input_shared=*/true, in.mlp_readers);
      break;
    case model::block_form::parallel_shared:  // attention and MLP read one norm's output
      add_norm(a.saved, d, s, liger, in.norm_weights, in.qkv || in.mlp, false,
               (in.qkv ? in.qkv_readers : 0) + (in.mlp ? in.mlp_readers : 0));
      break;
  }
  add_attention(a, d, s, job, in.o);
  if (s.cross_attention) {  // a second norm and attention, over the encoder's output
    add_norm(a.saved, d, s, liger, in.norm_weights, in.qkv);
    add_attention(a, d, s, job, in.o);
  }
  dims mlp = d;
  if (s.experts > 0) mlp.n = routed_rows(d.n, s, job);
  const std::uint32_t act_saved = job.training.compile ? 1 : s.activation_saved;
  add_mlp(a, mlp, s.gated_mlp, act_saved, liger, in.down);
  if (s.shared_expert_intermediate > 0) {  // every token also goes through the shared expert
    dims shared = d;
    shared.i = s.shared_expert_intermediate;
    add_mlp(a, shared, true, act_saved, liger, in.down);
  }
  if (s.experts > 0) {
    a.saved.push_back(4 * d.n * s.experts);  // router logits, fp32
    add_routing(a, d, s, job, in);
  }
  if (s.residual_dropout) {  // a bool mask for each of the attention and MLP outputs
    a.saved.push_back(d.n * d.h / d.res);
    a.saved.push_back(d.n * d.h / d.res);
  }
  a.checkpoint_input = d.r * d.n * d.h / d.res;
  if (llama_steps_apply(d, s, job)) llama_block_steps(a, d);
  if (autocast_steps_apply(d, s, job, in)) autocast_llama_block_steps(a, d, s);
  if (job.training.activation_checkpointing == job::checkpointing::op)
    a.checkpoint_extra = per_op_saved(d, s, job);
  a.backward_temps.push_back(d.r * d.n * d.h);  // gradient of the residual stream
  if (d.local_inputs) a.backward_temps.push_back(d.c * d.n * d.h);  // the input gathered again
  // Attention (each of them) and MLP end in an all-reduce of the block output; with sequence
  // parallelism each begins with an all-gather of the input and ends with a reduce-scatter.
  const int sublayers = s.cross_attention ? 3 : 2;
  a.tp_collectives = d.tp > 1 ? sublayers * (d.res > 1 ? 2 : 1) : 0;
  a.tp_buffer = d.tp > 1 ? d.c * d.n * d.h : 0;
  return a;
}

// Logits and loss (transformers >= 4.46 casts in the loss; earlier versions return fp32 logits
// and make a shifted copy), or Liger's fused linear cross-entropy, which never materialises them.
// Under tensor parallelism the logits span the whole vocabulary on every rank unless the loss is
// vocabulary-parallel (job_spec::vocab_parallel_loss): a sharded head (ColwiseParallel with
// output_layouts=Replicate(), as torchtitan builds it without loss parallelism and torchtune
// and the PyTorch TP tutorial always do) gathers its output shards, and an unsharded head
// computes them whole. Measured on an H200 (bench/data/full-h200.jsonl, case 4's
// fsdp2-tp4-sp-llama8b): the rank held the bf16 shard, the all-gather's output and the
// assembled logits (501, 2004 and 2004 MiB), then the loss's fp32 tensors of the whole
// vocabulary (4008 MiB each).
unit_activations head(const dims& d, const model::stack_shape& s, const job::job_spec& job) {
  head_sizes h;
  h.sharded_head = d.tp > 1 && job.parallel.tp_head;
  h.vocab_parallel = job.vocab_parallel_loss(static_cast<int>(d.tp));
  h.whole_logits = d.tp > 1 && !h.vocab_parallel;
  h.lv = h.sharded_head ? s.vocab / d.tp : s.vocab;
  h.v = h.whole_logits ? s.vocab : h.lv;
  h.nv = d.n * h.v;
  if (job.training.loss == job::loss_impl::liger_fused) return liger_fused_head(d, h);
  if (job.training.loss == job::loss_impl::chunked)
    return chunked_head(d, h.v, job.training.loss_chunks, job.training.compile_loss);
  if (job.training.loss == job::loss_impl::litgpt) return litgpt_head(d, h);
  if (job.framework.name == "jax") return jax_head(d, h);  // predict/jax_plan.cpp plans it as FSDP2
  if (job.training.loss == job::loss_impl::torchtitan && job.training.compile_loss)
    return compiled_loss_head(d, h);
  if (h.vocab_parallel && job.parallel.kind != job::strategy::megatron)
    return loss_parallel(d.c, h.nv);
  return transformers_head(d, s, job, h);
}

}  // namespace

}  // namespace activation

unit_activations activations_for(model::unit_kind kind, const model::stack_shape& s,
                                 const job::job_spec& job, token_shape t, int tp,
                                 const saved_inputs& inputs) {
  activation::dims d{};
  d.batch = t.batch;
  d.seq = t.seq;
  d.n = t.tokens();
  d.h = s.hidden;
  d.i = s.intermediate;
  d.heads = s.heads;
  d.kv = s.kv_heads * (s.head_dim ? s.head_dim : (s.heads ? s.hidden / s.heads : 0));
  if (s.head_dim && s.heads) d.h = std::max(d.h, s.heads * s.head_dim);
  d.c = bytes_of(job.precision.params, 1);
  d.r = job.precision.autocast ? std::max(d.c, bytes_of(job.precision.master, 1)) : d.c;
  d.tp = static_cast<std::uint64_t>(std::max(1, tp));
  d.res = activation::tensor_parallel_sequence(job) ? d.tp : 1;
  d.local_inputs = d.res > 1 && job.parallel.kind == job::strategy::megatron;
  if (job.transformer_engine_float8()) d.te_float8 = job.precision.float8;
  d.litgpt = job.training.model_code == job::model_impl::litgpt;
  d.torchtune = job.training.model_code == job::model_impl::torchtune;
  // lit-gpt 6178c7cc ("Half precision fixes", 2023-10-24) made RMSNorm.forward upcast its input
  // (`x = x.float()`) and cast the normalised value back, as transformers' RMSNorm does; every
  // litgpt release has it (litgpt/model.py RMSNorm at 0.4.x).
  d.litgpt_bf16_norm = d.litgpt && job.framework.litgpt.empty();
  d.mean_saves = version_number(job.framework.version) < version_number("2.2");
  unit_activations a;
  switch (kind) {
    case model::unit_kind::block:
    case model::unit_kind::vision_block: return activation::block(d, s, job, inputs);
    case model::unit_kind::embedding:
      a.saved.push_back(8 * d.n);  // int64 token ids
      a.checkpoint_input = 8 * d.n;
      return a;
    case model::unit_kind::norm:
      activation::add_norm(a.saved, d, s, job.training.liger_kernels, inputs.norm_weights,
                           inputs.head);
      a.saved_by_head = inputs.head ? 1 : 0;
      if (!d.litgpt && !s.layer_norm && !job.training.liger_kernels && !job.training.compile &&
          d.c == 2 && d.res == 1 && job.framework.name != "jax")
        a.forward_in_order = activation::rms_norm_unit_steps(d, inputs.norm_weights, inputs.head);
      return a;
    case model::unit_kind::head:  // called by the step driver for the loss stage
      if (s.vocab > 0) return activation::head(d, s, job);
      return a;
    default:
      return a;
  }
}

}  // namespace vramscope::schedule
