// MEM001: a planned job that runs out of memory, with the single changes that make it fit, each
// case with its own job.
#include <vramscope/core/units.hpp>

#include <vramscope/predict/prediction.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// Llama-3.2-1B in bf16 on one RTX 3090 (torch reports 23.69 GiB), 4,096-token sequences.
std::string job_yaml(int micro_batch, const std::string& training_extra = "") {
  return "model: llama-3.2-1b\n"
         "hardware: { gpu: RTX-3090 }\n"
         "parallel: { strategy: single }\n"
         "precision: bf16-true\n"
         "optimizer: adamw\n"
         "training: { micro_batch: " +
         std::to_string(micro_batch) + ", seq_len: 4096" + training_extra + " }\n";
}

// What the whole step needs: the job planned on a GPU without limit, and never less than its
// plan cut short holds (the rule's own figure, computed here apart from it).
std::int64_t unbounded_need(const planned_job& job) {
  const auto p = predict::plan(job.model, job::with_unlimited_memory(job.job));
  EXPECT_TRUE(p && p->fits);
  return p ? std::max(static_cast<std::int64_t>(predict::busiest_rank(*p).peak.device),
                      job.busiest_device())
           : 0;
}

TEST(Mem001, ListsTheChangesThatMakeItFitCheapestFirst) {
  const auto job = plan_yaml(job_yaml(2));
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  // The plan stops at the out-of-memory error; the step needs more than what came before it.
  const std::int64_t need = unbounded_need(*job);
  EXPECT_GT(need, job->busiest_device());
  // The two fixes written into the job by hand, planned apart from the rule's --set path.
  const auto liger = plan_yaml(job_yaml(2, ", loss: liger_fused"));
  const auto full = plan_yaml(job_yaml(2, ", activation_checkpointing: full"));
  const auto selective = plan_yaml(job_yaml(2, ", activation_checkpointing: selective"));
  ASSERT_TRUE(liger && full && selective);
  ASSERT_TRUE(liger->prediction.fits);
  ASSERT_TRUE(full->prediction.fits);
  ASSERT_FALSE(selective->prediction.fits);
  // Each fix's saving compares the two needs (the fixed job planned without the limit too).
  const std::int64_t liger_saving = need - unbounded_need(*liger);
  const std::int64_t full_saving = need - unbounded_need(*full);

  const auto found = rules::does_not_fit(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "MEM001");
  EXPECT_EQ(f.level, severity::error);
  ASSERT_EQ(f.evidence.size(), 3u);
  // The fp32 logits of 2 x 4,096 tokens over Llama 3's 128,256-word vocabulary are the request
  // that fails; the message is cut before "Of the allocated memory".
  const std::string request = format_bytes(bytes{2} * 4096 * 128256 * 4);
  EXPECT_EQ(request, "3.91 GiB");
  const std::string head =
      "rank 0 runs out of memory in forward:loss: CUDA out of memory. Tried to allocate " +
      request + ". GPU 0 has a total capacity of 23.69 GiB of which ";
  EXPECT_EQ(f.evidence[0].substr(0, head.size()), head) << f.evidence[0];
  EXPECT_TRUE(f.evidence[0].ends_with(" is free")) << f.evidence[0];
  EXPECT_EQ(f.evidence[1],
            "busiest GPU 0: " + format_bytes(static_cast<bytes>(job->busiest_device())) +
                " planned of 23.69 GiB");
  EXPECT_EQ(f.evidence[2], "the whole step needs about " + format_bytes(static_cast<bytes>(need)) +
                               " on the busiest GPU (planned again on a GPU without that limit)");
  EXPECT_EQ(f.cause, "the peak in forward:loss needs more than the GPU has");
  EXPECT_EQ(f.fix,
            "any of these makes it fit with the safety margin, cheapest first:\n"
            "  --set training.loss=liger_fused (needs Liger-Kernel; about as fast; " +
                format_bytes(static_cast<bytes>(liger_saving)) +
                " less on the busiest GPU)\n"
                "  --set training.activation_checkpointing=full (recomputes every block's forward: "
                "~33 % more compute; " +
                format_bytes(static_cast<bytes>(full_saving)) + " less on the busiest GPU)");
  // The saving is the cheapest fix's (the first listed), whichever saves more.
  EXPECT_NE(full_saving, liger_saving);
  EXPECT_EQ(f.saving, liger_saving);
  EXPECT_EQ(f.saving_basis,
            "re-planned with training.loss=liger_fused, against the whole step's need");
}

