// OPT001: the memory options of an FSDP job re-planned one by one, those that save nothing
// listed first, each case with its own job.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// lit-gpt's FSDPStrategy baseline: Llama-2-7B on 8 x A100 80 GB, bf16-true, one unit per block,
// limit_all_gathers=True, cpu_offload=False (examples/cases/3-fsdp-options); `options` replaces
// the last two or adds to them.
std::string litgpt_job(const std::string& options = "limit_all_gathers: true, cpu_offload: false") {
  return "model: llama-2-7b\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: 8, nodes: 1 }\n"
         "parallel: { strategy: fsdp1, wrap: block, " +
         options +
         " }\n"
         "precision: bf16-true\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 4, seq_len: 4096, activation_checkpointing: full }\n"
         "checkpoint: { save: full }\n"
         "framework: { name: torch, version: \"2.3\" }\n";
}

std::string small_job(const std::string& strategy) {
  return "model: llama-3.2-1b\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: 4 }\n"
         "parallel: { strategy: " +
         strategy +
         " }\n"
         "precision: { params: bf16, master: fp32, reduce: fp32, buffers: fp32 }\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 2, seq_len: 2048 }\n"
         "framework: { version: \"2.8\" }\n";
}

// The busiest GPU of `changed` less that of `base`, as the rule words it ("+34.28 GiB").
std::string delta(const planned_job& base, const planned_job& changed) {
  return format_delta(changed.busiest_device() - base.busiest_device());
}

TEST(Opt001, ListsFsdp1OptionsThatSaveNothingThenTheOthers) {
  const auto job = plan_yaml(litgpt_job());
  const auto all_gathers = plan_yaml(litgpt_job("limit_all_gathers: false, cpu_offload: false"));
  const auto offload = plan_yaml(litgpt_job("limit_all_gathers: true, cpu_offload: true"));
  const auto orig_params =
      plan_yaml(litgpt_job("limit_all_gathers: true, cpu_offload: false, use_orig_params: false"));
  const auto prefetch =
      plan_yaml(litgpt_job("limit_all_gathers: true, cpu_offload: false, forward_prefetch: true"));
  ASSERT_TRUE(job && all_gathers && offload && orig_params && prefetch);
  // Planned from their own YAML: two options change nothing (under 1 MiB), two do.
  EXPECT_LT(std::llabs(orig_params->busiest_device() - job->busiest_device()), 1 << 20);
  EXPECT_LT(std::llabs(prefetch->busiest_device() - job->busiest_device()), 1 << 20);

  const auto found = rules::options_without_effect(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "OPT001");
  EXPECT_EQ(f.level, severity::info);
  // bf16-true already reduces in bf16: a bf16 MixedPrecision adds nothing. (precision.buffers is
  // not asked: the planner keeps no buffers, so it could never show a change.)
  EXPECT_EQ(f.evidence, (std::vector<std::string>{
                            "--set parallel.use_orig_params=false: no change on the busiest GPU",
                            "--set parallel.forward_prefetch=true: no change on the busiest GPU",
                            "--set precision.reduce=bf16: no change on the busiest GPU",
                            "--set parallel.limit_all_gathers=false: " + delta(*job, *all_gathers) +
                                " on the busiest GPU",
                            "--set parallel.cpu_offload=true: " + delta(*job, *offload) +
                                " on the busiest GPU"}));
  EXPECT_EQ(delta(*job, *all_gathers).front(), '+');
  EXPECT_EQ(delta(*job, *offload).front(), '-');
  // A list of options with their own deltas claims no saving of its own ("saving: 0 B" beside
  // -12 GiB and +43 GiB read as a contradiction), and names no cause.
  EXPECT_FALSE(f.saving);
  EXPECT_TRUE(f.cause_class.empty());
  EXPECT_EQ(f.saving_basis, "re-planned each setting on its own");
}

TEST(Opt001, Fsdp2IsAskedOnlyAboutOffloadAndMixedPrecision) {
  // The job computes in bf16 and reduces in fp32: both the offload and a bf16 reduction save, so
  // no option is without effect and the rule stays silent.
  const auto job = plan_yaml(small_job("fsdp2"));
  const auto offload = plan_yaml(small_job("fsdp2, cpu_offload: true"));
  ASSERT_TRUE(job && offload);
  EXPECT_LT(offload->busiest_device(), job->busiest_device());
  EXPECT_TRUE(rules::options_without_effect(job->input()).empty());
  // With the offload already on, turning it off adds memory, and the bf16 reduction still
  // saves: silent again.
  EXPECT_TRUE(rules::options_without_effect(offload->input()).empty());
}

// A job that does not fit: its plan stops at the out-of-memory error, and so does a re-plan
// that still does not fit, so both hold the same when the option acts after the error. The rule
// compares what the whole step needs instead (planned on a GPU without the limit). Here FSDP2 at
// micro-batch 32 runs out in forward, before the bf16 reduction and the offload act: cut short,
// the reduction reads as "no change"; on the whole step both save, so nothing is listed.
TEST(Opt001, JudgesAJobThatDoesNotFitOnWhatItsStepNeeds) {
  auto yaml = small_job("fsdp2");
  yaml.replace(yaml.find("micro_batch: 2"), 14, "micro_batch: 32");
  auto bf16_yaml = yaml;
  bf16_yaml.replace(bf16_yaml.find("reduce: fp32"), 12, "reduce: bf16");
  const auto job = plan_yaml(yaml);
  const auto bf16 = plan_yaml(bf16_yaml);
  ASSERT_TRUE(job && bf16);
  ASSERT_FALSE(job->prediction.fits);
  ASSERT_FALSE(bf16->prediction.fits);
  EXPECT_EQ(bf16->busiest_device(), job->busiest_device());  // the trap: both cut short alike
  EXPECT_TRUE(rules::options_without_effect(job->input()).empty());
  // With an option that saves nothing on the whole step too (the reduction already bf16), the
  // finding says how it was judged.
  const auto found = rules::options_without_effect(bf16->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.front(), "--set precision.reduce=bf16: no change on the busiest GPU");
  EXPECT_EQ(found[0].saving_basis,
            "re-planned each setting on its own, on a GPU without the limit (the job does not "
            "fit its own)");
}

TEST(Opt001, SilentForDdpOrWithoutAPlan) {
  const auto ddp = plan_yaml(small_job("ddp"));
  ASSERT_TRUE(ddp);
  EXPECT_TRUE(rules::options_without_effect(ddp->input()).empty());

  const auto job = plan_yaml(litgpt_job());
  ASSERT_TRUE(job);
  doctor_input no_plan = job->input();
  no_plan.prediction = nullptr;
  EXPECT_TRUE(rules::options_without_effect(no_plan).empty());
  doctor_input no_job = job->input();
  no_job.job = nullptr;
  EXPECT_TRUE(rules::options_without_effect(no_job).empty());
}

}  // namespace
}  // namespace vramscope::doctor
