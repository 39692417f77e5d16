// CKPT001 and the other phase rules from a plan: a job whose training step fits but whose
// checkpoint save does not is told so first, with the fix priced by re-planning it.
#include <gtest/gtest.h>

#include <string>

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
  // The same job saving off the GPU: nothing to say about its save.
  const auto fixed = plan_yaml(fsdp1_save("{ save: full, offload_to_cpu: true, rank0_only: true }"));
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(rules::checkpoint_save(fixed->input()).empty());
}

}  // namespace
}  // namespace vramscope::doctor