// Eager attention keeps the b x heads x s^2 scores SDPA's flash kernel never makes: switching
// is the cheapest fix there, listed before checkpointing; a job that already runs flash is not
// told to.
TEST(Mem001, OffersFlashAttentionToAnEagerJob) {
  const auto eager = plan_yaml(job_yaml(1, ", attention: eager"));
  ASSERT_TRUE(eager);
  ASSERT_FALSE(eager->prediction.fits);
  const auto found = rules::does_not_fit(eager->input());
  ASSERT_EQ(found.size(), 1u);
  const auto& fix = found[0].fix;
  const auto flash = fix.find("--set training.attention=flash");
  ASSERT_NE(flash, std::string::npos) << fix;
  const auto full = fix.find("--set training.activation_checkpointing=full");
  if (full != std::string::npos) {
    EXPECT_LT(flash, full) << fix;
  }
  EXPECT_EQ(found[0].saving_basis,
            "re-planned with training.attention=flash, against the whole step's need");
  const auto flash_job = plan_yaml(job_yaml(2));
  ASSERT_TRUE(flash_job);
  const auto again = rules::does_not_fit(flash_job->input());
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].fix.find("training.attention=flash"), std::string::npos) << again[0].fix;
}

// More GPUs help a strategy that shards the state over them: the fewest nodes that make the job
// fit are offered last (the costliest change); DDP, which replicates it, is never told so.
TEST(Mem001, OffersMoreNodesOnlyWhereTheStateIsSharded) {
  const auto yaml = [](const std::string& strategy, int nodes = 1) {
    return "model: llama-3.2-1b\n"
           "hardware: { gpu: A10G, gpus_per_node: 1, nodes: " + std::to_string(nodes) + " }\n"
           "parallel: { strategy: " + strategy + " }\n"
           "training: { micro_batch: 1, seq_len: 1024 }\n";
  };
  const auto fsdp2 = plan_yaml(yaml("fsdp2"));
  const auto two = plan_yaml(yaml("fsdp2", 2));
  ASSERT_TRUE(fsdp2 && two);
  ASSERT_FALSE(fsdp2->prediction.fits);
  ASSERT_TRUE(two->prediction.fits);  // planned apart from the rule
  auto found = rules::does_not_fit(fsdp2->input());
  ASSERT_EQ(found.size(), 1u);
  const std::string last = found[0].fix.substr(found[0].fix.rfind("\n  ") + 3);
  EXPECT_TRUE(last.starts_with("--set hardware.nodes=2 (2 times the GPUs, the state sharded over "
                               "them; "))
      << found[0].fix;
  const auto ddp = plan_yaml(yaml("ddp"));
  ASSERT_TRUE(ddp);
  ASSERT_FALSE(ddp->prediction.fits);
  found = rules::does_not_fit(ddp->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].fix.find("hardware.nodes"), std::string::npos) << found[0].fix;
}

// A ZeRO-2 job whose bf16 weights fill each GPU as they are placed: the plan fails in init, and
// ZeRO-3 is tried without the ZeRO-2 config's own allgather_bucket_size, as a user switching drops
// it (kept, it refused the re-plan and ZeRO-3 was never offered).
TEST(Mem001, OffersZero3ToAZero2JobWithItsOwnBucketsFailingInInit) {
  const auto job = plan_yaml(
      "model: llama-2-13b\n"
      "hardware: { gpu: RTX-3090, gpus_per_node: 8 }\n"
      "parallel: { strategy: zero2, allgather_bucket_size: 2e8 }\n"
      "precision: bf16-mixed\n"
      "optimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 512, activation_checkpointing: full }\n"
      "lora: { rank: 8, targets: [q_proj, v_proj] }\n");
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  const auto found = rules::does_not_fit(job->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].support,
            (std::vector<std::string>{"the plan of the job runs out of memory in init, while "
                                      "the weights are placed, before any training step"}));
  EXPECT_NE(found[0].fix.find("--set parallel.strategy=zero3 (ZeRO-3 shards the parameters too"),
            std::string::npos)
      << found[0].fix;
}

