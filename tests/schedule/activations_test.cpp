// What the activation model saves for the block shapes and losses the families and jobs differ
// in: LayerNorm vs RMSNorm, parallel blocks, composite activation functions, residual dropout,
// eager-only attention and its dropout, cross-attention, and LitGPT's sliced loss.
#include "schedule/activations.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace vramscope::schedule {
namespace {

// A GPT-NeoX-like stack: hidden 1024, MLP 4096, plain GELU MLP, 16 heads.
model::stack_shape plain_stack() {
  model::stack_shape s;
  s.family = "test";
  s.hidden = 1024;
  s.intermediate = 4096;
  s.layers = 2;
  s.heads = 16;
  s.kv_heads = 16;
  s.head_dim = 64;
  s.vocab = 50000;
  s.gated_mlp = false;
  return s;
}

bytes saved_by(model::unit_kind kind, const model::stack_shape& s, const job::job_spec& job,
               token_shape t = {1, 1000}, saved_inputs in = {}) {
  const auto a = activations_for(kind, s, job, t, 1, in);
  return std::accumulate(a.saved.begin(), a.saved.end(), bytes{0});
}

// Transformer Engine's float8 linears (Megatron-LM, --fp8-format) keep the quantized copy of
// their input for the weight gradient: the q/k/v and fc1 inputs (the norms' outputs) and the fc2
// input at one byte a value instead of two, and the attention output projection a float8 copy
// beside the bf16 output the flash kernel keeps. MXFP8 adds an e8m0 scale per 32 values,
// blockwise an fp32 scale per 128.
TEST(Activations, TransformerEngineFloat8KeepsQuantizedLinearInputs) {
  const auto s = plain_stack();
  job::job_spec job;
  job.parallel.kind = job::strategy::megatron;
  const std::uint64_t n = 1000, h = 1024, i = 4096;
  const auto block = [&] { return saved_by(model::unit_kind::block, s, job, {1, n}); };
  const bytes bf16 = block();
  job.precision.float8 = job::float8_recipe::tensorwise;
  // qkv and fc1 inputs: 2nh -> nh each; o: + nh; fc2 input: 2ni -> ni.
  EXPECT_EQ(bf16 - block(), 2 * n * h - n * h + n * i);
  job.precision.float8 = job::float8_recipe::mxfp8;
  const bytes scales = 2 * (n * h / 32) + n * h / 32 + n * i / 32;
  EXPECT_EQ(bf16 - block(), 2 * n * h - n * h + n * i - scales);
  job.precision.float8 = job::float8_recipe::blockwise;
  const bytes block_scales = 4 * (2 * (n * h / 128) + n * h / 128 + n * i / 128);
  EXPECT_EQ(bf16 - block(), 2 * n * h - n * h + n * i - block_scales);
  // torchao's Float8Linear (any other strategy) saves its input in high precision.
  job.parallel.kind = job::strategy::fsdp2;
  job.precision.float8 = job::float8_recipe::tensorwise;
  const bytes torchao = block();
  job.precision.float8 = job::float8_recipe::none;
  EXPECT_EQ(torchao, block());
}

// A mixture of experts: 8 experts, 2 per token, gated. Dropless, the experts take
// tokens x top-k rows; Megatron's capacity (ceil(tokens x top-k / experts x factor) an expert)
// drops the rows over it and, padded, fills every expert to it.
TEST(Activations, ExpertCapacityCapsOrPadsTheRoutedRows) {
  auto s = plain_stack();
  s.gated_mlp = true;
  s.experts = 8;
  s.experts_per_token = 2;
  job::job_spec job;
  job.parallel.kind = job::strategy::megatron;
  const std::uint64_t n = 1000, h = 1024, i = 4096;
  const auto block = [&] { return saved_by(model::unit_kind::block, s, job, {1, n}); };
  const bytes dropless = block();
  // Per routed row: the gate, up, SiLU and down inputs (4 x 2i) and the experts' input and
  // output copies (2 x 2h).
  const auto per_row = [&](std::uint64_t rows) { return rows * (4 * 2 * i + 2 * 2 * h); };
  job.training.moe_capacity_factor = 1.5;  // capacity 375: the even 250 an expert all fit
  EXPECT_EQ(block(), dropless);
  job.training.moe_pad_to_capacity = true;  // 8 x 375 rows
  EXPECT_EQ(block() - dropless, per_row(8 * 375) - per_row(2 * n));
  job.training.moe_pad_to_capacity = false;
  job.training.moe_capacity_factor = 0.5;  // capacity 125: each expert drops half its 250
  EXPECT_EQ(dropless - block(), per_row(2 * n) - per_row(8 * 125));
  job.training.moe_capacity_factor = 5.0;  // capacity 1250 > 1000 tokens: padded, all of them
  job.training.moe_pad_to_capacity = true;
  EXPECT_EQ(block() - dropless, per_row(8 * n) - per_row(2 * n));
}

TEST(Activations, LayerNormSavesItsInputAsIsNotAnFp32Copy) {
  const job::job_spec job;  // bf16 compute
  auto rms = plain_stack();
  auto ln = plain_stack();
  ln.layer_norm = true;
  const std::uint64_t n = 1000, h = 1024;
  // Per norm: RMSNorm keeps an fp32 copy (4h) + rstd + the normalised bf16 value (2h, the
  // weight trains); LayerNorm keeps its bf16 input (2h) + fp32 mean and rstd.
  const bytes rms_norm = 4 * n * h + 4 * n + 2 * n * h;
  const bytes ln_norm = 2 * n * h + 8 * n;
  EXPECT_EQ(saved_by(model::unit_kind::block, rms, job) - saved_by(model::unit_kind::block, ln, job),
            2 * (rms_norm - ln_norm));
  EXPECT_EQ(saved_by(model::unit_kind::norm, ln, job), ln_norm + 2 * n * h);  // + head input
}

TEST(Activations, ParallelBlocksShareTheNormInput) {
  const job::job_spec job;
  auto seq = plain_stack();
  seq.layer_norm = true;
  auto par = seq;
  par.form = model::block_form::parallel;
  auto shared = seq;
  shared.form = model::block_form::parallel_shared;
  const std::uint64_t n = 1000, h = 1024;
  // Two LayerNorms on one x keep it once; one shared norm also keeps one output and one set
  // of statistics.
  EXPECT_EQ(saved_by(model::unit_kind::block, seq, job) - saved_by(model::unit_kind::block, par, job),
            2 * n * h);
  EXPECT_EQ(saved_by(model::unit_kind::block, par, job) -
                saved_by(model::unit_kind::block, shared, job),
            8 * n + 2 * n * h);
}

TEST(Activations, CompositeActivationsAndResidualDropoutSaveMore) {
  const job::job_spec job;
  auto base = plain_stack();
  auto gelu_new = base;
  gelu_new.activation_saved = 4;
  auto dropout = base;
  dropout.residual_dropout = true;
  const std::uint64_t n = 1000, h = 1024, i = 4096;
  EXPECT_EQ(saved_by(model::unit_kind::block, gelu_new, job) -
                saved_by(model::unit_kind::block, base, job),
            3 * 2 * n * i);
  EXPECT_EQ(saved_by(model::unit_kind::block, dropout, job) -
                saved_by(model::unit_kind::block, base, job),
            2 * n * h);  // two bool masks
}

TEST(Activations, EagerFamiliesMaterialiseTheScoresWhateverTheJobAsks) {
  job::job_spec flash;  // training.attention flash
  job::job_spec eager;
  eager.training.attention = job::attention_impl::eager;
  auto t5 = plain_stack();
  t5.eager_attention = true;  // T5Attention: matmul, + position bias, softmax, matmul
  EXPECT_EQ(saved_by(model::unit_kind::block, t5, flash),
            saved_by(model::unit_kind::block, t5, eager));
  EXPECT_EQ(saved_by(model::unit_kind::block, t5, flash),
            saved_by(model::unit_kind::block, plain_stack(), eager));
  // Attention dropout keeps a bool mask per score where the scores exist, and nothing under
  // a fused kernel.
  auto dropped = t5;
  dropped.attention_dropout = true;
  const std::uint64_t scores = 16 * 1000 * 1000;  // 1 sequence, 16 heads, 1000 x 1000
  EXPECT_EQ(saved_by(model::unit_kind::block, dropped, flash) -
                saved_by(model::unit_kind::block, t5, flash),
            scores);
  auto fused = plain_stack();
  fused.attention_dropout = true;
  EXPECT_EQ(saved_by(model::unit_kind::block, fused, flash),
            saved_by(model::unit_kind::block, plain_stack(), flash));
}

TEST(Activations, CrossAttentionAddsANormAndAnAttentionOverAsManyEncoderTokens) {
  const job::job_spec job;  // bf16, flash
  auto decoder = plain_stack();
  decoder.cross_attention = true;
  const std::uint64_t n = 1000, h = 1024;
  // RMS-style norm: fp32 copy, rstd, the bf16 normalised value, its output kept by q; then q,
  // k, v, the attention output (flash: also o_proj's input) and the fp32 log-sum-exp.
  const bytes norm = 4 * n * h + 4 * n + 2 * n * h + 2 * n * h;
  const bytes attention = 4 * 2 * n * h + 4 * 16 * n;
  EXPECT_EQ(saved_by(model::unit_kind::block, decoder, job) -
                saved_by(model::unit_kind::block, plain_stack(), job),
            norm + attention);
}

TEST(Activations, LitgptLossKeepsFabricsFp32SlicesAndTheirLogSoftmax) {
  job::job_spec job;
  job.training.loss = job::loss_impl::litgpt;
  const auto s = plain_stack();
  const std::uint64_t v = 50000;
  const auto a = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  // Fabric hands back fp32 slices; cross-entropy saves their fp32 log-softmax.
  EXPECT_EQ(a.saved, (std::vector<bytes>{4 * 2000 * v, 4 * 2000 * v}));
  EXPECT_TRUE(a.forward_temps.empty());
  // The bf16 slices exist beside their fp32 conversion and die before the loss runs.
  EXPECT_EQ(a.saved_from, std::vector<bytes>{2 * 2000 * v});
  EXPECT_EQ(a.saved_from_at, 0u);
  // one 128-token slice of each sequence: two fp32 gradients, then the conversion's bf16 one
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{4 * 256 * v, 4 * 256 * v, 2 * 256 * v}));
  job.precision.params = dtype::f32;
  const auto fp32 = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  EXPECT_EQ(fp32.backward_temps.size(), 2u);  // fp32 logits are not converted
  EXPECT_TRUE(fp32.saved_from.empty());
  // The Hugging Face loss keeps only its fp32 log-softmax for backward: the bf16 logits and
  // their fp32 upcast live through forward, and backward holds two fp32 gradients at once.
  job.training.loss = job::loss_impl::hf;
  job.precision.params = dtype::bf16;
  const auto hf = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  EXPECT_EQ(hf.saved, std::vector<bytes>{4 * 2000 * v});
  EXPECT_EQ(hf.saved_from, (std::vector<bytes>{2 * 2000 * v, 4 * 2000 * v}));  // logits, upcast
  EXPECT_TRUE(hf.forward_temps.empty());
  EXPECT_EQ(hf.backward_temps, (std::vector<bytes>{4 * 2000 * v, 4 * 2000 * v}));
}

