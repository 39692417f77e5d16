// LoRA and QLoRA under data-parallel sharding: the frozen base is sharded like any other
// parameter by FSDP1, FSDP2 and ZeRO-3, quantisation covers the linear layers only, and the
// frozen base stays in the dtype the model is held in.
#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vramscope::predict {
namespace {

job::job_spec job_from(const std::string& yaml) {
  auto j = job::parse_job_yaml(yaml, "test.yaml");
  EXPECT_TRUE(j) << (j ? "" : j.error().to_string());
  return j ? *j : job::job_spec{};
}

const model::model_spec& preset(const std::string& name) {
  static std::map<std::string, model::model_spec> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    auto r = model::load_model(name);
    EXPECT_TRUE(r) << name;
    it = loaded.emplace(name, r ? *r : model::model_spec{}).first;
  }
  return it->second;
}

prediction plan_of(const std::string& yaml, const std::string& model = "llama-3.1-70b") {
  auto p = plan(preset(model), job_from(yaml));
  EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
  return p ? std::move(*p) : prediction{};
}

// Values in the linear layers of the blocks (what bitsandbytes quantises) and the rest.
struct split {
  std::uint64_t linear = 0, other = 0;
};
split split_of(const model::model_spec& m) {
  split s;
  for (const auto& t : m.tensors) {
    const bool linear = t.shape.size() == 2 && t.unit.rfind("layers.", 0) == 0;
    (linear ? s.linear : s.other) += t.numel();
  }
  return s;
}

// The recipe: Llama-3.1-70B, LoRA r16 on q/v, FSDP2 bf16-param, 8 x A100-80GB.
std::string lora70b(const std::string& parallel, const std::string& precision = "bf16-param") {
  return "model: llama-3.1-70b\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: 8 }\n"
         "parallel: " + parallel + "\n"
         "precision: " + precision + "\n"
         "training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full }\n"
         "lora: { rank: 16, targets: [q_proj, v_proj] }\n";
}

// A block of Llama-3.1-70B holds 856 M values; around the peak at most a few are gathered,
// beside the root unit's embedding and head (2 x 128256 x 8192 values), which stay gathered
// from the head's backward until the root reshards after backward: the peak sits in the last
// block's backward once the loss keeps only its fp32 log-softmax.
constexpr bytes gathered_margin = 3ull * 856'000'000ull * 2 + 2ull * 128256ull * 8192ull * 2;

TEST(LoraPlan, Fsdp2ShardsTheFrozenBaseEightWays) {
  const auto p = plan_of(lora70b("{ strategy: fsdp2 }"));
  ASSERT_FALSE(p.ranks.empty());
  EXPECT_TRUE(p.fits);
  const auto& r = p.ranks[0];
  // bf16-param keeps fp32 shards: 4 bytes a value, an eighth of them on each rank.
  const bytes shard = preset("llama-3.1-70b").parameters() * 4 / 8;
  EXPECT_GT(r.parts.parameters, shard);
  EXPECT_LT(r.parts.parameters, shard + gathered_margin);
  EXPECT_LT(r.peak.device, 80_GiB);
}

