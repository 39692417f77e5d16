// The phases outside the training step (docs/schedule.md, "Outside the training step"):
// checkpoint saving, resuming, evaluation and the first optimizer step, each planned through
// the same allocator replay as the step, with its own peak per rank.
#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace vramscope::predict {
namespace {

prediction planned(const std::string& yaml, const predict_options& options = {}) {
  auto j = job::parse_job_yaml(yaml, "test.yaml");
  EXPECT_TRUE(j) << (j ? "" : j.error().to_string());
  auto m = model::load_model(j->model);
  EXPECT_TRUE(m);
  auto p = plan(*m, *j, options);
  EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
  return p ? *p : prediction{};
}

const phase_peak* phase_of(const rank_prediction& r, const std::string& name) {
  const auto it = std::find_if(r.phases.begin(), r.phases.end(),
                               [&](const phase_peak& p) { return p.name == name; });
  return it == r.phases.end() ? nullptr : &*it;
}

// Llama-3.1-8B under FSDP1 on eight 40 GB GPUs, fp32 flat parameters (bf16 mixed precision):
// the step fits; a FULL_STATE_DICT that keeps its clones on the GPU needs the whole model in
// fp32 (32 GB) beside the rank's shards and optimizer state.
std::string fsdp1_save(const std::string& checkpoint) {
  return "model: llama-3.1-8b\nhardware: { gpu: A100-40GB, gpus_per_node: 8 }\n"
         "parallel: { strategy: fsdp1, wrap: block }\nprecision: bf16-mixed\noptimizer: adamw\n"
         "training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full }\n"
         "checkpoint: " + checkpoint + "\n";
}

TEST(CheckpointSave, AFullStateDictKeptOnTheGpuRunsRankZeroOutOfMemory) {
  const auto p = planned(fsdp1_save("{ save: full, offload_to_cpu: false }"));
  EXPECT_FALSE(p.fits);
  ASSERT_TRUE(p.ranks[0].oom);
  EXPECT_EQ(p.ranks[0].oom_phase, "checkpoint_save");
  ASSERT_TRUE(verdict_of(p).oom);
  EXPECT_EQ(verdict_of(p).oom->phase, "checkpoint_save");
  const auto* save0 = phase_of(p.ranks[0], "checkpoint_save");
  ASSERT_NE(save0, nullptr);
  EXPECT_TRUE(save0->oom);
  EXPECT_FALSE(save0->fits);
  // rank0_only (the default): the other ranks reshard at once and keep no clone.
  const auto* save1 = phase_of(p.ranks[1], "checkpoint_save");
  ASSERT_NE(save1, nullptr);
  EXPECT_TRUE(save1->fits);
  EXPECT_FALSE(p.ranks[1].oom);
}

TEST(CheckpointSave, OffloadToCpuHoldsOneUnitAndAddsNothingToTheStepsPeak) {
  const auto offloaded = planned(fsdp1_save("{ save: full, offload_to_cpu: true }"));
  const auto none = planned(fsdp1_save("{ save: none }"));
  EXPECT_TRUE(offloaded.fits);
  const auto* save = phase_of(offloaded.ranks[0], "checkpoint_save");
  ASSERT_NE(save, nullptr);
  EXPECT_TRUE(save->fits);
  EXPECT_LT(save->peak.allocated, offloaded.ranks[0].peak.allocated);
  EXPECT_EQ(offloaded.ranks[0].peak.allocated, none.ranks[0].peak.allocated);
  EXPECT_EQ(offloaded.ranks[0].peak.reserved, none.ranks[0].peak.reserved);
  EXPECT_EQ(phase_of(none.ranks[0], "checkpoint_save"), nullptr);
}

TEST(CheckpointSave, KeptClonesAreTheWholeModelInItsStoredDtype) {
  // On a GPU large enough for both, the kept clones add the whole fp32 model to the save's
  // peak (padded to the world size per unit).
  const std::string big = "hardware: { gpu: H200, gpus_per_node: 8 }\n";
  auto job_with = [&](const char* offload) {
    auto text = fsdp1_save(std::string("{ save: full, offload_to_cpu: ") + offload + " }");
    return text.replace(text.find("hardware:"), text.find('\n', text.find("hardware:")) -
                                                     text.find("hardware:") + 1, big);
  };
  const auto kept = planned(job_with("false"));
  const auto offloaded = planned(job_with("true"));
  ASSERT_TRUE(kept.fits);
  const bytes model_fp32 = 8'030'261'248ULL * 4;
  const bytes added = phase_of(kept.ranks[0], "checkpoint_save")->peak.allocated -
                      phase_of(offloaded.ranks[0], "checkpoint_save")->peak.allocated;
  // The offloaded save peaks at its largest unit, the root (embedding and head, 128256 x 4096
  // each, fp32); the kept one at its last, with every clone.
  const bytes root = 2ULL * 128256 * 4096 * 4;
  EXPECT_GE(added, model_fp32 - root);
  EXPECT_LE(added, model_fp32);
  // Without rank0_only every rank keeps them.
  const auto everywhere =
      planned(fsdp1_save("{ save: full, offload_to_cpu: false, rank0_only: false }"));
  ASSERT_TRUE(everywhere.ranks[1].oom);
  EXPECT_EQ(everywhere.ranks[1].oom_phase, "checkpoint_save");
}

TEST(CheckpointSave, Zero3GathersOneTensorAtATimeAndFsdp2KeepsWithoutCpuOffload) {
  const std::string base =
      "model: llama-3.1-8b\nhardware: { gpu: H100-80GB, gpus_per_node: 8 }\n"
      "precision: bf16-mixed\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full }\n";
  const auto z3 = planned(base + "parallel: { strategy: zero3 }\ncheckpoint: { save: full }\n");
  const auto z3_none = planned(base + "parallel: { strategy: zero3 }\n");
  const auto* gather = phase_of(z3.ranks[0], "checkpoint_save");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(z3.ranks[0].peak.allocated, z3_none.ranks[0].peak.allocated);
  EXPECT_EQ(z3.ranks[1].peak.allocated, z3_none.ranks[1].peak.allocated);
  const auto kept = planned(base + "parallel: { strategy: fsdp2 }\n"
                                   "checkpoint: { save: full, offload_to_cpu: false }\n");
  const auto offloaded =
      planned(base + "parallel: { strategy: fsdp2 }\ncheckpoint: { save: full }\n");
  EXPECT_EQ(kept.ranks[1].peak_phase, "checkpoint_save");  // every rank keeps the full tensors
  // Kept: every fp32 parameter at once; offloaded: the largest one (the embedding or the head,
  // 128256 x 4096) at a time.
  EXPECT_EQ(phase_of(kept.ranks[1], "checkpoint_save")->peak.allocated -
                phase_of(offloaded.ranks[1], "checkpoint_save")->peak.allocated,
            8'030'261'248ULL * 4 - 128256ULL * 4096 * 4);
}

// Llama 3.2 1B ties its head to the embedding (128256 x 2048). The H200 histories of
// fsdp1-save-full-gpu and fsdp2-save-full-gpu (bench/README.md, "Outside the training step"):
// FSDP1 holds the root's unsharded flat parameter through the whole save and clones the tied
// matrix for both its names; FSDP2 gathers it again under lm_head.weight.
std::string tied_save(const std::string& strategy, const std::string& checkpoint) {
  return "model: llama-3.2-1b\nhardware: { gpu: H200, gpus_per_node: 8 }\n"
         "parallel: { strategy: " + strategy + " }\nprecision: bf16-mixed\noptimizer: adamw\n"
         "training: { micro_batch: 1, seq_len: 512 }\ncheckpoint: " + checkpoint + "\n";
}

TEST(CheckpointSave, ATiedHeadIsSavedUnderBothNames) {
  const bytes tied_fp32 = 128256ULL * 2048 * 4;
  const bytes model_fp32 = 1'235'814'400ULL * 4;
  const auto f2_kept = planned(tied_save("fsdp2", "{ save: full, offload_to_cpu: false }"));
  const auto f2_off = planned(tied_save("fsdp2", "{ save: full }"));
  // Kept: every parameter at once and the tied matrix a second time (model + tied); offloaded:
  // one gather at a time, the largest being the tied matrix. Gathered once, the difference
  // would be the model less the matrix.
  const bytes kept = phase_of(f2_kept.ranks[0], "checkpoint_save")->peak.allocated;
  const bytes off = phase_of(f2_off.ranks[0], "checkpoint_save")->peak.allocated;
  EXPECT_EQ(kept - off, model_fp32);

  // GPT-2 has two embedding units, wte and wpe: the head is tied to wte only, which is gathered
  // again; wpe (1024 x 768, 3 MiB in fp32) is not. The difference is the parameters' bytes and
  // what the allocator's rounding of the gathers adds (under 3 MiB); with wpe gathered again it
  // would be 3 MiB more.
  std::string gpt2 = tied_save("fsdp2", "{ save: full, offload_to_cpu: false }");
  gpt2.replace(gpt2.find("llama-3.2-1b"), 12, "gpt2");
  std::string gpt2_off = tied_save("fsdp2", "{ save: full }");
  gpt2_off.replace(gpt2_off.find("llama-3.2-1b"), 12, "gpt2");
  const auto g_kept = planned(gpt2);
  const auto g_off = planned(gpt2_off);
  const bytes g_params =
      model::load_model(job::parse_job_yaml(gpt2, "gpt2.yaml")->model)->parameters() * 4;
  const bytes g_added = phase_of(g_kept.ranks[0], "checkpoint_save")->peak.allocated -
                        phase_of(g_off.ranks[0], "checkpoint_save")->peak.allocated;
  EXPECT_GE(g_added, g_params);
  EXPECT_LT(g_added, g_params + 1024ULL * 768 * 4);

  const auto f1_kept = planned(tied_save("fsdp1", "{ save: full, offload_to_cpu: false }"));
  const auto f1_off = planned(tied_save("fsdp1", "{ save: full }"));
  const bytes off1 = phase_of(f1_off.ranks[0], "checkpoint_save")->peak.allocated;
  const bytes kept1 = phase_of(f1_kept.ranks[0], "checkpoint_save")->peak.allocated;
  // Kept on rank 0: every unit's clone, the root's held flat parameter and the tied matrix's
  // second clone at once, beyond the offloaded save's root and one block.
  EXPECT_GE(kept1 - off1, model_fp32);
  EXPECT_LE(kept1 - off1, model_fp32 + tied_fp32 + (4 << 20));
  // rank0_only: rank 1 reshards at once and holds nothing but one unit at a time.
  EXPECT_LT(phase_of(f1_kept.ranks[1], "checkpoint_save")->peak.allocated, kept1 - model_fp32);
}

// Llama-3.1-8B as an int8 LoRA base (bitsandbytes; embedding and head stay in the stored fp32 of
// bf16-mixed) on one GPU.
// bitsandbytes 0.38.0 to 0.39.0 copy every int8 weight twice while a state dict is built
// (job_spec::saves_int8_copies: a clone kept as the parameter, a row-major copy kept in the
// state dict); 0.37 and 0.39.1 save the weight as it is held, and so does every release on a
// GPU below compute capability 7.5, whose weights keep their row-major layout.
std::string int8_lora_save(const std::string& bitsandbytes, const std::string& gpu = "A100-80GB") {
  return "model: llama-3.1-8b\nhardware: { gpu: " + gpu +
         ", gpus_per_node: 1 }\n"
         "parallel: { strategy: single }\nprecision: bf16-mixed\noptimizer: adamw\n"
         "training: { micro_batch: 1, seq_len: 512, activation_checkpointing: full }\n"
         "lora: { rank: 16, targets: [q_proj, v_proj], base_quantization: int8 }\n"
         "checkpoint: { save: full }\nframework: { bitsandbytes: \"" +
         bitsandbytes + "\" }\n";
}

TEST(CheckpointSave, AnInt8BaseUnderBitsandbytes038IsCopiedTwiceWhileItsStateDictIsBuilt) {
  // The int8 weights: q, k, v, o and the three MLP matrices of 32 blocks (hidden 4096, kv 1024,
  // intermediate 14336), one byte each; embedding and head stay fp32.
  const bytes int8 = 32ULL * (2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 14336 * 4096);
  const bytes unquantised = 2ULL * 128256 * 4096 * 4;
  const auto copied = planned(int8_lora_save("0.38.1"));
  const auto* save = phase_of(copied.ranks[0], "checkpoint_save");
  ASSERT_NE(save, nullptr);
  EXPECT_TRUE(save->fits);
  EXPECT_EQ(copied.ranks[0].peak_phase, "checkpoint_save");
  // The base, its clone and its row-major copy at once, beside the fp32 tensors; at most the
  // adapters, their optimizer state and one weight's scatter buffer more.
  EXPECT_GE(save->peak.allocated, 3 * int8 + unquantised);
  EXPECT_LE(save->peak.allocated, 3 * int8 + unquantised + (512ULL << 20));
  for (const char* release : {"0.37.2", "0.39.1", "0.45.0"})
    EXPECT_EQ(phase_of(planned(int8_lora_save(release)).ranks[0], "checkpoint_save"), nullptr)
        << release;
  EXPECT_EQ(phase_of(planned(int8_lora_save("0.38.1", "V100-32GB")).ranks[0], "checkpoint_save"),
            nullptr);
  // Unknown (empty): a current release, which copies nothing.
  std::string unknown = int8_lora_save("0.38.1");
  unknown.erase(unknown.find("framework:"));
  EXPECT_EQ(phase_of(planned(unknown).ranks[0], "checkpoint_save"), nullptr);
}

// Llama-3.2-1B in bf16 on one H100: training micro-batch 2 x 2048 under full checkpointing.
std::string one_gpu(const std::string& extra) {
  return "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
         "parallel: { strategy: single }\nprecision: bf16-true\noptimizer: adamw\n"
         "training: { micro_batch: 2, seq_len: 2048, activation_checkpointing: full }\n" + extra;
}

TEST(Evaluation, WithoutNoGradKeepsTheForwardsActivations) {
  const auto with = planned(one_gpu("eval: { enabled: true }\n"));
  const auto without = planned(one_gpu("eval: { enabled: true, no_grad: false }\n"));
  const auto* e_with = phase_of(with.ranks[0], "eval");
  const auto* e_without = phase_of(without.ranks[0], "eval");
  ASSERT_NE(e_with, nullptr);
  ASSERT_NE(e_without, nullptr);
  EXPECT_LT(e_with->peak.allocated, e_without->peak.allocated);
  // Without no_grad the evaluation keeps what a training forward without checkpointing keeps
  // (every block's saved tensors and the loss's) at the loss.
  const auto uncheckpointed = planned(
      "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
      "parallel: { strategy: single }\nprecision: bf16-true\noptimizer: adamw\n"
      "training: { micro_batch: 2, seq_len: 2048 }\n");
  EXPECT_EQ(without.ranks[0].peak_phase, "eval");
  EXPECT_GE(without.ranks[0].parts.activations, uncheckpointed.ranks[0].parts.activations);
  // The training step itself is the same.
  const auto no_eval = planned(one_gpu(""));
  EXPECT_EQ(with.ranks[0].peak.allocated, no_eval.ranks[0].peak.allocated);
}

TEST(Evaluation, ALargerEvalBatchRaisesTheEvalPeak) {
  const auto same = planned(one_gpu("eval: { enabled: true }\n"));
  const auto larger = planned(one_gpu("eval: { enabled: true, micro_batch: 8 }\n"));
  EXPECT_GT(phase_of(larger.ranks[0], "eval")->peak.allocated,
            phase_of(same.ranks[0], "eval")->peak.allocated);
  // On a 24 GB GPU the step fits and the eval batch of 8 does not.
  const std::string small = "hardware: { gpu: A10G, gpus_per_node: 1 }\n";
  auto on_a10g = [&](const std::string& extra) {
    auto text = one_gpu(extra);
    const auto at = text.find("hardware:");
    return text.replace(at, text.find('\n', at) - at + 1, small);
  };
  const auto step_only = planned(on_a10g(""));
  EXPECT_TRUE(step_only.fits);
  const auto eval8 = planned(on_a10g("eval: { enabled: true, micro_batch: 8 }\n"));
  EXPECT_FALSE(eval8.fits);
  EXPECT_EQ(eval8.ranks[0].oom_phase, "eval");
}

TEST(Evaluation, AccumulatedLogitsStayUntilMovedToTheHost) {
  const auto kept =
      planned(one_gpu("eval: { enabled: true, steps: 4, accumulate_logits: true }\n"));
  const auto moved = planned(one_gpu("eval: { enabled: true, steps: 4, accumulate_logits: true, "
                                     "accumulation_steps: 1 }\n"));
  const auto plain = planned(one_gpu("eval: { enabled: true, steps: 4 }\n"));
  const bytes logits = 2ULL * 2048 * 128256 * 2;  // batch x seq x vocab, bf16
  const bytes k = phase_of(kept.ranks[0], "eval")->peak.allocated;
  const bytes m = phase_of(moved.ranks[0], "eval")->peak.allocated;
  // The fourth batch runs beside the three kept before it.
  EXPECT_GE(k, m + 3 * logits);
  EXPECT_GE(m, phase_of(plain.ranks[0], "eval")->peak.allocated);
}

TEST(Evaluation, UnderAutocastEveryWeightsCastIsAliveAtTheLoss) {
  // bf16-mixed on one GPU: fp32 weights under torch.autocast. An evaluation forward caches the
  // bf16 cast of every weight a matmul reads until its autocast region ends, after the loss
  // (measured, ddp-eval-nograd-mb16 and single-llama1b-eval-accumulate); Llama-3.2-1B's tied
  // head casts the embedding's weight, which the lookup read as it is. At the evaluation's peak
  // the weights are there twice: 4 + 2 bytes a parameter.
  const std::string yaml =
      "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
      "parallel: { strategy: single }\nprecision: bf16-mixed\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 2048 }\neval: { enabled: true, micro_batch: 8 }\n";
  const auto p = planned(yaml);
  ASSERT_FALSE(p.ranks.empty());
  const auto& r = p.ranks[0];
  ASSERT_EQ(r.peak_phase, "eval");
  const auto m = model::load_model("llama-3.2-1b");
  ASSERT_TRUE(m);
  EXPECT_EQ(r.parts.parameters, 6 * m->parameters());
  // Without autocast (bf16 weights) nothing is cast: the weights are there once (and no
  // second copy of any unit: a cast of the smallest block would add 2 x 60 M bytes).
  auto bf16 = yaml;
  bf16.replace(bf16.find("bf16-mixed"), 10, "bf16-true");
  const auto q = planned(bf16);
  ASSERT_FALSE(q.ranks.empty());
  EXPECT_GE(q.ranks[0].parts.parameters, 2 * m->parameters());
  EXPECT_LT(q.ranks[0].parts.parameters, 2 * m->parameters() + (bytes{4} << 20));
}

TEST(Resume, OntoTheGpuKeepsTheWeightsCopyAndMapLocationCpuOnlyTheOptimizersState) {
  const auto none = planned(one_gpu(""));
  const auto cpu = planned(one_gpu("checkpoint: { resume: true }\n"));
  const auto gpu = planned(one_gpu("checkpoint: { resume: true, resume_map_location: cuda }\n"));
  const auto dropped = planned(one_gpu("checkpoint: { resume: true, resume_map_location: cuda, "
                                       "resume_kept: false }\n"));
  // Llama-3.2-1B's weights in bf16, and its two bf16 Adam moments.
  const bytes weights = 1'235'814'400ULL * 2;
  const bytes rounding = 4 * 1024 * 1024;
  // map_location cpu: optimizer.load_state_dict copies the state to the GPU at the resume,
  // before the first forward (the H200 line ddp-resume-cpu); the step's allocated peak is the
  // same, allocation rounding aside.
  const auto* resumed = phase_of(cpu.ranks[0], "resume");
  ASSERT_NE(resumed, nullptr);
  EXPECT_GE(resumed->peak.allocated, weights + 2 * weights);
  EXPECT_LE(cpu.ranks[0].peak.allocated, none.ranks[0].peak.allocated + rounding);
  EXPECT_GE(cpu.ranks[0].peak.allocated + rounding, none.ranks[0].peak.allocated);
  // The copy the loaded dict keeps.
  EXPECT_GE(gpu.ranks[0].peak.allocated - none.ranks[0].peak.allocated, weights - rounding);
  EXPECT_LE(gpu.ranks[0].peak.allocated - none.ranks[0].peak.allocated, weights + rounding);
  // Dropped after load_state_dict: the step's allocated peak is back.
  EXPECT_LE(dropped.ranks[0].peak.allocated, none.ranks[0].peak.allocated + rounding);
  EXPECT_GE(dropped.ranks[0].peak.allocated + rounding, none.ranks[0].peak.allocated);
  // The resume itself holds the weights and the optimizer's state (bf16 Adam: 4 bytes a value).
  EXPECT_GE(phase_of(gpu.ranks[0], "resume")->peak.allocated, weights * 3);
}

TEST(Resume, WithoutMapLocationEveryRankPutsRankZerosFileOnGpuZero) {
  const auto p = planned(
      "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 8 }\n"
      "parallel: { strategy: ddp }\nprecision: bf16-true\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full }\n"
      "checkpoint: { resume: true, resume_map_location: none }\n");
  std::size_t copies = 0;
  for (const auto& proc : p.gpus[0].processes)
    if (proc.what.find("resumed checkpoint on cuda:0") != std::string::npos) {
      ++copies;
      EXPECT_GE(proc.device, 1'235'814'400ULL * 6);  // bf16 weights and two bf16 moments
    }
  EXPECT_EQ(copies, 7u);
  EXPECT_GT(p.gpus[0].device, p.gpus[1].device + 7 * 1'235'814'400ULL * 6);
  // Rank 0 loads its own file onto its own GPU; the others hold nothing more on theirs.
  const auto mapped = planned(
      "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 8 }\n"
      "parallel: { strategy: ddp }\nprecision: bf16-true\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full }\n"
      "checkpoint: { resume: true, resume_map_location: cpu }\n");
  EXPECT_EQ(p.ranks[1].peak.allocated, mapped.ranks[1].peak.allocated);
  EXPECT_GT(p.ranks[0].peak.allocated, mapped.ranks[0].peak.allocated);
}

TEST(FirstOptimizerStep, IsTheFirstOptimizerPhaseWithTheStateOnTopOfTheGradients) {
  // A short sequence: the optimizer's first step, creating Adam's state beside the gradients,
  // is the peak.
  const auto p = planned(
      "model: llama-3.2-1b\nhardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
      "parallel: { strategy: single }\nprecision: bf16-true\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 256, activation_checkpointing: full }\n");
  EXPECT_EQ(p.ranks[0].peak_phase, "optimizer");
  const auto* first = phase_of(p.ranks[0], "first_optimizer_step");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->peak.allocated, p.ranks[0].peak.allocated);
  // Weights, gradients and the two moments (bf16 each) at least.
  EXPECT_GE(first->peak.allocated, 1'235'814'400ULL * 8);
}

bool same_phases(const rank_prediction& a, const rank_prediction& b) {
  if (a.phases.size() != b.phases.size()) return false;
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    const auto &x = a.phases[i], &y = b.phases[i];
    if (x.name != y.name || x.peak.allocated != y.peak.allocated ||
        x.peak.active != y.peak.active || x.peak.reserved != y.peak.reserved ||
        x.peak.device != y.peak.device || x.fits != y.fits || x.oom != y.oom)
      return false;
  }
  return true;
}

TEST(OutsidePhases, TheReplayWhileBuiltAndItsReusedInitGiveTheWholeReplaysFigures) {
  // plan replays while it builds and reuses an init replayed before on the thread; with the
  // curve asked for it replays the whole program: the phases' figures are the same.
  const std::string yaml = one_gpu("eval: { enabled: true, micro_batch: 4 }\n"
                                   "checkpoint: { resume: true, resume_map_location: cuda }\n");
  auto j = job::parse_job_yaml(yaml, "test.yaml");
  ASSERT_TRUE(j);
  auto m = model::load_model(j->model);
  ASSERT_TRUE(m);
  predict_options curve;
  curve.timeline = true;
  const auto whole = plan(*m, *j, curve);
  const auto built = plan(*m, *j);
  ASSERT_TRUE(whole && built);
  EXPECT_EQ(whole->ranks[0].phases.size(), 3u);  // resume, first_optimizer_step, eval
  EXPECT_TRUE(same_phases(whole->ranks[0], built->ranks[0]));
  auto other = *j;
  other.eval.micro_batch = 8;  // the same init, another evaluation
  ASSERT_TRUE(plan(*m, other));
  const auto again = plan(*m, *j);
  ASSERT_TRUE(again);
  EXPECT_TRUE(same_phases(whole->ranks[0], again->ranks[0]));
}

TEST(Timeline, EachPointSplitsItsAllocatedBytesByWhatIsLive) {
  // The page's hover shows what is live at the pointer: the split must add up to the curve,
  // and at the highest point it is the breakdown the plan reports.
  predict_options curve;
  curve.timeline = true;
  const auto p = planned(one_gpu("eval: { enabled: true, micro_batch: 4 }\n"), curve);
  ASSERT_FALSE(p.ranks.empty());
  const auto& r = p.ranks[0];
  ASSERT_GT(r.timeline.size(), 100u);
  const timeline_point* top = &r.timeline.front();
  bool activations_seen = false;
  for (const auto& pt : r.timeline) {
    bytes sum = 0;
    for (const bytes b : pt.live) sum += b;
    ASSERT_EQ(sum, pt.allocated) << "event " << pt.event;
    if (pt.allocated > top->allocated) top = &pt;
    activations_seen |= pt.live[static_cast<std::size_t>(schedule::category::activations)] > 0;
  }
  EXPECT_TRUE(activations_seen);
  using schedule::category;
  const auto at = [&](category c) { return top->live[static_cast<std::size_t>(c)]; };
  EXPECT_EQ(top->allocated, r.peak.allocated);
  EXPECT_EQ(at(category::parameters), r.parts.parameters);
  EXPECT_EQ(at(category::gradients), r.parts.gradients);
  EXPECT_EQ(at(category::optimizer), r.parts.optimizer);
  EXPECT_EQ(at(category::activations), r.parts.activations);
}

TEST(OutsidePhases, AreRefusedWhereTheyAreNotPlanned) {
  auto j = job::parse_job_yaml(
      "model: llama-3.1-8b\nhardware: { gpus_per_node: 8 }\nparallel: { strategy: fsdp2, pp: 2 }\n"
      "eval: { enabled: true }\n", "test.yaml");
  ASSERT_FALSE(j);
  EXPECT_NE(j.error().to_string().find("eval.enabled: evaluation is not planned under pipeline "
                                       "parallelism (parallel.pp is 2)"),
            std::string::npos)
      << j.error().to_string();
}

}  // namespace
}  // namespace vramscope::predict