// A LitGPT head that bitsandbytes quantised: the dequantised weight W exists before the bf16
// slices (and goes once they start), and backward runs every slice's cross-entropy, then every
// conversion, then every slice's matmul with W dequantised again beside the bf16 gradients,
// the fp32 logits still held: the backward's peak is the larger of the cross-entropy's (as
// without quantisation) and 4nv + 2nv + W, never 8nv + W.
TEST(Activations, LitgptQuantisedHeadDequantisesBeforeItsLogitsAndAfterTheConversions) {
  job::job_spec job;
  job.training.loss = job::loss_impl::litgpt;
  const auto s = plain_stack();
  const bytes v = 50000, nv = 2000 * v, slice = 256 * v;
  auto a = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  const bytes w = 4 * 1024 * v;  // fp16 and bf16 copies of a v x 1024 weight
  litgpt_dequantised_head(a, w);
  EXPECT_EQ(a.gathered_from, std::vector<bytes>{w});
  EXPECT_TRUE(a.backward_temps.empty());
  // The backward's steps replayed over the saved tensors: {peak, bytes left when they end}.
  const auto replay = [](const unit_activations& u) {
    std::vector<bytes> list(u.saved.begin(), u.saved.end());
    bytes live = std::accumulate(list.begin(), list.end(), bytes{0});
    bytes peak = live;
    for (const auto& st : u.backward_steps) {
      if (st.alloc > 0) {
        live += st.alloc;
      } else if (!st.gemm) {
        EXPECT_LT(st.index, list.size());
        live -= list[st.index];
        list[st.index] = 0;
      }
      list.push_back(st.alloc);
      peak = std::max(peak, live);
    }
    return std::make_pair(peak, live);
  };
  const bytes cross_entropy = 8 * nv + 4 * slice + 4 * slice + 2 * slice;
  const auto [peak, left] = replay(a);
  EXPECT_EQ(peak, std::max(cross_entropy, 4 * nv + 2 * nv + w));
  EXPECT_EQ(left, 4 * nv);  // the fp32 logits, freed with the rest when the steps end
  // A weight larger than the logits sets the peak at the matmul.
  auto big = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  litgpt_dequantised_head(big, 10 * nv);
  EXPECT_EQ(replay(big).first, 6 * nv + 10 * nv);
  // Quantised from fp16 under bf16, the fp16 weight and its cast are two tensors
  // (dequantize_4bit(B, state).to(A.dtype)), made in that order; the fp16 copy goes before the
  // matmul, the cast after it: the same peak, in two allocations of half the size.
  auto split = activations_for(model::unit_kind::head, s, job, {2, 1000}, 1, {});
  litgpt_dequantised_head(split, 10 * nv, 5 * nv);
  EXPECT_EQ(split.gathered_from, (std::vector<bytes>{5 * nv, 5 * nv}));
  EXPECT_EQ(replay(split).first, 6 * nv + 10 * nv);
  EXPECT_EQ(replay(split).second, 4 * nv);
  std::vector<bytes> weight_allocs;
  for (const auto& st : split.backward_steps)
    if (st.alloc == 5 * nv) weight_allocs.push_back(st.alloc);
  EXPECT_EQ(weight_allocs.size(), 2u);
}

