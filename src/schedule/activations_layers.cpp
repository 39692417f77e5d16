// The layers every model code has, as autograd saves their tensors: norms, attention, the MLP
// and mixture-of-experts routing (activations_parts.hpp lists the files of the other pieces).
#include "schedule/activations_parts.hpp"

#include <vramscope/core/version.hpp>

#include <algorithm>
#include <cmath>

namespace vramscope::schedule::activation {

// A norm over the residual stream. RMSNorm as HF writes it upcasts its input: the fp32 copy and
// the rsqrt are saved by the multiply; the normalised value, cast back to the input's dtype, is
// saved by the weight multiply (only when the weight trains). Liger's RMSNorm saves only its
// input and rstd. LayerNorm is one op (aten native_layer_norm) that saves its input as it is,
// with the fp32 mean and rstd of each row, and computes the weight's gradient from those; two
// LayerNorms reading the same tensor (GPT-NeoX's parallel block) save it once (`input_shared`
// for the second). The output is saved by the next projections when they keep their input.
//
// Under torch.autocast over fp32 weights the residual stream is fp32 (the embedding and the
// residual adds are not autocast ops), so the normalised value the weight multiply keeps is
// fp32, and the norm's fp32 output is cast to the compute dtype by each projection that reads
// it: q, k and v keep three casts, gate and up two (autocast caches only casts of leaf tensors
// that require grad, the weights). Measured on an H100 (bench/data/full-h100.jsonl,
// ddp-bf16mixed and single-llama1b-bf16mixed: 8.4 bytes per hidden unit, token and layer above
// the plan that counted a bf16 stream).
//
// lit-gpt's RMSNorm before 6178c7cc (lit_gpt/rmsnorm.py, RMSNorm.forward; framework.litgpt not
// given) computes in the stream's dtype, with
// no fp32 upcast: `norm_x = torch.mean(x * x, dim=-1, keepdim=True)` keeps x (the product's
// two operands are one tensor), and torch before 2.2 also keeps the product x * x, mean's
// input (MeanBackward1 `_saved_self`; pytorch#109876, fixed by #109935 in 2.2); `x *
// torch.rsqrt(norm_x + eps)` keeps x and the rsqrt (one value a row); `self.weight * x_normed`
// keeps x_normed only when the weight trains.
void add_norm(std::vector<bytes>& saved, const dims& d, const model::stack_shape& s, bool liger,
              bool weight_trains, bool output_saved, bool input_shared, int readers) {
  const std::uint64_t nh = d.n * d.h / d.res;
  const std::uint64_t rows = d.n / d.res;
  if (d.litgpt_bf16_norm && !s.layer_norm && !liger) {
    saved.push_back(d.r * nh);                    // x
    if (d.mean_saves) saved.push_back(d.r * nh);  // x * x, kept by mean
    saved.push_back(d.r * rows);                  // rsqrt
    if (weight_trains) saved.push_back(d.r * nh);  // x_normed
  } else if (s.layer_norm) {
    if (!input_shared) saved.push_back(d.r * nh);
    saved.push_back(4 * rows);  // mean
    saved.push_back(4 * rows);  // rstd
  } else if (liger) {
    saved.push_back(d.c * nh);
    saved.push_back(4 * rows);
  } else {
    saved.push_back(4 * nh);
    saved.push_back(4 * rows);
    if (weight_trains) saved.push_back(d.r * nh);
  }
  if (!output_saved) return;
  const int casts = d.r != d.c && !liger ? std::max(1, readers) : 1;
  // The projections' input. Under sequence parallelism it is all-gathered before them; torch's
  // tensor parallelism (DTensor's SequenceParallel into ColwiseParallel) hands the gathered
  // tensor to the matmul, which keeps it. Megatron-LM's column-parallel linear
  // (LinearWithGradAccumulationAndAsyncCommunication in megatron/core/tensor_parallel/layers.py)
  // saves its local shard and all-gathers it again in backward into a reused buffer, as
  // Transformer Engine's LayerNormLinear does with its float8 copy (linear_input).
  const bytes input = linear_input(d, d.local_inputs ? nh : d.n * d.h);
  saved.insert(saved.end(), static_cast<std::size_t>(casts), input);
}

// The SDPA kernel that runs when the job asks for flash. SDPA's flash kernel takes only 16-bit
// inputs; without it, a grouped-query call that passes `enable_gqa` (transformers >= 4.54,
// integrations/sdpa_attention.py `use_gqa_in_sdpa`: torch >= 2.5 and no attention mask) has no
// fused kernel left (the memory-efficient one refuses enable_gqa) and falls to the math path,
// which keeps the score matrix; otherwise transformers repeats K and V and the memory-efficient
// kernel runs. Measured on an H100 (bench/data/full-h100.jsonl, ddp-fp32: Qwen2.5-0.5B in fp32,
// 2 x 2048 tokens) at 10.7 GiB above the flash plan, the size of 24 layers' fp32 scores.
attention_impl sdpa_kernel(const dims& d, const job::job_spec& job) {
  const attention_impl asked = job.training.attention;
  if (asked != attention_impl::flash || d.c == 2) return asked;
  const bool gqa = d.kv < d.h;
  const bool native_gqa = !job.training.padding_mask &&
                          version_number(job.framework.version) >= version_number("2.5") &&
                          version_number(job.framework.transformers) >= version_number("4.54");
  return gqa && native_gqa ? attention_impl::math : attention_impl::efficient;
}

namespace {

// T5Attention (transformers' modeling_t5.py) computes its scores with torch.matmul, adds the
// relative position bias and runs softmax itself: no SDPA kernel, whatever the job asks for.
attention_impl kernel_for(const dims& d, const model::stack_shape& s, const job::job_spec& job) {
  return s.eager_attention ? attention_impl::eager : sdpa_kernel(d, job);
}

// Ring attention under context parallelism (torch/distributed/tensor/experimental/_attention.py,
// _templated_ring_attention and its backward): the kernel runs once per rank of the cp group on
// the local queries and the keys and values passed round the ring, and autograd saves what the
// kernel saves at the local size. Forward holds the local keys and values being sent and the
// next ones arriving (one flat buffer each), the merged output and log-sum-exp in fp32 and a
// merge temporary, and each step's output. Backward also passes the key and value gradients
// round, accumulated in fp32: the accumulators, the ones in flight, and the keys and values.
void add_ring_buffers(unit_activations& a, const dims& d, std::uint64_t kv) {
  const std::uint64_t out32 = 4 * d.n * d.h / d.tp;
  const std::uint64_t kv32 = kv / d.c * 4;
  a.forward_temps.insert(a.forward_temps.end(), {2 * kv, 2 * kv, out32, out32, d.c * d.n * d.h / d.tp});
  a.backward_temps.insert(a.backward_temps.end(), {2 * kv, 2 * kv, 2 * kv32, 2 * kv32});
}

// What the kernel keeps of the attention's sequence x sequence scores (its output and
// log-sum-exp for the fused kernels), per implementation, and its backward's temporaries.
void add_core_attention(unit_activations& a, const dims& d, const model::stack_shape& s,
                        attention_impl kernel, std::uint64_t scores) {
  const std::uint64_t q = d.c * d.n * d.h / d.tp;
  const std::uint64_t heads = std::max<std::uint64_t>(1, d.heads / d.tp);
  switch (kernel) {
    case attention_impl::flash:
    case attention_impl::efficient:
      a.saved.push_back(q);                       // attention output
      a.saved.push_back(4 * d.batch * heads * d.seq);  // logsumexp, fp32
      a.backward_temps.push_back(4 * d.n * d.h / d.tp);  // fp32 dq accumulator
      break;
    case attention_impl::math:
      // In op order (SDPA's math path, _safe_softmax): the scores, their softmax (saved), a bool
      // mask of the scores' shape, then the scores and the mask go (measured in the allocator
      // history of fsdp1-full-fp32: +1024 +1024 +256 -256 -1024 MiB per layer).
      a.saved_from_at = a.saved.size();
      a.saved.push_back(d.c * scores);  // softmax probabilities
      a.saved_from.push_back(d.c * scores);
      a.saved_after.push_back(scores);
      // With dropout (SDPA's dropout_p, Megatron-LM's attention_dropout after its fused softmax)
      // the probabilities are dropped into a new tensor, which the matmul with v saves, and the
      // dropout keeps its bool mask: the softmax output, the mask and the dropped copy are the
      // 5 bytes per score (16-bit) of Korthikanti et al. 2022, section 4.1.
      if (s.attention_dropout) {
        a.saved.push_back(d.c * scores);  // dropped probabilities, input of probs @ v
        a.saved.push_back(scores);        // the dropout's bool mask
      }
      a.backward_temps.push_back(d.c * scores);
      a.backward_temps.push_back(d.c * scores);
      break;
    case attention_impl::eager:
      if (d.litgpt && s.attention_softcapping) {
        litgpt_softcapped_scores_steps(a, d, scores);
      } else if (s.attention_dropout) {
        a.saved.push_back(4 * scores);    // fp32 softmax output
        a.saved.push_back(d.c * scores);  // its dropout, input of probs @ v
        a.saved.push_back(scores);        // the dropout's bool mask
        a.forward_temps.push_back(d.c * scores);  // raw scores
        a.forward_temps.push_back(d.c * scores);  // scores + causal mask
      } else {
        eager_scores_steps(a, d, scores);
      }
      a.backward_temps.push_back(4 * scores);
      a.backward_temps.push_back(4 * scores);
      break;
  }
}

// Core attention recomputed in backward (training.activation_checkpointing core_attention):
// Megatron-LM's --recompute-granularity selective runs core attention under
// tensor_parallel.checkpoint (TransformerBlock/_checkpointed_attention_forward in
// megatron/core/transformer/attention.py), which keeps its inputs, q, k and v, already saved
// above, and hands its output to the projection after it, which keeps that as its input. What the
// kernel would keep of the scores' shape (the softmax output, the dropout's output and its bool
// mask; Korthikanti et al. 2022, section 4.1's 5 bytes a score) is not kept: forward holds it
// beside the raw scores while the kernel runs, and backward makes it again and holds it beside
// the kernel's own gradient temporaries until the attention's backward ends. Only the math and
// eager kernels keep such tensors; with a fused kernel this is no checkpointing at all.
void add_recomputed_core_attention(unit_activations& a, const dims& d, const model::stack_shape& s,
                                   attention_impl kernel, std::uint64_t scores) {
  unit_activations kept;
  add_core_attention(kept, d, s, kernel, scores);
  if (kept.saved_steps.empty()) {  // all of it at once: the kept tensors and the transients
    a.forward_temps.insert(a.forward_temps.end(), kept.saved.begin(), kept.saved.end());
    for (const auto* part : {&kept.saved_from, &kept.saved_after, &kept.forward_temps})
      a.forward_temps.insert(a.forward_temps.end(), part->begin(), part->end());
  } else {  // the most the steps (eager attention in op order) hold at once
    std::vector<bytes> sizes(kept.saved_steps_at, 0);
    bytes now = 0, peak = 0;
    for (const auto& st : kept.saved_steps) {
      sizes.push_back(st.alloc);
      if (st.alloc > 0)
        now += st.alloc;
      else if (!st.gemm && st.index < sizes.size())
        now -= sizes[st.index];
      peak = std::max(peak, now);
    }
    a.forward_temps.push_back(peak);
  }
  a.backward_temps.insert(a.backward_temps.end(), kept.saved.begin(), kept.saved.end());
  a.backward_temps.insert(a.backward_temps.end(), kept.backward_temps.begin(),
                          kept.backward_temps.end());
}

}  // namespace

// Saved by attention, per implementation (see docs/schedule.md, "Activations").
void add_attention(unit_activations& a, const dims& d, const model::stack_shape& s,
                   const job::job_spec& job, bool o_input) {
  const std::uint64_t q = d.c * d.n * d.h / d.tp;
  const std::uint64_t kv = d.c * d.n * d.kv / d.tp;
  const std::uint64_t heads = std::max<std::uint64_t>(1, d.heads / d.tp);
  const std::uint64_t scores = d.batch * heads * d.seq * d.seq;
  const attention_impl kernel = kernel_for(d, s, job);
  // Only flash takes K and V with fewer heads; the math path repeats them inside SDPA and the
  // others get them repeated by transformers. LitGPT repeats them itself for grouped queries
  // (expand + reshape) and hands SDPA a single shared head as it is (torch 2.1's fused kernels
  // refuse it; the math path broadcasts it into copies). torchtune's MultiHeadAttention.forward
  // repeats them whatever the kernel: `k.unsqueeze(2).expand(expand_shape).flatten(1, 2)`, and
  // the same for v, whenever num_heads != num_kv_heads (torchtune/modules/attention.py at
  // 1814feb1); flatten of the expanded view is a copy, the tensor the kernel saves.
  const bool repeat_kv = d.litgpt || d.torchtune
                             ? d.kv < d.h
                             : job.training.padding_mask || kernel != attention_impl::flash;
  const std::uint64_t k_saved = repeat_kv ? q : kv;
  a.saved.push_back(q);        // rotated query
  a.saved.push_back(k_saved);  // rotated key (repeated to all heads without native GQA)
  // LitGPT's CausalSelfAttention.forward (lit_gpt/model.py) splits its fused qkv output by
  // views (view, permute, split, reshape) and ropes q and k into new tensors (torch.cat of the
  // roped part and the rest), but hands SDPA v as it is: with one key/value head per query head
  // v.reshape is a view, so the value SDPA saves keeps the whole fused output,
  // q, k and v rows together, alive. With fewer key/value heads v is repeated into a copy.
  const bool fused_view = d.litgpt && !repeat_kv;
  a.saved.push_back(fused_view ? q + 2 * kv : k_saved);  // value (or the qkv output it views)
  const bool scores_kept = kernel == attention_impl::math || kernel == attention_impl::eager;
  if (scores_kept && job.training.activation_checkpointing == job::checkpointing::core_attention) {
    add_recomputed_core_attention(a, d, s, kernel, scores);
  } else {
    add_core_attention(a, d, s, kernel, scores);
  }
  // transformers and torchtitan hand o_proj `out.transpose(1, 2).contiguous()`. The flash and
  // memory-efficient kernels write their output as (batch, seq, heads, dim) and return it
  // transposed, so that copy is the output itself; after math or eager attention it is a new
  // tensor. Measured on an H100 (bench/data/full-h100.jsonl: every bf16 flash case was 2 bytes
  // per hidden unit, token and layer above the plan that counted both). A Transformer Engine
  // projection in float8 keeps its own quantized copy of the output beside the one the kernel
  // keeps.
  const bool kernel_layout = kernel == attention_impl::flash || kernel == attention_impl::efficient;
  const bool te_copy = d.te_float8 != job::float8_recipe::none;
  if (o_input && (te_copy || !kernel_layout)) a.saved.push_back(linear_input(d, d.n * d.h / d.tp));
  a.backward_temps.push_back(q);
  a.backward_temps.push_back(2 * kv);
  if (job.parallel.cp > 1) add_ring_buffers(a, d, kv);
}

// The MLP. The activation function saves its input (the first projection's output) and, when
// it is a chain of Python-level ops (transformers' gelu_new), its intermediates too:
// `act_saved` MLP-width tensors in all.
void add_mlp(unit_activations& a, const dims& d, bool gated, std::uint32_t act_saved, bool liger,
             bool down_input) {
  const std::uint64_t inner = d.c * d.n * d.i / d.tp;
  const bytes down = linear_input(d, d.n * d.i / d.tp);  // what the second projection keeps
  const std::uint32_t extra = act_saved > 1 ? act_saved - 1 : 0;
  if (gated) {
    a.saved.push_back(inner);               // gate output
    a.saved.push_back(inner);               // up output
    if (!liger) a.saved.push_back(inner);   // SiLU(gate)
    a.saved.insert(a.saved.end(), extra, inner);
    if (down_input) a.saved.push_back(down);  // down_proj input
    a.backward_temps.insert(a.backward_temps.end(), {inner, inner, inner});
  } else {
    a.saved.push_back(inner);                  // fc1 output
    a.saved.insert(a.saved.end(), extra, inner);
    if (down_input) a.saved.push_back(down);  // activation output: fc2 input
    a.backward_temps.insert(a.backward_temps.end(), {inner, inner});
  }
}

// The rows a mixture-of-experts layer hands its experts for `tokens` tokens: each token goes to
// `experts_per_token` of them (dropless routing, the same total however unevenly they are
// chosen). With Megatron-LM's expert capacity (training.moe_capacity_factor;
// moe_utils.get_capacity: ceil(tokens x top-k / experts x factor)) an expert takes at most that
// many and the rest are dropped, which with the planner's even routing leaves all of them when
// the factor is at least 1; padded to capacity (training.moe_pad_to_capacity,
// apply_router_token_dropping) every expert takes exactly that many, or every token when the
// capacity exceeds the tokens (the capacity mask is then all true).
std::uint64_t routed_rows(std::uint64_t tokens, const model::stack_shape& s,
                          const job::job_spec& job) {
  const std::uint64_t k = std::max<std::uint64_t>(1, s.experts_per_token);
  const auto& factor = job.training.moe_capacity_factor;
  if (!factor || s.experts == 0) return tokens * k;
  const auto experts = static_cast<double>(s.experts);
  const auto capacity = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(tokens * k) / experts * *factor));
  if (job.training.moe_pad_to_capacity)
    return s.experts * (capacity > tokens ? tokens : capacity);
  return std::min(tokens * k, s.experts * capacity);
}