TEST(LoraPlan, Fsdp1AndZero3ShardTheFrozenBaseToo) {
  const bytes values = preset("llama-3.1-70b").parameters();
  for (const char* parallel : {"{ strategy: fsdp1, use_orig_params: true }",
                               "{ strategy: fsdp1, use_orig_params: false }"}) {
    const auto p = plan_of(lora70b(parallel));
    ASSERT_FALSE(p.ranks.empty());
    EXPECT_TRUE(p.fits) << parallel;
    // FSDP1 flattens the root unit (embedding and head, 2.1 G values in fp32) by
    // concatenation at wrapping, so its original tensors and the flat copy coexist once.
    EXPECT_GT(p.ranks[0].parts.parameters, values * 4 / 8) << parallel;
    EXPECT_LT(p.ranks[0].parts.parameters, values * 4 / 8 + 2 * 8'410'000'000ull + gathered_margin)
        << parallel;
  }
  // DeepSpeed keeps bf16 parameters (and an fp32 master of the trainable ones only).
  const auto z = plan_of(lora70b("{ strategy: zero3 }"));
  ASSERT_FALSE(z.ranks.empty());
  EXPECT_TRUE(z.fits);
  EXPECT_GT(z.ranks[0].parts.parameters, values * 2 / 8);
  EXPECT_LT(z.ranks[0].parts.parameters, values * 2 / 8 + gathered_margin);
}

TEST(LoraPlan, DataParallelWithoutShardingKeepsTheWholeBase) {
  const auto p = plan_of(lora70b("{ strategy: zero2 }", "bf16-true"));
  ASSERT_FALSE(p.ranks.empty());
  EXPECT_FALSE(p.fits);  // 141 GB of bf16 weights on every rank
}

TEST(LoraPlan, Fsdp1UseOrigParamsGivesTheFrozenBaseAGradient) {
  // One FlatParameter mixing frozen and trainable parameters has a gradient over all of it;
  // with separate units (use_orig_params false) only the adapters have one.
  const auto mixed = plan_of(lora70b("{ strategy: fsdp1, use_orig_params: true }"));
  const auto separate = plan_of(lora70b("{ strategy: fsdp1, use_orig_params: false }"));
  ASSERT_FALSE(mixed.ranks.empty());
  ASSERT_FALSE(separate.ranks.empty());
  const bytes shard = preset("llama-3.1-70b").parameters() * 4 / 8;
  EXPECT_GT(mixed.ranks[0].parts.gradients, shard / 2);
  EXPECT_LT(separate.ranks[0].parts.gradients, 2_GiB);
}

// The FSDP + QLoRA recipe: 4-bit base packed as bf16 so FSDP can flatten and shard it.
std::string qlora70b(const std::string& parallel, const std::string& extra = "",
                     const std::string& targets = "[q_proj, v_proj]") {
  return "model: llama-3.1-70b\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: 2 }\n"
         "parallel: " + parallel + "\n"
         "precision: bf16-true\n"
         "training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full }\n"
         "lora: { rank: 16, targets: " + targets + ", base_quantization: nf4" + extra + " }\n";
}

TEST(LoraPlan, QloraUnderFsdpHoldsHalfThePackedBasePerRank) {
  const auto& m = preset("llama-3.1-70b");
  const auto s = split_of(m);
  const bytes packed_half = s.linear / 2 / 2;
  const bytes other_half = s.other * 2 / 2;
  const bytes quant_state = s.linear / 64 * 4;  // fp32 absmax per 64 values, whole per rank
  for (const char* parallel : {"{ strategy: fsdp1 }", "{ strategy: fsdp2 }"}) {
    const auto p = plan_of(qlora70b(parallel, ", quant_storage: bf16"));
    ASSERT_FALSE(p.ranks.empty());
    EXPECT_TRUE(p.fits) << parallel;
    const bytes held = p.ranks[0].parts.parameters;
    EXPECT_GT(held, packed_half + other_half + quant_state) << parallel;
    EXPECT_LT(held, packed_half + other_half + quant_state + gathered_margin) << parallel;
  }
}

TEST(LoraPlan, OffloadedQloraBaseNeedsItsPackedShardOfHostMemory) {
  // The FSDP + QLoRA recipe with CPU offload: the host keeps each rank's shard of the packed
  // base (and of the bf16 embedding and head), not a shard of the unquantised model.
  const auto p = plan_of(qlora70b("{ strategy: fsdp1, cpu_offload: true }", ", quant_storage: bf16"));
  const auto s = split_of(preset("llama-3.1-70b"));
  EXPECT_GT(p.cpu_memory, s.linear / 2 / 2 + s.other * 2 / 2);
  EXPECT_LT(p.cpu_memory, s.linear / 2 / 2 + s.other * 2 / 2 + s.linear / 64 * 4 + 1_GiB);
}

TEST(LoraPlan, FrozenLinearsKeepOnlyTheInputsAdaptersNeed) {
  // Same job, three ways to train it: every weight, LoRA on q/v (the q/k/v input is kept for
  // A's gradient, nothing else of the frozen linears), LoRA-FA (B trains on A's output only).
  const std::string job = "model: llama-3.2-1b\n"
                          "parallel: { strategy: single }\n"
                          "precision: bf16-true\n"
                          "training: { micro_batch: 4, seq_len: 2048 }\n";
  const auto full = plan_of(job, "llama-3.2-1b");
  const auto lora = plan_of(job + "lora: { rank: 8 }\n", "llama-3.2-1b");
  const auto fa = plan_of(job + "lora: { rank: 8, method: lora_fa }\n", "llama-3.2-1b");
  ASSERT_FALSE(full.ranks.empty());
  ASSERT_FALSE(lora.ranks.empty());
  ASSERT_FALSE(fa.ranks.empty());
  const auto& s = preset("llama-3.2-1b").text;
  const bytes tokens = 4 * 2048;
  // Full fine-tuning also keeps the o_proj, gate/up and down_proj inputs of every block (and
  // the norms' normalised values); LoRA on q/v does not.
  const bytes dropped = s.layers * tokens * 2 * (2 * s.hidden + s.intermediate);
  EXPECT_GT(full.ranks[0].parts.activations, lora.ranks[0].parts.activations + dropped);
  // LoRA-FA does not keep the q/k/v input either.
  EXPECT_GE(lora.ranks[0].parts.activations, fa.ranks[0].parts.activations + s.layers * tokens * 2 * s.hidden);
}

TEST(LoraPlan, Fsdp1RefusesFourBitWeightsPackedAsUint8) {
  auto j = job::parse_job_yaml(qlora70b("{ strategy: fsdp1 }"), "test.yaml");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().to_string().find("lora.quant_storage"), std::string::npos) << j.error().to_string();
}