// LitGPT's GPT class (lit_gpt/model.py, lit_gpt/rmsnorm.py), a Llama-shaped block of hidden
// 1024, 16 heads of 64, MLP 4096, 1000 tokens, bf16, frozen weights (LoRA: nothing but the
// adapters' inputs, which the layout counts). By hand, per block:
//   HF:     2 RMSNorms, fp32 input 4Nh + rsqrt 4N each; q, k, v, out 2Nh each + logsumexp
//           4·16·N; gate, up, SiLU(gate) 2NI each
//   LitGPT: 2 RMSNorms, input 2Nh + x*x 2Nh (torch < 2.2) + rsqrt 2N each; q, k 2Nh each, the
//           fused qkv output 3·2Nh (v is a view of it), out 2Nh + logsumexp; the same MLP
TEST(Activations, LitgptKeepsTheFusedQkvOutputAndItsRmsNormsBf16Tensors) {
  auto s = plain_stack();
  s.gated_mlp = true;
  job::job_spec hf;
  hf.framework.version = "2.1";
  job::job_spec lit = hf;
  lit.training.model_code = job::model_impl::litgpt;
  const std::uint64_t n = 1000, h = 1024, i = 4096;
  saved_inputs frozen{false, false, false, false, false, false};
  const bytes mlp = 3 * 2 * n * i;
  const bytes lse = 4 * 16 * n;
  const bytes hf_block = 2 * (4 * n * h + 4 * n) + 4 * 2 * n * h + lse + mlp;
  const bytes lit_block = 2 * (2 * n * h + 2 * n * h + 2 * n) + 2 * 2 * n * h + 3 * 2 * n * h +
                          2 * n * h + lse + mlp;
  EXPECT_EQ(saved_by(model::unit_kind::block, s, hf, {1, n}, frozen), hf_block);
  EXPECT_EQ(saved_by(model::unit_kind::block, s, lit, {1, n}, frozen), lit_block);
  // torch 2.2 stops keeping mean's input (pytorch#109935): 2Nh less per norm.
  lit.framework.version = "2.2";
  EXPECT_EQ(saved_by(model::unit_kind::block, s, lit, {1, n}, frozen), lit_block - 2 * 2 * n * h);
  // Grouped queries (4 key/value heads): LitGPT repeats k and v with expand + reshape, copies
  // of all 16 heads, and the fused output is no longer kept.
  auto gqa = s;
  gqa.kv_heads = 4;
  lit.framework.version = "2.1";
  EXPECT_EQ(saved_by(model::unit_kind::block, gqa, lit, {1, n}, frozen), lit_block - 3 * 2 * n * h + 2 * n * h);
  // LayerNorm models keep the same norm tensors as under the HF layout.
  auto ln = plain_stack();
  ln.layer_norm = true;
  EXPECT_EQ(saved_by(model::unit_kind::block, ln, lit, {1, n}, frozen) -
                saved_by(model::unit_kind::block, ln, hf, {1, n}, frozen),
            3 * 2 * n * h - 2 * n * h);  // only the fused qkv output in place of v
}

// LitGPT writes out a soft-capped attention (Gemma 2's attn_logit_softcapping; litgpt/model.py,
// CausalSelfAttention.scaled_dot_product_attention): tanh keeps its 16-bit output beside the fp32
// softmax and the 16-bit probabilities, one tensor of the scores' shape more than the same eager
// attention without soft-capping. 1 sequence x 16 heads x 1000 x 1000 scores.
TEST(Activations, LitgptSoftCappedAttentionKeepsItsTanhOutput) {
  job::job_spec lit;
  lit.training.model_code = job::model_impl::litgpt;
  lit.training.attention = job::attention_impl::eager;
  lit.framework.version = "2.2";
  lit.framework.litgpt = "0.4";
  auto capped = plain_stack();
  capped.attention_softcapping = true;
  const std::uint64_t n = 1000, scores = 16 * n * n;
  const auto block = [&](const model::stack_shape& s, const job::job_spec& job) {
    return saved_by(model::unit_kind::block, s, job, {1, n});
  };
  EXPECT_EQ(block(capped, lit) - block(plain_stack(), lit), 2 * scores);
  // Without soft-capping LitGPT calls SDPA, which the job names; transformers' code is planned
  // as before whatever the config says.
  auto hf = lit;
  hf.training.model_code = job::model_impl::hf;
  EXPECT_EQ(block(capped, hf), block(plain_stack(), hf));
}