// No change alone is enough at micro-batch 4: the cheapest pair that is, said so.
TEST(Mem001, SaysSoWhenNoSingleChangeMakesItFit) {
  const auto job = plan_yaml(job_yaml(4));
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  const auto found = rules::does_not_fit(job->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::error);
  EXPECT_EQ(found[0].against,
            (std::vector<std::string>{"no single change makes it fit; the pair below does"}));
  const std::string& fix = found[0].fix;
  ASSERT_EQ(std::count(fix.begin(), fix.end(), '\n'), 1) << fix;  // one option listed: the pair
  const std::string option = fix.substr(fix.find('\n') + 3);
  EXPECT_GE(option.find(" --set "), 5u) << fix;  // two settings in it
  EXPECT_NE(option.find(" --set "), std::string::npos) << fix;
  ASSERT_TRUE(found[0].saving);
  EXPECT_GT(*found[0].saving, 0);
}

// A smaller micro-batch with the global batch kept by accumulation is offered before
// checkpointing, and only the largest one that fits.
TEST(Mem001, OffersTheLargestSmallerMicroBatchBeforeCheckpointing) {
  const auto job = plan_yaml("model: llama-3.2-1b\nhardware: { gpu: H100-80GB }\nparallel: { strategy: single }\n"
                             "precision: bf16-true\noptimizer: adamw\n"
                             "training: { micro_batch: 16, seq_len: 4096, gradient_accumulation: 2 }\n");
  ASSERT_TRUE(job);
  ASSERT_FALSE(job->prediction.fits);
  const auto found = rules::does_not_fit(job->input());
  ASSERT_EQ(found.size(), 1u);
  const std::string& fix = found[0].fix;
  // 16 x 2 samples a step: micro-batch 8 does not fit, 4 does and accumulates 8 times; 2 and 1,
  // which fit too, are not listed.
  const auto batch = fix.find("--set training.micro_batch=4 --set training.gradient_accumulation=8 (");
  ASSERT_NE(batch, std::string::npos) << fix;
  EXPECT_EQ(fix.find("--set training.micro_batch=", batch + 1), std::string::npos) << fix;
  const auto eight = plan_yaml("model: llama-3.2-1b\nhardware: { gpu: H100-80GB }\nparallel: { strategy: single }\n"
                               "precision: bf16-true\noptimizer: adamw\n"
                               "training: { micro_batch: 8, seq_len: 4096 }\n");
  ASSERT_TRUE(eight);
  EXPECT_FALSE(eight->prediction.fits);
}

TEST(Mem001, SilentWhenThePlanFits) {
  // Half the batch, or the cheapest fix applied: both plans fit.
  for (const auto& yaml : {job_yaml(1), job_yaml(2, ", loss: liger_fused")}) {
    const auto job = plan_yaml(yaml);
    ASSERT_TRUE(job);
    ASSERT_TRUE(job->prediction.fits) << yaml;
    EXPECT_TRUE(rules::does_not_fit(job->input()).empty()) << yaml;
  }
}

// A plan that fits with less headroom than the safety margin (hardware.margin): a warning, with
// the changes that leave the margin free.
TEST(Mem001, WarnsWhenThePlanFitsOnlyInsideTheMargin) {
  const auto fits = plan_yaml(job_yaml(1));
  ASSERT_TRUE(fits);
  const auto v = predict::verdict_of(fits->prediction);
  ASSERT_EQ(v.state(), predict::fit_state::fits);
  const bytes headroom = v.busiest_capacity - v.busiest_device;
  std::string yaml = job_yaml(1);
  yaml.replace(yaml.find("gpu: RTX-3090"), 13,
               "gpu: RTX-3090, margin: " + std::to_string(headroom + 1_MiB) + "B");
  const auto tight = plan_yaml(yaml);
  ASSERT_TRUE(tight);
  ASSERT_EQ(predict::state_of(tight->prediction), predict::fit_state::tight);
  const auto found = rules::does_not_fit(tight->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_NE(found[0].cause.find("run-to-run variation"), std::string::npos) << found[0].cause;
  EXPECT_NE(found[0].evidence[0].find("less than the"), std::string::npos) << found[0].evidence[0];
}

TEST(Mem001, SilentWithoutAPrediction) {
  const auto job = plan_yaml(job_yaml(2));
  ASSERT_TRUE(job);
  doctor_input in = job->input();
  in.prediction = nullptr;
  EXPECT_TRUE(rules::does_not_fit(in).empty());
}

}  // namespace
}  // namespace vramscope::doctor