// A mixture-of-experts layer sends each token to `experts_per_token` experts: the experts'
// inputs are copies of the tokens they were routed (transformers' Mixtral and Qwen MoE index
// `hidden_states[top_x]`, torchtitan's GroupedExperts `x[token_indices]`), kept by their first
// matmuls when those train, and each expert output is multiplied by its routing weight, which
// keeps the output for the router's gradient. Under expert parallelism
// (parallel.ep; torchtitan's ExpertParallel _token_dispatch / _token_combine) the routed tokens
// are permuted and exchanged all-to-all on the way in and on the way back, in forward and in
// backward: a permuted copy and the exchange's output each time.
void add_routing(unit_activations& a, const dims& d, const model::stack_shape& s,
                 const job::job_spec& job, const saved_inputs& in) {
  const std::uint64_t rows = routed_rows(d.n, s, job);
  const std::uint64_t routed = d.c * rows * d.h;
  if (in.mlp)
    a.saved.insert(a.saved.end(), {linear_input(d, rows * d.h), routed});  // inputs, outputs
  if (job.parallel.ep <= 1) return;
  a.forward_temps.insert(a.forward_temps.end(), {routed, routed, routed, routed});
  a.backward_temps.insert(a.backward_temps.end(), {routed, routed});
}

}  // namespace vramscope::schedule::activation