// torch.compile fuses the pointwise chains: norms keep their input and rstd and a gated MLP its
// two projections' outputs, as Liger's kernels do; a composite activation keeps its input only.
// lit-gpt 6178c7cc (2023-10-24) made RMSNorm upcast its input to fp32, as transformers' does:
// a litgpt release (framework.litgpt given) keeps the fp32 copy of each norm's input where the
// October 2023 lit-gpt kept it in the stream's dtype. Two norms a block, weights frozen (LoRA).
TEST(Activations, LitgptReleasesKeepTheirRmsNormsFp32Input) {
  job::job_spec old_litgpt;
  old_litgpt.training.model_code = job::model_impl::litgpt;
  old_litgpt.framework.version = "2.2";
  auto release = old_litgpt;
  release.framework.litgpt = "0.4";
  job::job_spec hf = release;
  hf.training.model_code = job::model_impl::hf;
  const auto s = plain_stack();
  saved_inputs frozen;
  frozen.norm_weights = false;
  const std::uint64_t n = 1000, h = 1024;
  const auto block = [&](const job::job_spec& job) {
    return saved_by(model::unit_kind::block, s, job, {1, n}, frozen);
  };
  // Per norm: the fp32 input and fp32 rsqrt (4nh + 4n) where lit-gpt kept both in bf16.
  EXPECT_EQ(block(release) - block(old_litgpt), 2 * (4 * n * h + 4 * n - (2 * n * h + 2 * n)));
  // The norms are then transformers' (the rest of the block is still LitGPT's).
  auto norm_only = [&](const job::job_spec& job) {
    return saved_by(model::unit_kind::norm, s, job, {1, n}, frozen);
  };
  EXPECT_EQ(norm_only(release), norm_only(hf));
}

TEST(Activations, CompileSavesWhatFusedKernelsSave) {
  model::stack_shape gated = plain_stack();
  gated.gated_mlp = true;
  job::job_spec eager, compiled, liger;
  compiled.training.compile = true;
  liger.training.liger_kernels = true;
  const auto block = model::unit_kind::block;
  EXPECT_EQ(saved_by(block, gated, compiled), saved_by(block, gated, liger));
  EXPECT_LT(saved_by(block, gated, compiled), saved_by(block, gated, eager));
  // Per 1000 tokens: each RMSNorm keeps its bf16 input (2 bytes x 1024) instead of its fp32
  // copy and bf16 output (6 x 1024), and the MLP loses its SiLU output (2 bytes x 4096).
  EXPECT_EQ(saved_by(block, gated, eager) - saved_by(block, gated, compiled),
            1000u * (2 * 4 * 1024 + 2 * 4096));
  model::stack_shape composite = plain_stack();
  composite.activation_saved = 4;  // gelu_new: a chain of Python-level ops
  EXPECT_EQ(saved_by(block, composite, eager) - saved_by(block, composite, compiled),
            1000u * (2 * 4 * 1024 + 3 * 2 * 4096));
}

// Flash and memory-efficient attention write (batch, seq, heads, dim), so o_proj's
// `transpose(1, 2).contiguous()` input is the kernel's output itself; after math or eager
// attention it is a copy.
TEST(Activations, OProjKeepsItsOwnCopyOnlyAfterMathOrEagerAttention) {
  const auto block = model::unit_kind::block;
  saved_inputs frozen_o;
  frozen_o.o = false;
  for (const auto kernel : {job::attention_impl::flash, job::attention_impl::efficient}) {
    job::job_spec job;
    job.training.attention = kernel;
    EXPECT_EQ(saved_by(block, plain_stack(), job, {1, 1000}, {}),
              saved_by(block, plain_stack(), job, {1, 1000}, frozen_o));
  }
  for (const auto kernel : {job::attention_impl::math, job::attention_impl::eager}) {
    job::job_spec job;
    job.training.attention = kernel;
    EXPECT_EQ(saved_by(block, plain_stack(), job, {1, 1000}, {}) -
                  saved_by(block, plain_stack(), job, {1, 1000}, frozen_o),
              2u * 1000 * 1024);
  }
}

// Under autocast over fp32 weights the residual stream is fp32: the RMSNorm's weight multiply
// keeps an fp32 normalised value, and every projection reading the norm's output keeps its own
// bf16 cast of it (q, k, v: three; gate, up: two).
TEST(Activations, AutocastKeepsAnFp32NormAndOneCastPerProjection) {
  model::stack_shape llama = plain_stack();
  llama.gated_mlp = true;
  job::job_spec pure, mixed;
  mixed.precision.autocast = true;  // params bf16, master fp32 (the defaults)
  saved_inputs separate;
  separate.qkv_readers = 3;
  separate.mlp_readers = 2;
  const auto block = model::unit_kind::block;
  const bytes nh = 1000u * 1024;
  // Without autocast the readers share one bf16 output.
  EXPECT_EQ(saved_by(block, llama, pure, {1, 1000}, separate), saved_by(block, llama, pure));
  // Two norms each keep 2 more bytes per value (fp32 normalised value), and 2 + 1 more casts.
  EXPECT_EQ(saved_by(block, llama, mixed, {1, 1000}, separate) - saved_by(block, llama, pure),
            2 * 2 * nh + 3 * 2 * nh);
  // A fused qkv and gate_up (one reader each, or unknown) keep one cast.
  EXPECT_EQ(saved_by(block, llama, mixed) - saved_by(block, llama, pure), 2 * 2 * nh);
  // Compiled blocks are planned as fused kernels: one cast, whatever reads it.
  job::job_spec compiled = mixed;
  compiled.training.compile = true;
  EXPECT_EQ(saved_by(block, llama, compiled, {1, 1000}, separate), saved_by(block, llama, compiled));
}

// torchtune's MultiHeadAttention copies grouped keys and values to every head
// (`expand(...).flatten(1, 2)`) before the kernel, which keeps the copies: with 4 key/value
// heads for 16 query heads a block keeps 2 x (16 - 4) heads x 64 x 2 bytes more a token than
// transformers' layer under flash, which takes the grouped ones as they are.
TEST(Activations, TorchtuneKeepsKeysAndValuesRepeatedToEveryHead) {
  auto s = plain_stack();
  s.kv_heads = 4;
  job::job_spec hf, tt;
  tt.training.model_code = job::model_impl::torchtune;
  const auto block = model::unit_kind::block;
  const std::uint64_t n = 1000;
  EXPECT_EQ(saved_by(block, s, tt, {1, n}) - saved_by(block, s, hf, {1, n}), 2u * n * 12 * 64 * 2);
  s.kv_heads = 16;  // one key/value head a query head: nothing to repeat
  EXPECT_EQ(saved_by(block, s, tt, {1, n}), saved_by(block, s, hf, {1, n}));
}