TEST(LoraPlan, TorchaoShardsTheQuantisationConstantsBitsandbytesDoesNot) {
  // torchtune quantises the LoRA-targeted linears only: target all of them for both.
  const std::string all = "[q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj]";
  const auto bnb = plan_of(qlora70b("{ strategy: fsdp2 }", ", double_quant: true", all));
  const auto ao = plan_of(qlora70b("{ strategy: fsdp2 }", ", quantizer: torchao", all));
  ASSERT_FALSE(bnb.ranks.empty());
  ASSERT_FALSE(ao.ranks.empty());
  // Double-quantised constants: 1 byte per 64 values + fp32 per 256 blocks; torchao keeps
  // half of them per rank.
  const bytes constants = split_of(preset("llama-3.1-70b")).linear / 64;
  ASSERT_GT(bnb.ranks[0].parts.parameters, ao.ranks[0].parts.parameters);
  const bytes saved = bnb.ranks[0].parts.parameters - ao.ranks[0].parts.parameters;
  EXPECT_GT(saved, constants / 2 - constants / 20);
  EXPECT_LT(saved, constants / 2 + constants / 20);
}

TEST(LoraPlan, AutocastKeepsTheFrozenBaseInFp32) {
  const std::string job = "model: llama-3.2-1b\n"
                          "parallel: { strategy: single }\n"
                          "training: { micro_batch: 1, seq_len: 512 }\n"
                          "lora: { rank: 8 }\n";
  const auto mixed = plan_of(job + "precision: bf16-mixed\n", "llama-3.2-1b");
  const auto pure = plan_of(job + "precision: bf16-true\n", "llama-3.2-1b");
  ASSERT_FALSE(mixed.ranks.empty());
  ASSERT_FALSE(pure.ranks.empty());
  const bytes values = preset("llama-3.2-1b").parameters();
  EXPECT_GT(mixed.ranks[0].parts.parameters, values * 4);
  EXPECT_LT(pure.ranks[0].parts.parameters, values * 2 + 1_GiB);
  // The bf16 casts of the frozen matrices are saved for backward, on top of the activations.
  EXPECT_GT(mixed.ranks[0].peak.allocated, pure.ranks[0].peak.allocated + values * 3);
}

TEST(LoraPlan, NoSyncKeepsUnshardedGradientsOfTheWholeFlatParameter) {
  // LitGPT's LoRA recipe on two GPUs: FSDP1 with use_orig_params (Lightning's default) and
  // gradient accumulation inside no_backward_sync. Each unit's FlatParameter mixes the frozen
  // base with the adapters, so the gradients kept unsharded between micro-batches cover the
  // whole model in bf16.
  const std::string job = "model: llama-2-7b\n"
                          "hardware: { gpu: A100-40GB, gpus_per_node: 2 }\n"
                          "parallel: { strategy: fsdp1, use_orig_params: true }\n"
                          "precision: bf16-true\n"
                          "training: { micro_batch: 1, seq_len: 1304, gradient_accumulation: 4,\n"
                          "            activation_checkpointing: full }\n"
                          "lora: { rank: 8, targets: [q_proj, v_proj] }\n";
  const auto synced = plan_of(job, "llama-2-7b");
  auto j = job_from(job);
  j.parallel.no_sync = true;
  auto p = plan(preset("llama-2-7b"), j);
  ASSERT_TRUE(p);
  ASSERT_FALSE(synced.ranks.empty());
  // The root unit (embedding, final norm, head) has no adapter, so its FlatParameter has no
  // gradient; every block's does, over all of its values.
  const bytes blocks = split_of(preset("llama-2-7b")).linear;
  EXPECT_GT(p->ranks[0].parts.gradients, blocks * 2);
  EXPECT_LT(synced.ranks[0].parts.gradients, blocks * 2 / 2 + blocks / 10);
  EXPECT_GT(p->ranks[0].peak.allocated, synced.ranks[0].peak.allocated + blocks / 2);
}

}  // namespace
}  // namespace vramscope::predict
