#include "schedule/activations.hpp"

#include <vramscope/schedule/schedule.hpp>

#include <algorithm>
#include <cmath>

namespace vramscope::schedule {

namespace {

using job::attention_impl;

struct dims {
  std::uint64_t n, h, i, heads, kv, batch, seq;  // tokens, hidden, MLP width, q heads, kv width
  std::uint64_t c;                                // compute dtype bytes
  std::uint64_t r;                                // residual-stream dtype bytes (fp32 under autocast)
  std::uint64_t tp, res;                          // tp size; residual-stream split (SP)
  bool litgpt = false;       // LitGPT's GPT class (training.model_code: litgpt)
  bool litgpt_bf16_norm = false;  // lit-gpt before 6178c7cc: RMSNorm in the stream's dtype
  bool mean_saves = false;   // torch.mean keeps its input for backward (torch < 2.2)
  bool local_inputs = false; // Megatron-LM under sequence parallelism: linears keep their shard
};

bool tensor_parallel_sequence(const job::job_spec& job) {
  return job.parallel.tp > 1 && job.parallel.sequence_parallel;
}

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
              bool weight_trains, bool output_saved, bool input_shared = false, int readers = 1) {
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
  // saves its local shard and all-gathers it again in backward into a reused buffer.
  const std::uint64_t input = d.local_inputs ? d.c * nh : d.c * d.n * d.h;
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

void eager_scores_steps(unit_activations& a, const dims& d, std::uint64_t scores);

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
  // refuse it; the math path broadcasts it into copies).
  const bool repeat_kv = d.litgpt ? d.kv < d.h
                                  : job.training.padding_mask || kernel != attention_impl::flash;
  const std::uint64_t k_saved = repeat_kv ? q : kv;
  a.saved.push_back(q);            // rotated query
  a.saved.push_back(k_saved);      // rotated key (repeated to all heads without native GQA)
  // LitGPT's CausalSelfAttention.forward (lit_gpt/model.py) splits its fused qkv output by
  // views (view, permute, split, reshape) and ropes q and k into new tensors (torch.cat of the
  // roped part and the rest), but hands SDPA v as it is: with one key/value head per query head
  // v.reshape is a view, so the value SDPA saves keeps the whole fused output,
  // q, k and v rows together, alive. With fewer key/value heads v is repeated into a copy.
  const bool fused_view = d.litgpt && !repeat_kv;
  a.saved.push_back(fused_view ? q + 2 * kv : k_saved);  // value (or the qkv output it views)
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
      if (s.attention_dropout) {
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
  // transformers and torchtitan hand o_proj `out.transpose(1, 2).contiguous()`. The flash and
  // memory-efficient kernels write their output as (batch, seq, heads, dim) and return it
  // transposed, so that copy is the output itself; after math or eager attention it is a new
  // tensor. Measured on an H100 (bench/data/full-h100.jsonl: every bf16 flash case was 2 bytes
  // per hidden unit, token and layer above the plan that counted both).
  const bool kernel_layout = kernel == attention_impl::flash || kernel == attention_impl::efficient;
  if (o_input && !kernel_layout) a.saved.push_back(q);
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
  const std::uint32_t extra = act_saved > 1 ? act_saved - 1 : 0;
  if (gated) {
    a.saved.push_back(inner);               // gate output
    a.saved.push_back(inner);               // up output
    if (!liger) a.saved.push_back(inner);   // SiLU(gate)
    a.saved.insert(a.saved.end(), extra, inner);
    if (down_input) a.saved.push_back(inner);  // down_proj input
    a.backward_temps.insert(a.backward_temps.end(), {inner, inner, inner});
  } else {
    a.saved.push_back(inner);                  // fc1 output
    a.saved.insert(a.saved.end(), extra, inner);
    if (down_input) a.saved.push_back(inner);  // activation output: fc2 input
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
  const std::uint64_t routed = d.c * routed_rows(d.n, s, job) * d.h;
  if (in.mlp) a.saved.insert(a.saved.end(), {routed, routed});  // expert inputs and outputs
  if (job.parallel.ep <= 1) return;
  a.forward_temps.insert(a.forward_temps.end(), {routed, routed, routed, routed});
  a.backward_temps.insert(a.backward_temps.end(), {routed, routed});
}

// A forward that keeps nothing for backward, as a list of steps (forward_step).
// Entries are numbered from `base` (a backward's list begins with the unit's saved tensors).
class step_list {
 public:
  explicit step_list(std::size_t base = 0) : base_(base) {}
  std::size_t alloc(bytes b, bool gemm = false) {
    steps.push_back({b, 0, gemm});
    return base_ + steps.size() - 1;
  }
  void weight_cast(bytes b) { steps.push_back({b, 0, false, true}); }
  void free(std::size_t entry) { steps.push_back({0, entry}); }
  // A matmul whose output another part of the plan makes (a weight's gradient, the strategy's).
  void gemm() { steps.push_back({0, 0, true}); }
  std::vector<forward_step> steps;

 private:
  std::size_t base_ = 0;
};

// transformers' eager_attention_forward from the scores on, in op order (saved_steps):
// `torch.matmul(query, key.transpose(2, 3)) * scaling` (the product goes once scaled), the
// causal mask added (in the mask's dtype, the model's: fp32 for fp32 weights, autocast
// included), `softmax(dtype=torch.float32)` (a 16-bit input is upcast into a copy first, which
// goes; the output is kept by its backward), `.to(query.dtype)`, and dropout with p = 0, which
// returns its input. The query is 16-bit only without autocast (under autocast RoPE's fp32
// cos and sin make it fp32): then `.to` casts, and the masked scores go at the rebinding, after
// the cast; otherwise `.to` is a no-op and the masked scores go at once, and under autocast the
// matmul with v casts the probabilities to the compute dtype and keeps the cast. In fp32 the
// softmax output is the matmul's input itself. Measured per layer in MiB, in the allocator
// histories of bench/data/snapshots/h200-2026-11-26d.tgz: fsdp2-eager (bf16, Llama-3.2-1B,
// 2 x 32 x 2048 x 2048 scores) +512 +512 -512 +512 -512 +1024 +1024 -1024 +512 -512;
// ddp-bf16mixed-eager (autocast, Qwen2.5-0.5B, 2 x 14 heads) +224 +224 -224 +448 -224 +448 -448
// +224.
void eager_scores_steps(unit_activations& a, const dims& d, std::uint64_t scores) {
  if (!a.saved_steps.empty()) {  // a second attention (cross-attention): one list a unit
    a.saved.push_back(4 * scores);
    if (d.c != 4) a.saved.push_back(d.c * scores);
    a.forward_temps.insert(a.forward_temps.end(), {d.c * scores, d.r * scores});
    return;
  }
  step_list p;
  const bool fp32_query = d.r == 4;
  const auto raw = p.alloc(d.c * scores);
  const auto scaled = p.alloc(d.c * scores);
  p.free(raw);
  const auto masked = p.alloc(d.r * scores);
  p.free(scaled);
  std::size_t upcast = 0;
  if (d.r != 4) upcast = p.alloc(4 * scores);
  p.alloc(4 * scores);  // the softmax output, kept
  if (d.r != 4) p.free(upcast);
  if (fp32_query) p.free(masked);
  if (d.c != 4) p.alloc(d.c * scores);  // the probabilities in the compute dtype, kept
  if (!fp32_query) p.free(masked);
  a.saved_steps_at = a.saved.size();
  a.saved.push_back(4 * scores);
  if (d.c != 4) a.saved.push_back(d.c * scores);
  a.saved_steps = std::move(p.steps);
}

// Python frees each intermediate once its last reference goes, so a forward that saves nothing
// holds only the tensors its frame still names. The code below follows transformers'
// modeling_llama.py (Qwen2 and Mistral share it) line by line; `free` marks the end of a
// reference.
//
// LlamaRMSNorm.forward: `hidden_states.to(torch.float32)`, `variance = hidden_states.pow(2)
// .mean(-1, keepdim=True)`, `hidden_states = hidden_states * torch.rsqrt(variance + eps)`,
// `return self.weight * hidden_states.to(input_dtype)`. Returns the output's step.
std::size_t rms_norm_steps(step_list& p, const dims& d) {
  const std::uint64_t x = d.n * d.h, rows = d.n;
  const auto upcast = p.alloc(4 * x);
  const auto square = p.alloc(4 * x);
  const auto variance = p.alloc(4 * rows);
  p.free(square);
  const auto shifted = p.alloc(4 * rows);  // variance + eps
  const auto rstd = p.alloc(4 * rows);
  p.free(shifted);
  const auto normed = p.alloc(4 * x);
  p.free(rstd);
  p.free(upcast);  // hidden_states rebound to the normalised value
  const auto cast = p.alloc(d.c * x);
  const auto out = p.alloc(d.c * x);  // weight * cast
  p.free(cast);
  p.free(normed);
  p.free(variance);
  return out;
}

// apply_rotary_pos_emb on one of q and k (`t` bytes): `(x * cos) + (rotate_half(x) * sin)`,
// rotate_half being `torch.cat((-x2, x1), dim=-1)` over the halves of the head dimension.
std::size_t rope_steps(step_list& p, bytes t) {
  const auto by_cos = p.alloc(t);
  const auto negated = p.alloc(t / 2);
  const auto rotated = p.alloc(t);
  p.free(negated);
  const auto by_sin = p.alloc(t);
  p.free(rotated);
  const auto out = p.alloc(t);
  p.free(by_sin);
  p.free(by_cos);
  return out;
}

// LlamaDecoderLayer.forward with SDPA's flash kernel taking k and v with their own heads:
// norm, q/k/v projections, RoPE (the projections' outputs go when the names are rebound), the
// kernel's output and log-sum-exp, o_proj (the kernel output goes at the rebinding), the
// residual add, then norm and LlamaMLP `down_proj(act_fn(gate_proj(x)) * up_proj(x))` and the
// second residual add, whose result is the block's output.
void llama_block_steps(unit_activations& a, const dims& d) {
  step_list p;
  const std::uint64_t x = d.c * d.n * d.h, kv = d.c * d.n * d.kv, inner = d.c * d.n * d.i;
  const auto n1 = rms_norm_steps(p, d);
  const auto q = p.alloc(x);
  const auto k = p.alloc(kv);
  const auto v = p.alloc(kv);
  const auto q_rot = rope_steps(p, x);
  const auto k_rot = rope_steps(p, kv);
  p.free(q);
  p.free(k);
  const auto attn = p.alloc(x);
  p.free(p.alloc(4 * d.batch * d.heads * d.seq));  // log-sum-exp, kept by nothing
  const auto o = p.alloc(x);
  p.free(attn);
  p.free(q_rot);  // the attention's locals at its return
  p.free(k_rot);
  p.free(v);
  p.free(n1);  // hidden_states rebound to the attention's output
  const auto s1 = p.alloc(d.r * d.n * d.h);
  p.free(o);
  const auto n2 = rms_norm_steps(p, d);
  const auto gate = p.alloc(inner);
  const auto act = p.alloc(inner);
  p.free(gate);
  const auto up = p.alloc(inner);
  const auto prod = p.alloc(inner);
  p.free(act);
  p.free(up);
  const auto down = p.alloc(x);
  p.free(prod);
  p.free(n2);
  a.checkpoint_output = p.alloc(d.r * d.n * d.h);
  p.free(down);
  p.free(s1);
  a.checkpointed_forward = std::move(p.steps);
}

// The same layer under torch.autocast over fp32 weights, keeping what backward needs: the
// residual stream is fp32 (the embedding and the adds are not autocast ops), and so are the
// norm's output and RoPE's products with the fp32 cos and sin; each projection casts its fp32
// input to the compute dtype and the matmul keeps the cast (autocast caches only casts of
// leaf tensors that require grad), SDPA casts the roped q and k (evaluated right to left, as
// autocast's wrapper casts the arguments, k first) and keeps them. Measured in the allocator
// history of ddp-bf16mixed-sgd (Qwen2.5-0.5B, bench/data/snapshots/h200-2026-11-26.tgz), one
// layer in MiB, `-` a free: +14 -14 (the square) +14 (normalised, kept) +14 (norm output) +7
// (q's input cast, kept) +7 (q) +7 +1 (k) +7 +1 (v, kept) +14 +3.5 +7 -3.5 +14 -7 +14 -14 -14
// (RoPE of q) +2 +0.5 +1 -0.5 +2 -1 +2 -2 -2 (of k) -7 -1 +1 +7 (the kernel's casts) +7 (its
// output) +7 (o_proj) -14 -2 -14 +14 (the residual sum) -7, then the MLP: +14 -14 +14 +14 +7
// +38 +38 +7 +38 +38 +7 -14 (+14, the next layer's input) -7 (the weights' casts left out);
// the weights' casts come each before its matmul's input cast (+1.5 before q's, +0.2 before k's
// and v's, +1.5 before o_proj, +8.3 before gate, up and down; the biases' casts, a few KiB, are
// left out). The model's first matmul, which creates the main thread's cuBLAS
// workspace, is the rotary embedding's (`inv_freq_expanded @ position_ids_expanded`, run before
// the first layer): measured +14 (the embedding's output) +32 (the workspace).
void autocast_llama_block_steps(unit_activations& a, const dims& d, const model::stack_shape& s) {
  step_list p;
  const std::uint64_t nh = d.n * d.h, nkv = d.n * d.kv, rows = d.n;
  const std::uint64_t x = d.c * nh, kv = d.c * nkv, inner = d.c * d.n * d.i, stream = d.r * nh;
  const std::uint64_t q_rows =
      s.heads * (s.head_dim ? s.head_dim : s.hidden / std::max<std::uint64_t>(1, s.heads));
  const auto cast = [&](std::uint64_t out, std::uint64_t in) { p.weight_cast(d.c * out * in); };
  auto norm = [&] {  // Qwen2RMSNorm / LlamaRMSNorm on the fp32 stream: `.to(float32)` is a no-op
    p.free(p.alloc(stream));  // the square
    p.alloc(4 * rows);        // rstd, kept
    p.alloc(stream);          // the normalised value, kept by the weight multiply
    return p.alloc(stream);   // the output
  };
  auto rope = [&](std::uint64_t values) {  // fp32 products with cos and sin
    const auto by_cos = p.alloc(d.r * values);
    const auto negated = p.alloc(d.c * values / 2);
    const auto rotated = p.alloc(d.c * values);
    p.free(negated);
    const auto by_sin = p.alloc(d.r * values);
    p.free(rotated);
    const auto out = p.alloc(d.r * values);
    p.free(by_cos);
    p.free(by_sin);
    return out;
  };
  p.alloc(stream);  // the block's input, kept by the square
  p.gemm();         // the rotary embedding's matmul (inv_freq @ positions), the model's first
  const auto n1 = norm();
  cast(q_rows, s.hidden);  // each matmul casts its weight, then its input (right to left)
  p.alloc(x);              // q's input cast
  const auto q = p.alloc(x);
  cast(d.kv, s.hidden);
  p.alloc(x);  // k's
  const auto k = p.alloc(kv);
  cast(d.kv, s.hidden);
  p.alloc(x);   // v's
  p.alloc(kv);  // v, kept by the kernel
  const auto q_rot = rope(nh);
  const auto k_rot = rope(nkv);
  p.free(q);
  p.free(k);
  p.alloc(kv);  // the kernel's casts of k and q, kept
  p.alloc(x);
  p.alloc(x);                              // its output, o_proj's input
  p.alloc(4 * d.batch * d.heads * d.seq);  // log-sum-exp
  cast(s.hidden, q_rows);
  const auto o = p.alloc(x);
  p.free(q_rot);
  p.free(k_rot);
  p.free(n1);
  p.alloc(stream);  // the residual sum, kept by the second norm's square
  p.free(o);
  const auto n2 = norm();
  cast(d.i, s.hidden);
  p.alloc(x);      // gate's input cast
  p.alloc(inner);  // gate
  p.alloc(inner);  // SiLU(gate)
  cast(d.i, s.hidden);
  p.alloc(x);      // up's input cast
  p.alloc(inner);  // up
  p.alloc(inner);  // the product, down's input
  cast(s.hidden, d.i);
  const auto down = p.alloc(x);
  p.free(n2);
  p.free(down);  // the residual sum is the next unit's input
  a.forward_in_order = std::move(p.steps);
}

// Where the step lists of this file are a block's code: transformers' Llama, Qwen2 and Mistral
// decoder layers run by PyTorch (not a JAX program, whose buffers XLA assigns) with a 16-bit
// compute dtype, SDPA's flash kernel, nn.Linear (not torchao's Float8Linear), no tensor,
// context or sequence parallelism, no padding mask, no LoRA, Liger or compile.
bool transformers_llama_layer(const dims& d, const model::stack_shape& s,
                              const job::job_spec& job) {
  const bool family = s.family == "llama" || s.family == "qwen2" || s.family == "mistral";
  return family && job.framework.name != "jax" &&
         job.precision.float8 == job::float8_recipe::none && !d.litgpt && d.c == 2 &&
         d.tp == 1 && job.parallel.cp <= 1 && sdpa_kernel(d, job) == attention_impl::flash &&
         !job.training.padding_mask && !job.lora.enabled && !job.training.liger_kernels &&
         !job.training.compile && s.experts == 0 && s.gated_mlp && s.activation_saved == 1 &&
         !s.layer_norm && !s.residual_dropout && s.form == model::block_form::sequential &&
         !s.cross_attention && !s.eager_attention;
}

// Where llama_block_steps is the block's code: such a layer in bf16 or fp16 with no autocast,
// under full checkpointing.
bool llama_steps_apply(const dims& d, const model::stack_shape& s, const job::job_spec& job) {
  return transformers_llama_layer(d, s, job) && d.r == 2 &&
         job.training.activation_checkpointing == job::checkpointing::full;
}

// A unit that is one RMSNorm as transformers writes it (the final norm), in op order:
// `hidden_states.to(torch.float32)` (the fp32 copy, kept; under autocast the stream is fp32 and
// it is the input itself), `.pow(2)` (gone after the mean), the rsqrt (kept), `hidden_states *
// torch.rsqrt(...)` (fp32), `.to(input_dtype)` (kept by the weight multiply; under autocast a
// no-op, and the product is what it keeps) and the weight multiply, whose output the head reads:
// kept when the head keeps its input, cast to the compute dtype by the head under autocast.
// Measured (Llama-3.2-1B's final norm in bf16 under FSDP1, bench/data/snapshots,
// fsdp1-cpuoffload): +32 +32 -32 +32 +16 +16 -32 MiB; the freed square and product leave a
// 32 MiB block, which the backward's cuBLAS workspace takes there.
std::vector<forward_step> rms_norm_unit_steps(const dims& d, bool weight_trains,
                                              bool output_saved) {
  step_list p;
  const std::uint64_t nh = d.n * d.h;
  p.alloc(4 * nh);          // the fp32 input (its copy), kept
  p.free(p.alloc(4 * nh));  // the square
  p.alloc(4 * d.n);         // rstd, kept
  const auto normed = p.alloc(4 * nh);
  // The product is named until the norm returns, after its output exists.
  if (d.r == 4) {  // autocast: the product is the normalised value
    const auto out = p.alloc(4 * nh);
    if (!weight_trains) p.free(normed);
    if (output_saved) p.alloc(d.c * nh);  // the head's cast of its input, kept
    p.free(out);
  } else {
    const auto cast = p.alloc(d.c * nh);
    const auto out = p.alloc(d.c * nh);
    p.free(normed);
    if (!weight_trains) p.free(cast);
    if (!output_saved) p.free(out);
  }
  return std::move(p.steps);
}

// Where autocast_llama_block_steps is the block's code: as llama_steps_apply, under autocast
// over fp32 weights (a bf16 or fp16 compute dtype: DDP or one GPU, the strategies that plan
// autocast), any checkpointing (the blocks it leaves alone run these steps), and every weight
// training with separate q/k/v and gate/up matrices.
bool autocast_steps_apply(const dims& d, const model::stack_shape& s, const job::job_spec& job,
                          const saved_inputs& in) {
  saved_inputs all;
  all.qkv_readers = 3;
  all.mlp_readers = 2;
  const bool ddp =
      job.parallel.kind == job::strategy::ddp || job.parallel.kind == job::strategy::single;
  return transformers_llama_layer(d, s, job) && ddp && job.precision.autocast && d.r == 4 &&
         in == all;
}

// Per-operator selective checkpointing as torchtitan applies it (selective_ac_option "op",
// torchtitan/models/llama3/infra/parallelize.py _custom_policy): the outputs of the ops in its
// save list are kept (flash / efficient attention, and aten.mm) except every second matmul of
// the block, counted in forward order; everything else is recomputed in backward. A decoder
// block's matmuls run q, k, v, o, then gate (w1), up (w3), down (w2) for a gated MLP or fc1,
// fc2: the 1st, 3rd, 5th and 7th are kept (q, v, gate, down; q, v, fc1 without a gate).
std::vector<bytes> per_op_saved(const dims& d, const model::stack_shape& s, const job::job_spec& job) {
  std::vector<bytes> out;
  const std::uint64_t heads = std::max<std::uint64_t>(1, d.heads / d.tp);
  out.push_back(d.c * d.n * d.h / d.tp);   // q projection output
  out.push_back(d.c * d.n * d.kv / d.tp);  // v projection output
  const auto impl = s.eager_attention ? attention_impl::eager : job.training.attention;
  if (impl == attention_impl::flash || impl == attention_impl::efficient) {
    out.push_back(d.c * d.n * d.h / d.tp);           // attention output
    out.push_back(4 * d.batch * heads * d.seq);      // logsumexp
  }
  dims mlp = d;
  if (s.experts > 0) mlp.n = routed_rows(d.n, s, job);
  out.push_back(d.c * mlp.n * d.i / d.tp);          // gate (or fc1) output
  if (s.gated_mlp) out.push_back(d.c * mlp.n * d.h);  // down_proj output (before its reduction)
  return out;
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

// torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/ce_chunked_output_loss.py) over
// TransformerDecoder.chunked_output (torchtune/modules/transformer.py): the output projection
// runs on each of `chunks` tensor_split slices of the sequence and the model returns the list,
// so every logit chunk, in the model dtype, lives until the recipe's `del logits` after the loss
// (recipes/full_finetune_single_device.py, _loss_step). The loss upcasts one chunk at a time
// (`logits.float()`, a no-op for fp32 logits) and cross_entropy saves that chunk's fp32
// log-softmax output; the upcast copy is transient. Backward walks the chunks one by one: the
// NLL and log-softmax gradients (fp32) and the gradient of the cast of one chunk at a time.
//
// Under training.compile_loss torchtune compiles the loss's per-chunk cross-entropy
// (training.compile_loss: `loss.compute_cross_entropy = torch.compile(...)`): the upcast and the
// log-softmax fuse into the kernel, and the partitioner keeps the chunk's logits (alive anyway in
// the list) and each row's log-sum-exp instead of the fp32 log-softmax; backward writes the
// chunk's gradient in the logits' dtype directly.
unit_activations chunked_head(const dims& d, std::uint64_t v, int chunks, bool compiled) {
  unit_activations a;
  const std::uint64_t k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(chunks), 1, d.seq);
  const std::uint64_t largest = d.batch * ceil_div(d.seq, k) * v;  // elements of the first chunk
  for (std::uint64_t i = 0; i < k; ++i) {
    // tensor_split: the first seq % k slices hold one token more
    const std::uint64_t rows = d.batch * (d.seq / k + (i < d.seq % k ? 1 : 0));
    const std::uint64_t elements = rows * v;
    a.saved.push_back(compiled ? 4 * rows : 4 * elements);  // log-sum-exp, or log-softmax output
    a.forward_temps.push_back(d.c * elements);              // the chunk's logits
  }
  if (compiled) {
    a.backward_temps.push_back(d.c * largest);
    return a;
  }
  const bool upcast = d.c != 4;
  if (upcast) a.forward_temps.push_back(4 * largest);
  a.backward_temps.insert(a.backward_temps.end(), {4 * largest, 4 * largest});
  if (upcast) a.backward_temps.push_back(d.c * largest);
  return a;
}

// torchtitan's loss under tensor parallelism runs inside `loss_parallel()` (train_context;
// parallelisms: enable_loss_parallel = tp > 1 and not training.disable_loss_parallel), over the
// vocabulary-sharded logits, `nv` elements a rank. DTensor's custom handlers replace the
// log-softmax and NLL kernels (torch/distributed/tensor/parallel/loss.py). Forward,
// `_log_softmax`: `shifted = x - x_max` (fp32, alive until the handler returns),
// `torch.exp(shifted)` (freed once summed), then `result = shifted - shifted_logsumexp`, the
// saved output. Backward, `_nll_loss_and_log_softmax_backward` on that output:
// `grad_input = torch.zeros_like(x)`, then `(grad_input + torch.exp(x)) * grad_output`: the
// zeros, the exp and the sum are alive together beside the saved output (16 bytes a logit;
// the product then takes the exp's place); `_log_softmax_backward_data` only returns its
// input.
unit_activations loss_parallel(std::uint64_t c, std::uint64_t nv) {
  unit_activations a;
  a.saved_from = {c * nv, 4 * nv, 4 * nv};      // logits, fp32 upcast, shifted
  a.saved_scratch = {4 * nv};                   // exp(shifted)
  a.saved = {4 * nv};                           // log-softmax output
  a.backward_temps = {4 * nv, 4 * nv, 4 * nv};  // zeros, exp(x), their sum
  return a;
}

// The loss's backward and the head's, in op order, after transformers >= 4.46's loss (below).
// Measured in the allocator history of ddp-bf16mixed-sgd (Qwen2.5-0.5B under autocast,
// bench/data/snapshots/h200-2026-11-26.tgz): +2374 +2374 -2374 -2374 +1187 -2374 +260 +32 +7
// -1187 ... +14 -7 MiB. NllLossBackward writes the gradient of the log-softmax output and
// LogSoftmaxBackward that of the fp32 logits; the first goes, then the saved output; the upcast's
// backward (ToCopyBackward) writes the gradient of the logits in their dtype and the fp32 one
// goes. Then the head's matmul: under autocast the gradient of the weight's cast (c·V·h, before
// its own upcast into `.grad`, which the strategy makes), and the gradient of the head's input,
// which under autocast is upcast to the fp32 stream. The 32 MiB between them is the autograd
// thread's cuBLAS workspace, which its first matmul creates (marked `gemm`).
std::vector<forward_step> head_backward_steps(const dims& d, const job::job_spec& job,
                                              std::uint64_t nv, std::uint64_t lv) {
  step_list p(1);  // entry 0: the saved log-softmax output
  const auto nll = p.alloc(4 * nv);
  const auto lsm = p.alloc(4 * nv);
  p.free(nll);
  p.free(0);
  auto logits = lsm;
  if (d.c != 4) {
    logits = p.alloc(d.c * nv);
    p.free(lsm);
  }
  // The weight's gradient comes first (measured: +260 +32 +7 here, +501 +32 +16 for
  // Llama-3.2-1B under FSDP1); under autocast it is the cast's, else the strategy's own.
  const bool trains = !job.lora.enabled;
  if (trains && d.r != d.c) p.alloc(d.c * lv * d.h, true);  // the cast's gradient
  if (trains && d.r == d.c) p.gemm();
  const auto input = p.alloc(d.c * d.n * d.h, !trains);
  p.free(logits);
  if (d.r != d.c) {
    p.alloc(d.r * d.n * d.h);
    p.free(input);
  }
  return std::move(p.steps);
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
  unit_activations a;
  const bool sharded_head = d.tp > 1 && job.parallel.tp_head;
  const bool vocab_parallel = job.vocab_parallel_loss(static_cast<int>(d.tp));
  const bool whole_logits = d.tp > 1 && !vocab_parallel;
  const std::uint64_t lv = sharded_head ? s.vocab / d.tp : s.vocab;  // the rank's rows of the head
  const std::uint64_t v = whole_logits ? s.vocab : lv;
  const std::uint64_t nv = d.n * v;
  if (job.training.loss == job::loss_impl::liger_fused) {  // on the rank's part of the head
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
  if (job.training.loss == job::loss_impl::chunked)
    return chunked_head(d, v, job.training.loss_chunks, job.training.compile_loss);
  if (job.training.loss == job::loss_impl::litgpt) {
    // LitGPT's fine-tuning step (finetune/lora.py: model(input_ids, lm_head_chunk_size=128),
    // then utils.chunked_cross_entropy): the head runs on 128-token slices of each sequence. The
    // model is a Fabric module, and Fabric converts every floating-point output of forward to
    // the default dtype, fp32 (lightning/fabric/plugins/precision/half.py and amp.py,
    // convert_output; wrapper.py _FabricModule.forward): the list of fp32 slices lives through
    // backward, and cross-entropy per slice saves its fp32 log-softmax output. The slices in
    // the compute dtype die when the converted list replaces them, before the loss allocates
    // anything, so they never sit beside the log-softmax outputs and add no peak. Backward
    // handles one slice at a time: the fp32 gradients of its log-softmax output and input,
    // then the gradient of the conversion in the compute dtype.
    const std::uint64_t slice = d.batch * std::min<std::uint64_t>(128, d.seq) * v;
    a.saved.push_back(4 * nv);  // the fp32 logit slices
    a.saved.push_back(4 * nv);  // their log-softmax outputs
    a.backward_temps.insert(a.backward_temps.end(), {4 * slice, 4 * slice});
    if (d.c != 4) a.backward_temps.push_back(d.c * slice);
    return a;
  }
  if (job.framework.name == "jax") {  // predict/jax_plan.cpp plans its step as FSDP2
    // One compiled XLA program: its buffer assignment, not a Python loop, decides what lives.
    // The harness's JAX step (bench/groundtruth/jax_model.py) measured within 1 % of the logits
    // in the compute dtype and the fp32 log-softmax output held through backward, with the
    // gradients of both beside them (bench/data/smoke-h100.jsonl).
    a.saved.insert(a.saved.end(), {d.c * nv, 4 * nv});
    a.forward_temps.push_back(4 * nv);
    a.backward_temps.insert(a.backward_temps.end(), {4 * nv, 4 * nv, d.c * nv});
    return a;
  }
  // A PyTorch training loop keeps only the loss: Trainer.compute_loss returns `outputs["loss"]`
  // and drops the output object, Lightning steps return the loss, and torchtitan's step does
  // `del pred` before backward; so the logits live through the loss's forward only.
  // transformers >= 4.46 casts them to fp32 inside the loss (loss_utils.ForCausalLMLoss:
  // `logits.float()`, then cross_entropy over pre-shifted labels); earlier versions return fp32
  // logits from the model and the loss takes a shifted contiguous copy. Either way
  // cross_entropy saves its fp32 log-softmax output. In backward the NLL gradient and the
  // log-softmax gradient (fp32) coexist with that output; the gradient of the cast (or of the
  // shift) comes once the NLL gradient and the saved output are freed, so it adds no peak.
  // Measured on an H100 (bench/data/full-h100.jsonl, transformers 5.17): planning the logits
  // as kept through backward and the cast's gradient beside the fp32 ones over-predicted the
  // allocated peak of every bf16 case by 3.8 bytes per logit.
  // torchtitan's loss compiled (training.compile_loss; components/loss.py,
  // build_cross_entropy_loss: torch.compile of cross_entropy(pred.flatten(0, 1).float(), labels)):
  // the upcast and the log-softmax fuse into the kernel, the partitioner keeps the bf16 logits it
  // was given and each row's log-sum-exp, and backward writes the logits' gradient in their dtype.
  // A compiled plain cross-entropy of the other loops is planned as eager (torchtune's model
  // hands the loss fp32 logits, which it keeps as the eager loss keeps its fp32 output).
  if (job.training.loss == job::loss_impl::torchtitan && job.training.compile_loss) {
    a.saved.insert(a.saved.end(), {d.c * nv, 4 * d.n});  // logits, log-sum-exp per row
    a.backward_temps.push_back(d.c * nv);                 // their gradient
    return a;
  }
  if (vocab_parallel && job.parallel.kind != job::strategy::megatron) return loss_parallel(d.c, nv);
  if (sharded_head && whole_logits) {
    // Shard_(-1) -> Replicate: the all-gather stacks the shards on dim 0 (tp x the shard), and
    // their concatenation on the vocabulary is the logits
    // (torch/distributed/tensor/_redistribute.py, _collective_utils.py).
    const std::uint64_t shard = d.n * ceil_div(s.vocab, d.tp);
    a.gathered_from = {d.c * shard, d.c * shard * d.tp};
  }
  const bool old_loss = job.framework.transformers < std::string("4.46") &&
                        job.framework.transformers.size() >= 4 &&
                        job.framework.transformers.rfind("4.", 0) == 0;
  a.saved.push_back(4 * nv);  // log-softmax output, computed from the logits below
  if (old_loss)
    a.saved_from.insert(a.saved_from.end(), {4 * nv, 4 * nv});  // fp32 logits, shifted copy
  else if (d.c != 4)
    a.saved_from.insert(a.saved_from.end(), {d.c * nv, 4 * nv});  // logits, fp32 upcast
  else
    a.saved_from.push_back(4 * nv);  // fp32 logits: `float()` returns the same tensor
  a.backward_temps.insert(a.backward_temps.end(), {4 * nv, 4 * nv});
  if (d.tp == 1 && !old_loss) a.backward_steps = head_backward_steps(d, job, nv, lv);
  return a;
}

}  // namespace

unit_activations activations_for(model::unit_kind kind, const model::stack_shape& s,
                                 const job::job_spec& job, token_shape t, int tp,
                                 const saved_inputs& inputs) {
  dims d{};
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
  d.res = tensor_parallel_sequence(job) ? d.tp : 1;
  d.local_inputs = d.res > 1 && job.parallel.kind == job::strategy::megatron;
  d.litgpt = job.training.model_code == job::model_impl::litgpt;
  // lit-gpt 6178c7cc ("Half precision fixes", 2023-10-24) made RMSNorm.forward upcast its input
  // (`x = x.float()`) and cast the normalised value back, as transformers' RMSNorm does; every
  // litgpt release has it (litgpt/model.py RMSNorm at 0.4.x).
  d.litgpt_bf16_norm = d.litgpt && job.framework.litgpt.empty();
  d.mean_saves = version_number(job.framework.version) < version_number("2.2");
  unit_activations a;
  switch (kind) {
    case model::unit_kind::block:
    case model::unit_kind::vision_block: return block(d, s, job, inputs);
    case model::unit_kind::embedding:
      a.saved.push_back(8 * d.n);  // int64 token ids
      a.checkpoint_input = 8 * d.n;
      return a;
    case model::unit_kind::norm:
      add_norm(a.saved, d, s, job.training.liger_kernels, inputs.norm_weights, inputs.head);
      a.saved_by_head = inputs.head ? 1 : 0;
      if (!d.litgpt && !s.layer_norm && !job.training.liger_kernels && !job.training.compile &&
          d.c == 2 && d.res == 1 && job.framework.name != "jax")
        a.forward_in_order = rms_norm_unit_steps(d, inputs.norm_weights, inputs.head);
      return a;
    case model::unit_kind::head:  // called by the step driver for the loss stage
      if (s.vocab > 0) return head(d, s, job);
      return a;
    default:
      return a;
  }
}

}  // namespace vramscope::schedule