// torchtune compiles the chunked loss's per-chunk cross-entropy: each chunk keeps its logits
// (alive anyway) and its rows' log-sum-exp, not its fp32 log-softmax.
TEST(Activations, CompiledChunkedLossKeepsTheLogSumExpNotTheLogSoftmax) {
  job::job_spec eager, compiled;
  eager.training.loss = compiled.training.loss = job::loss_impl::chunked;
  eager.training.loss_chunks = compiled.training.loss_chunks = 8;
  compiled.training.compile_loss = true;
  const auto head = model::unit_kind::head;
  const token_shape t{2, 4096};
  const model::stack_shape s = plain_stack();  // vocabulary 50000
  EXPECT_EQ(saved_by(head, s, eager, t), 4u * 2 * 4096 * 50000);  // fp32 log-softmax of each chunk
  EXPECT_EQ(saved_by(head, s, compiled, t), 4u * 2 * 4096);       // fp32 log-sum-exp of each row
  const auto a = activations_for(head, s, compiled, t, 1, saved_inputs{});
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{2u * 2 * 512 * 50000}));  // one chunk's gradient, bf16
}

// torchtitan's compiled loss (cross_entropy of the bf16 logits upcast inside the compiled
// function) keeps the logits it was given and the rows' log-sum-exp; backward writes a bf16
// gradient. Eager, it keeps the fp32 log-softmax and holds two fp32 gradients in backward.
TEST(Activations, CompiledTorchtitanLossKeepsTheBf16LogitsAndTheLogSumExp) {
  job::job_spec eager, compiled;
  eager.training.loss = compiled.training.loss = job::loss_impl::torchtitan;
  compiled.training.compile_loss = true;
  const auto head = model::unit_kind::head;
  const token_shape t{2, 4096};
  const model::stack_shape s = plain_stack();  // vocabulary 50000
  const bytes logits = 2u * 4096 * 50000;
  EXPECT_EQ(saved_by(head, s, eager, t), 4u * logits);
  EXPECT_EQ(saved_by(head, s, compiled, t), 2u * logits + 4u * 2 * 4096);
  const auto a = activations_for(head, s, compiled, t, 1, saved_inputs{});
  EXPECT_TRUE(a.forward_temps.empty());
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{2u * logits}));
  // The other loops' plain cross-entropy is planned as eager.
  job::job_spec hf = compiled;
  hf.training.loss = job::loss_impl::hf;
  EXPECT_EQ(saved_by(head, s, hf, t), 4u * logits);
}

// torchtitan's loss under tensor parallelism runs in loss_parallel(): DTensor's handlers
// (torch/distributed/tensor/parallel/loss.py) on the vocabulary-sharded logits. Forward keeps
// `shifted` until the log-softmax result exists and takes `exp(shifted)` for the sum; backward
// holds `zeros_like(x)`, `exp(x)` and their sum beside the saved output: 16 bytes a local logit
// where the fused kernels hold 12. TN11's rank: 16 x 8192 tokens, 128256 / 8 = 16032 logits each.
TEST(Activations, TorchtitanLossParallelHoldsTheShiftedLogitsAndThreeGradientTemporaries) {
  job::job_spec titan;
  titan.training.loss = job::loss_impl::torchtitan;
  auto s = plain_stack();
  s.vocab = 128256;
  const token_shape t{16, 8192};
  const bytes local = 16ull * 8192 * 16032;  // 2,101,346,304 logits a rank
  const auto a = activations_for(model::unit_kind::head, s, titan, t, 8, saved_inputs{});
  EXPECT_EQ(a.saved_from, (std::vector<bytes>{2 * local, 4 * local, 4 * local}));
  EXPECT_EQ(a.saved_scratch, (std::vector<bytes>{4 * local}));
  EXPECT_EQ(a.saved, (std::vector<bytes>{4 * local}));  // 7.83 GiB
  EXPECT_EQ(a.saved.front(), bytes{8'405'385'216});
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{4 * local, 4 * local, 4 * local}));
  // Without tensor parallelism the eager kernels run: no scratch, two fp32 gradients.
  const auto one = activations_for(model::unit_kind::head, s, titan, t, 1, saved_inputs{});
  EXPECT_TRUE(one.saved_scratch.empty());
  EXPECT_EQ(one.backward_temps.size(), 2u);
}

