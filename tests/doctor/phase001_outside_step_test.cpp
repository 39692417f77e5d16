// CKPT001 and the other phase rules from a plan: a job whose training step fits but whose
// checkpoint save does not is told so first, with the fix priced by re-planning it.
#include <vramscope/core/units.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "doctor/likelihood.hpp"
#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// Llama-3.1-8B under FSDP1 on eight 40 GB GPUs: the step fits, a FULL_STATE_DICT kept on the
// GPU does not (tests/predict/phases_test.cpp).
std::string fsdp1_save(const std::string& checkpoint) {
  return "model: llama-3.1-8b\nhardware: { gpu: A100-40GB, gpus_per_node: 8 }\n"
         "parallel: { strategy: fsdp1, wrap: block }\nprecision: bf16-mixed\noptimizer: adamw\n"
         "training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full }\n"
         "checkpoint: " + checkpoint + "\n";
}

TEST(Ckpt001, ASaveThePlanRunsOutOfMemoryInComesFirstWithItsFixPriced) {
  const auto job = plan_yaml(fsdp1_save("{ save: full, offload_to_cpu: false }"));
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  const auto found = rules::checkpoint_save(job->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "checkpoint_save");
  EXPECT_NE(found[0].evidence[0].find("in checkpoint_save"), std::string::npos) << found[0].evidence[0];
  ASSERT_TRUE(found[0].saving);
  EXPECT_GT(*found[0].saving, 0);
  EXPECT_NE(found[0].saving_basis.find("checkpoint.offload_to_cpu=true"), std::string::npos);
  const auto ranked = diagnose(job->input());
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].rule, "CKPT001");
  // The steps fit: MEM001's step changes (a smaller micro-batch, recompute) would not make the
  // save fit, and it leaves the failure to CKPT001 rather than contradict its fix.
  for (const auto& f : ranked) EXPECT_NE(f.rule, "MEM001") << f.fix;
  // The same job saving off the GPU: nothing to say about its save.
  const auto fixed = plan_yaml(fsdp1_save("{ save: full, offload_to_cpu: true, rank0_only: true }"));
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(rules::checkpoint_save(fixed->input()).empty());
}

// LLaMA-13B as an int8 LoRA base on a 24 GB RTX 4090 (the periodic adapter save of
// tests/data/threads/510): the steps fit under recompute; bitsandbytes 0.38.1 copies the int8
// base twice while PEFT builds the model's state dict, and the save runs out.
std::string int8_save(const std::string& bitsandbytes) {
  return "model: llama-2-13b\nhardware: { gpu: RTX-4090, driver_reserved: 0, gpus_per_node: 1 }\n"
         "parallel: { strategy: single }\nprecision: fp16-mixed\noptimizer: adamw\n"
         "training: { micro_batch: 4, seq_len: 256, activation_checkpointing: full }\n"
         "lora: { rank: 32, targets: [q_proj, v_proj], base_quantization: int8 }\n"
         "checkpoint: { save: full }\nframework: { bitsandbytes: \"" +
         bitsandbytes + "\" }\n";
}

TEST(Ckpt001, AnInt8BaseThatBitsandbytes038CopiesOnSaveNamesTheReleaseThatDoesNot) {
  const auto job = plan_yaml(int8_save("0.38.1"));
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  const auto ranked = diagnose(job->input());
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].rule, "CKPT001");
  EXPECT_NE(ranked[0].cause.find("bitsandbytes 0.38.1"), std::string::npos) << ranked[0].cause;
  EXPECT_NE(ranked[0].fix.find("0.39.1"), std::string::npos) << ranked[0].fix;
  // Not FSDP's fix: offloading a gather the strategy never makes would save nothing.
  EXPECT_EQ(ranked[0].fix.find("FullStateDictConfig"), std::string::npos) << ranked[0].fix;
  ASSERT_TRUE(ranked[0].saving);
  EXPECT_GT(*ranked[0].saving, static_cast<std::int64_t>(10_GiB));
  EXPECT_NE(ranked[0].saving_basis.find("framework.bitsandbytes=0.39.1"), std::string::npos);
  for (const auto& f : ranked) EXPECT_NE(f.rule, "MEM001") << f.fix;
  const auto fixed = plan_yaml(int8_save("0.39.1"));
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(fixed->prediction.fits);
  EXPECT_TRUE(rules::checkpoint_save(fixed->input()).empty());
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

std::vector<finding> diagnose_paste(const std::string& text, const std::string& name) {
  static std::optional<observe::observation> kept;  // the findings point into it
  auto o = observe::parse_observation(text, name, {});
  EXPECT_TRUE(o) << o.error().to_string();
  if (!o) return {};
  kept = std::move(*o);
  doctor_input in;
  in.observed = &*kept;
  return diagnose(in);
}

TEST(Optim001, ATracebackPastedBelowItsMessagePlacesTheOptimizersFirstStep) {
  const auto found = diagnose_paste(
      "OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB. GPU 0 has a total capacity of "
      "79.19 GiB of which 20.00 MiB is free. Of the allocated memory 77.93 GiB is allocated by PyTorch, and "
      "100.00 MiB is reserved by PyTorch but unallocated.\n"
      "  File \".../train/callbacks/checkpointer.py\", line 239, in pre_train\n"
      "  ...\n"
      "  File \"torch/distributed/checkpoint/state_dict.py\", line 648, in _init_optim_state\n"
      "    optim.step(closure=None)\n",
      "oom.txt");
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].rule, "OPTIM001");
  EXPECT_EQ(found[0].cause_class, "first_optimizer_step");
}

TEST(Ckpt002, AMemorySummaryOfALoadThatHeldACopyOfTheModel) {
  const std::string head =
      "|===========================================================================|\n"
      "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
      "|---------------------------------------------------------------------------|\n"
      "|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |\n"
      "|===========================================================================|\n"
      "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
      "|---------------------------------------------------------------------------|\n";
  const auto load = diagnose_paste(head + "| Allocated memory      |    3881 MB |    7762 MB |    7762 MB |    3881 MB |\n",
                                   "stats.txt");
  const auto resume = std::find_if(load.begin(), load.end(), [](const finding& f) { return f.rule == "CKPT002"; });
  ASSERT_NE(resume, load.end());
  EXPECT_EQ(resume->likelihood, likelihood::likely);
  EXPECT_EQ(resume->saving, static_cast<std::int64_t>(3881_MiB));
  EXPECT_NE(resume->fix.find("map_location"), std::string::npos);
  // Steps ran (allocated far beyond the peak in all), or little was freed: not a load's copy.
  for (const std::string row : {"| Allocated memory      |    3881 MB |    7762 MB |   2142 GiB |   2138 GiB |\n",
                                "| Allocated memory      |    3881 MB |    4100 MB |    4100 MB |     219 MB |\n"}) {
    const auto other = diagnose_paste(head + row, "stats.txt");
    EXPECT_TRUE(std::none_of(other.begin(), other.end(), [](const finding& f) { return f.rule == "CKPT002"; }))
        << row;
  }
}

}  // namespace
}  // namespace vramscope::doctor