// loss_parallel decides whether the logits stay sharded: torchtitan's loss keeps them sharded
// unless parallel.loss_parallel is false (its disable_loss_parallel); a plain loss gathers
// them unless it is true.
TEST(Activations, LossParallelDecidesWhetherTheLogitsStaySharded) {
  auto s = plain_stack();
  const token_shape t{1, 1000};
  const bytes whole = 1000ull * 50000, local = whole / 4;
  job::job_spec titan;
  titan.parallel.tp = 4;
  titan.training.loss = job::loss_impl::torchtitan;
  EXPECT_EQ(activations_for(model::unit_kind::head, s, titan, t, 4, {}).saved,
            (std::vector<bytes>{4 * local}));
  titan.parallel.loss_parallel = false;
  const auto gathered = activations_for(model::unit_kind::head, s, titan, t, 4, {});
  EXPECT_EQ(gathered.saved, (std::vector<bytes>{4 * whole}));
  EXPECT_EQ(gathered.gathered_from, (std::vector<bytes>{2 * local, 2 * whole}));
  EXPECT_TRUE(gathered.saved_scratch.empty());
  job::job_spec hf;
  hf.parallel.tp = 4;
  EXPECT_EQ(activations_for(model::unit_kind::head, s, hf, t, 4, {}).saved,
            (std::vector<bytes>{4 * whole}));
  hf.parallel.loss_parallel = true;
  EXPECT_EQ(activations_for(model::unit_kind::head, s, hf, t, 4, {}).saved,
            (std::vector<bytes>{4 * local}));
  // Megatron's vocabulary-parallel cross-entropy keeps the shards, without a gather.
  job::job_spec megatron;
  megatron.parallel.tp = 4;
  megatron.parallel.kind = job::strategy::megatron;
  const auto m = activations_for(model::unit_kind::head, s, megatron, t, 4, {});
  EXPECT_EQ(m.saved, (std::vector<bytes>{4 * local}));
  EXPECT_TRUE(m.gathered_from.empty());
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

model::stack_shape llama_stack() {
  auto s = plain_stack();
  s.family = "llama";
  s.gated_mlp = true;
  s.kv_heads = 4;
  return s;
}

// Live bytes over a checkpointed forward's steps: {peak, still allocated at the end}.
std::pair<bytes, bytes> run(const unit_activations& a) {
  std::vector<bytes> sizes;
  bytes live = 0, peak = 0;
  for (const auto& st : a.checkpointed_forward) {
    sizes.push_back(st.alloc);
    live += st.alloc;
    if (st.alloc == 0) live -= sizes[st.index];
    peak = std::max(peak, live);
  }
  return {peak, live};
}

// Under full checkpointing a Llama block's first forward keeps nothing for backward, so each
// intermediate goes with its last reference (modeling_llama.py; the allocator history of
// fsdp2-llama8b-fullac-seq8192, bench/data/snapshots/h200-2026-11-26b.tgz: 224 MiB up to three
// at a time in the MLP). The most alive at once is the MLP's: SiLU(gate), up and their product
// beside the attention's residual sum and the second norm's output.
TEST(Activations, CheckpointedLlamaBlockFreesEachIntermediateAfterItsLastUse) {
  job::job_spec job;  // bf16, flash
  job.training.activation_checkpointing = job::checkpointing::full;
  const std::uint64_t n = 1000, h = 1024, i = 4096;
  const auto a = activations_for(model::unit_kind::block, llama_stack(), job, {1, n}, 1, {});
  ASSERT_FALSE(a.checkpointed_forward.empty());
  const auto [peak, left] = run(a);
  EXPECT_EQ(peak, 2 * (2 * n * h) + 3 * (2 * n * i));
  EXPECT_EQ(left, 2 * n * h);  // the block's output, the next block's input
  EXPECT_EQ(a.checkpointed_forward[a.checkpoint_output].alloc, 2 * n * h);
}

// Only the code the steps transcribe: not under autocast (an fp32 residual stream), LoRA or
// another family's block.
TEST(Activations, CheckpointedStepsOnlyForTheLlamaBlockTheyFollow) {
  job::job_spec job;
  job.training.activation_checkpointing = job::checkpointing::full;
  auto steps = [&](const job::job_spec& j, const model::stack_shape& s) {
    return activations_for(model::unit_kind::block, s, j, {1, 1000}, 1, {})
        .checkpointed_forward.size();
  };
  EXPECT_GT(steps(job, llama_stack()), 0u);
  EXPECT_EQ(steps(job, plain_stack()), 0u);
  auto autocast = job;
  autocast.precision.autocast = true;
  EXPECT_EQ(steps(autocast, llama_stack()), 0u);
  auto lora = job;
  lora.lora.enabled = true;
  EXPECT_EQ(steps(lora, llama_stack()), 0u);
  auto selective = job;
  selective.training.activation_checkpointing = job::checkpointing::selective;
  EXPECT_EQ(steps(selective, llama_stack()), 0u);
  // Full recompute of some blocks only: each block is planned as a whole.
  auto first_blocks = job;
  first_blocks.training.checkpoint_blocks = 1;
  EXPECT_EQ(steps(first_blocks, llama_stack()), 0u);
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

// A forward or backward run op by op: the most alive at once, what is still allocated at the
// end (the weights' casts apart) and the casts. `start` are the entries the list begins with.
struct in_order_run {
  bytes peak = 0, kept = 0, casts = 0;
  std::vector<bytes> allocations;  // in order, the casts left out
};

in_order_run run_in_order(const std::vector<forward_step>& steps, std::vector<bytes> start = {}) {
  in_order_run r;
  std::vector<bytes> sizes = start;
  std::vector<bool> cast(start.size(), false), live(start.size(), true);
  bytes now = std::accumulate(start.begin(), start.end(), bytes{0});
  r.peak = now;
  for (const auto& st : steps) {
    sizes.push_back(st.alloc);
    cast.push_back(st.weight_cast);
    live.push_back(st.alloc > 0);
    if (st.alloc > 0) {
      now += st.alloc;
      if (!st.weight_cast) r.allocations.push_back(st.alloc);
    } else if (!st.gemm) {
      now -= sizes[st.index];
      live[st.index] = false;
    }
    r.peak = std::max(r.peak, now);
  }
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (live[k]) (cast[k] ? r.casts : r.kept) += sizes[k];
  return r;
}

// Under autocast a Llama / Qwen2 block runs op by op (the allocator history of
// ddp-bf16mixed-sgd): the fp32 stream, the norm's square gone after the mean, each weight cast
// before its input's cast, RoPE's fp32 products with cos and sin, the residual sums. What is
// left at the end is what the block saves, and the casts are every matrix in bf16.
TEST(Activations, AutocastLlamaBlockRunsOpByOpAndKeepsWhatItSaves) {
  job::job_spec job;
  job.parallel.kind = job::strategy::ddp;
  job.precision.autocast = true;
  saved_inputs separate;
  separate.qkv_readers = 3;
  separate.mlp_readers = 2;
  const std::uint64_t n = 1000, h = 1024, i = 4096, kv = 4 * 64;
  const auto a = activations_for(model::unit_kind::block, llama_stack(), job, {1, n}, 1, separate);
  ASSERT_FALSE(a.forward_in_order.empty());
  const auto r = run_in_order(a.forward_in_order);
  EXPECT_EQ(r.kept, std::accumulate(a.saved.begin(), a.saved.end(), bytes{0}));
  EXPECT_EQ(r.casts, 2 * (2 * h * h + 2 * kv * h + 3 * i * h));
  // The block's fp32 input, then the rotary embedding's matmul (the model's first).
  EXPECT_EQ(a.forward_in_order[0].alloc, 4 * n * h);
  EXPECT_TRUE(a.forward_in_order[1].gemm);
  // q's projection: its weight's cast, its input's cast, its output.
  const auto q_cast = std::find_if(a.forward_in_order.begin(), a.forward_in_order.end(),
                                   [](const forward_step& st) { return st.weight_cast; });
  ASSERT_NE(q_cast, a.forward_in_order.end());
  EXPECT_EQ(q_cast->alloc, 2 * h * h);
  EXPECT_EQ(q_cast[1].alloc, 2 * n * h);
  EXPECT_EQ(q_cast[2].alloc, 2 * n * h);
  // At most: the saved tensors so far, the norm's output, RoPE's fp32 products (three of q's
  // at once) and q and k themselves.
  EXPECT_GT(r.peak, r.kept + r.casts);
  // Not without autocast, under a strategy that plans no autocast, or with fused readers.
  auto pure = job;
  pure.precision.autocast = false;
  EXPECT_TRUE(activations_for(model::unit_kind::block, llama_stack(), pure, {1, n}, 1, separate)
                  .forward_in_order.empty());
  auto fsdp = job;
  fsdp.parallel.kind = job::strategy::fsdp2;
  EXPECT_TRUE(activations_for(model::unit_kind::block, llama_stack(), fsdp, {1, n}, 1, separate)
                  .forward_in_order.empty());
  EXPECT_TRUE(activations_for(model::unit_kind::block, llama_stack(), job, {1, n}, 1, {})
                  .forward_in_order.empty());
}

// Eager attention's scores in op order, as the allocator histories of fsdp2-eager (bf16) and
// ddp-bf16mixed-eager (autocast) show them: the scaled and masked copies, softmax's fp32 upcast
// of a 16-bit input, the kept fp32 output, the kept probabilities in the compute dtype.
TEST(Activations, EagerAttentionMakesItsScoresInOpOrder) {
  const std::uint64_t seq = 256, scores = 2 * 16 * seq * seq;  // 2 sequences, 16 heads
  // The steps as signed sizes (a free as minus the size it frees), and the kept bytes.
  const auto signed_steps = [](const unit_activations& a) {
    std::vector<long long> out;
    for (const auto& st : a.saved_steps)
      out.push_back(st.alloc > 0 ? static_cast<long long>(st.alloc)
                                 : -static_cast<long long>(a.saved_steps[st.index].alloc));
    return out;
  };
  const auto kept_at_steps = [](const unit_activations& a, std::size_t count) {
    return std::accumulate(a.saved.begin() + static_cast<std::ptrdiff_t>(a.saved_steps_at),
                           a.saved.begin() + static_cast<std::ptrdiff_t>(a.saved_steps_at + count),
                           bytes{0});
  };
  const long long S = static_cast<long long>(scores);
  job::job_spec bf16;
  bf16.training.attention = job::attention_impl::eager;
  const auto a = activations_for(model::unit_kind::block, llama_stack(), bf16, {2, seq}, 1, {});
  EXPECT_EQ(signed_steps(a),
            (std::vector<long long>{2 * S, 2 * S, -2 * S, 2 * S, -2 * S, 4 * S, 4 * S, -4 * S,
                                    2 * S, -2 * S}));
  EXPECT_EQ(kept_at_steps(a, 2), 6 * scores);  // the fp32 softmax output and its bf16 cast
  auto autocast = bf16;
  autocast.parallel.kind = job::strategy::ddp;
  autocast.precision.autocast = true;
  const auto b = activations_for(model::unit_kind::block, llama_stack(), autocast, {2, seq}, 1, {});
  EXPECT_EQ(signed_steps(b), (std::vector<long long>{2 * S, 2 * S, -2 * S, 4 * S, -2 * S, 4 * S,
                                                     -4 * S, 2 * S}));
  EXPECT_EQ(kept_at_steps(b, 2), 6 * scores);
  // In fp32 the softmax output is what the matmul with v reads: one tensor, 4 bytes a score.
  auto fp32 = bf16;
  fp32.precision.params = fp32.precision.master = dtype::f32;
  const auto c = activations_for(model::unit_kind::block, llama_stack(), fp32, {2, seq}, 1, {});
  EXPECT_EQ(signed_steps(c),
            (std::vector<long long>{4 * S, 4 * S, -4 * S, 4 * S, -4 * S, 4 * S, -4 * S}));
  EXPECT_EQ(kept_at_steps(c, 1), 4 * scores);
  EXPECT_EQ(c.saved.size() + 1, a.saved.size());  // no cast kept beside it
  // With attention dropout the mask and its output are kept as before, without steps.
  auto dropped = llama_stack();
  dropped.attention_dropout = true;
  EXPECT_TRUE(
      activations_for(model::unit_kind::block, dropped, bf16, {2, seq}, 1, {}).saved_steps.empty());
}

// The loss's backward and the head's in op order (ddp-bf16mixed-sgd: +2374 +2374 -2374 -2374
// +1187 -2374 +260 ... MiB): the two fp32 gradients, then the NLL gradient and the saved output
// go before the logits' gradient; the head's matmul writes the gradient of its input (under
// autocast the gradient of the weight's cast first, and the input's is upcast to the stream).
TEST(Activations, LossBackwardFreesTheSavedOutputBeforeTheLogitsGradient) {
  const std::uint64_t n = 1000, h = 1024, v = 50000, nv = n * v;
  job::job_spec job;  // bf16
  const auto a = activations_for(model::unit_kind::head, llama_stack(), job, {1, n}, 1, {});
  ASSERT_EQ(a.saved, (std::vector<bytes>{4 * nv}));
  auto r = run_in_order(a.backward_steps, a.saved);
  EXPECT_EQ(r.allocations, (std::vector<bytes>{4 * nv, 4 * nv, 2 * nv, 2 * n * h}));
  EXPECT_EQ(r.peak, 3 * 4 * nv);  // as before: the saved output and the two fp32 gradients
  job.precision.autocast = true;
  const auto mixed = activations_for(model::unit_kind::head, llama_stack(), job, {1, n}, 1, {});
  r = run_in_order(mixed.backward_steps, mixed.saved);
  EXPECT_EQ(r.allocations,
            (std::vector<bytes>{4 * nv, 4 * nv, 2 * nv, 2 * v * h, 2 * n * h, 4 * n * h}));
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

// The final RMSNorm in op order (fsdp1-cpuoffload's history, Llama-3.2-1B in bf16: +32 +32 -32
// +32 +16 +16 -32 MiB): the fp32 copy, the square gone after the mean, the fp32 product gone
// once the output exists; what is left is what the norm saves.
TEST(Activations, FinalNormRunsOpByOpAndKeepsWhatItSaves) {
  const job::job_spec job;  // bf16
  const std::uint64_t n = 1000, h = 1024;
  const auto a = activations_for(model::unit_kind::norm, llama_stack(), job, {1, n}, 1, {});
  ASSERT_FALSE(a.forward_in_order.empty());
  const auto r = run_in_order(a.forward_in_order);
  EXPECT_EQ(r.kept, std::accumulate(a.saved.begin(), a.saved.end(), bytes{0}));
  EXPECT_EQ(r.allocations,
            (std::vector<bytes>{4 * n * h, 4 * n * h, 4 * n, 4 * n * h, 2 * n * h, 2 * n * h}));
  EXPECT_EQ(r.peak, 4 * n * h + 4 * n + 4 * n * h + 2 * 2 * n * h);  // copy, product, cast, output
}

// Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
// Table 2: the activations a transformer layer keeps, in bytes, for sequence s, micro-batch b,
// hidden h, heads a and tensor-parallel size t, under the paper's assumptions (16-bit
// activations, LayerNorm, a 4h GELU MLP, dropout after attention, after the MLP and on the
// attention probabilities, the attention unfused):
//   no parallelism                     sbh (34 + 5as/h)
//   tensor parallel                    sbh (10 + 24/t + 5as/(ht))
//   tensor + sequence parallel         sbh (34/t + 5as/(ht))
//   tensor parallel + selective        sbh (10 + 24/t)
//   tensor + sequence + selective      sbh (34/t)
//   full recomputation                 2sbh (the layer input; 2sbh/t under sequence parallel)
// The model keeps a few bytes per token more than the paper counts (LayerNorm's fp32 mean and
// rstd, flash attention's fp32 log-sum-exp under selective recomputation), so each combination
// is checked within 2 %, on the GPT-3 175B shape the paper uses (section 5).
TEST(Activations, KorthikantiTable2HoldsForEveryTensorSequenceAndRecomputeCombination) {
  model::stack_shape gpt;
  gpt.family = "test";
  gpt.hidden = 12288;
  gpt.intermediate = 4 * 12288;
  gpt.layers = 96;
  gpt.heads = 96;
  gpt.kv_heads = 96;
  gpt.head_dim = 128;
  gpt.vocab = 51200;
  gpt.gated_mlp = false;
  gpt.layer_norm = true;
  gpt.residual_dropout = true;
  gpt.attention_dropout = true;
  const double s = 2048, b = 1, h = 12288, a = 96;
  const double sbh = s * b * h;
  for (const int t : {1, 2, 4, 8}) {
    for (const bool sp : {false, true}) {
      if (sp && t == 1) continue;  // sequence parallelism needs t > 1
      for (const auto recompute : {job::checkpointing::none, job::checkpointing::selective,
                                   job::checkpointing::full}) {
        job::job_spec job;
        job.parallel.kind = job::strategy::megatron;
        job.parallel.tp = t;
        job.parallel.sequence_parallel = sp;
        // Megatron's selective recomputation recomputes the core attention (the importers
        // map --recompute-granularity selective to core_attention), over the math kernel,
        // which without it keeps the paper's 5as/h bytes of scores a token and layer.
        job.training.attention = job::attention_impl::math;
        job.training.activation_checkpointing = recompute == job::checkpointing::selective
                                                    ? job::checkpointing::core_attention
                                                    : recompute;
        const auto acts = activations_for(model::unit_kind::block, gpt, job,
                                          {static_cast<std::uint64_t>(b),
                                           static_cast<std::uint64_t>(s)},
                                          t, {});
        const double planned =
            recompute == job::checkpointing::full
                ? static_cast<double>(acts.checkpoint_input)
                : static_cast<double>(
                      std::accumulate(acts.saved.begin(), acts.saved.end(), bytes{0}));
        const double attention = recompute == job::checkpointing::none ? 5 * a * s / (h * t) : 0;
        double paper = 0;
        if (recompute == job::checkpointing::full) {
          paper = 2 * sbh / (sp ? t : 1);
        } else if (sp) {
          paper = sbh * (34.0 / t + attention);
        } else {
          paper = sbh * (10 + 24.0 / t + attention);
        }
        EXPECT_NEAR(planned / paper, 1.0, 0.02)
            << "t " << t << (sp ? " with" : " without") << " sequence parallelism, recompute "
            << static_cast<int>(recompute) << ": planned " << planned / sbh << " sbh, paper "
            << paper / sbh << " sbh";
      }
    }
  }
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

bytes sum_of(const std::vector<bytes>& v) { return std::accumulate(v.begin(), v.end(), bytes{0}); }

// A GPT-style block with attention dropout: 16 heads of 64, hidden 1024, MLP 4096.
model::stack_shape dropout_stack() {
  model::stack_shape s;
  s.family = "test";
  s.hidden = 1024;
  s.intermediate = 4096;
  s.layers = 2;
  s.heads = 16;
  s.kv_heads = 16;
  s.head_dim = 64;
  s.vocab = 50000;
  s.gated_mlp = false;
  s.attention_dropout = true;
  return s;
}

// Recomputing core attention (Megatron's selective recompute) keeps q, k, v and the output as
// no checkpointing does, but none of the scores' shape: with the math kernel the softmax output,
// its dropout and the bool mask (2 + 2 + 1 bytes a score in bf16) move from what the block keeps
// to what its backward makes again; with a fused kernel, which keeps none of them, nothing
// changes at all.
TEST(Activations, CoreAttentionRecomputeDropsOnlyTheScoresKept) {
  const auto s = dropout_stack();
  const std::uint64_t n = 1000, scores = 16 * n * n;
  for (const auto kernel : {job::attention_impl::flash, job::attention_impl::math}) {
    job::job_spec none;
    none.training.attention = kernel;
    auto core = none;
    core.training.activation_checkpointing = job::checkpointing::core_attention;
    const auto kept = activations_for(model::unit_kind::block, s, none, {1, n}, 1, {});
    const auto recomputed = activations_for(model::unit_kind::block, s, core, {1, n}, 1, {});
    if (kernel == job::attention_impl::flash) {
      EXPECT_EQ(recomputed.saved, kept.saved);
      EXPECT_EQ(recomputed.forward_temps, kept.forward_temps);
      EXPECT_EQ(recomputed.backward_temps, kept.backward_temps);
      continue;
    }
    EXPECT_EQ(sum_of(kept.saved) - sum_of(recomputed.saved), 5 * scores);
    EXPECT_EQ(sum_of(recomputed.backward_temps) - sum_of(kept.backward_temps), 5 * scores);
    EXPECT_TRUE(recomputed.saved_from.empty());  // the scores are a forward transient now
    EXPECT_GE(sum_of(recomputed.forward_temps) - sum_of(kept.forward_temps), 5 * scores);
  }
}

// The same for eager attention in op order (transformers' eager_attention_forward, no dropout):
// the fp32 softmax output and its bf16 cast are not kept, and forward holds at most what the
// op-order steps hold at once.
TEST(Activations, CoreAttentionRecomputeOfEagerAttention) {
  auto s = dropout_stack();
  s.attention_dropout = false;
  s.eager_attention = true;
  const std::uint64_t n = 1000, scores = 16 * n * n;
  job::job_spec none;
  auto core = none;
  core.training.activation_checkpointing = job::checkpointing::core_attention;
  const auto kept = activations_for(model::unit_kind::block, s, none, {1, n}, 1, {});
  const auto recomputed = activations_for(model::unit_kind::block, s, core, {1, n}, 1, {});
  EXPECT_EQ(sum_of(kept.saved) - sum_of(recomputed.saved), (4 + 2) * scores);
  EXPECT_TRUE(recomputed.saved_steps.empty());
  // raw and scaled (2 + 2), then masked, the fp32 upcast and the softmax (2 + 4 + 4)
  EXPECT_EQ(sum_of(recomputed.forward_temps) - sum_of(kept.forward_temps), 10 * scores);
}

}  // namespace
}  // namespace vramscope::schedule
