// PRED001: observations that differ from the plan by more than 10 %, level by level, each case
// with its own prediction and observation.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// Two ranks on two GPUs, each planned at 20 GiB allocated, 24 GiB reserved, 26 GiB on the GPU.
predict::prediction two_ranks() {
  predict::prediction p;
  for (int r = 0; r < 2; ++r) {
    predict::rank_prediction rank;
    rank.rank = r;
    rank.gpu = r;
    rank.peak = {20_GiB, 20_GiB, 24_GiB, 26_GiB};
    p.ranks.push_back(rank);
    p.gpus.push_back({r, 80_GiB, 26_GiB, {}});
  }
  return p;
}

observe::torch_stats stats(std::optional<int> rank, std::optional<bytes> allocated,
                           std::optional<bytes> reserved = {}) {
  observe::torch_stats s;
  s.rank = rank;
  s.allocated.peak = allocated;
  s.reserved.peak = reserved;
  return s;
}

observe::gpu_observation gpu(int index, bytes used) {
  observe::gpu_observation g;
  g.index = index;
  g.total = 80_GiB;
  g.used = used;
  return g;
}

std::vector<finding> check(const predict::prediction& p, const observe::observation& o) {
  doctor_input in;
  in.prediction = &p;
  in.observed = &o;
  return rules::prediction_disagrees(in);
}

TEST(Pred001, NamesEachLevelOutsideTheTolerance) {
  const auto p = two_ranks();
  observe::observation o;
  // Rank 1: allocated (20 - 25) / 25 = -20 %, reserved (24 - 25) / 25 = -4 % (within).
  // GPU 0: (26 - 20) / 20 = +30 %.
  o.stats = {stats(1, 25_GiB, 25_GiB)};
  o.gpus = {gpu(0, 20_GiB), gpu(1, 26_GiB)};
  const auto found = check(p, o);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "PRED001");
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence, (std::vector<std::string>{
                            "rank 1 allocated peak: observed 25.00 GiB, planned 20.00 GiB (-20 %)",
                            "GPU 0 device use: observed 20.00 GiB, planned 26.00 GiB (+30 %)"}));
  EXPECT_EQ(f.cause,
            "the job as specified and what ran differ by more than 10 %: either the job spec does "
            "not describe the run (batch, sequence length, precision, options) or the model of "
            "this setup is off");
  EXPECT_FALSE(f.saving);
}

TEST(Pred001, TenPercentEitherWayIsWithinTheTolerance) {
  const auto fires = [](bytes observed) {
    const auto p = two_ranks();  // 20 GiB allocated
    observe::observation o;
    o.stats = {stats(0, observed)};
    return !check(p, o).empty();
  };
  // Relative to the observation: (20 - 200/11) / (200/11) = +10 %, (20 - 22.2) / 22.2 = -10 %.
  EXPECT_FALSE(fires(20_GiB * 10 / 11 + 1));
  EXPECT_TRUE(fires(20_GiB * 10 / 11 - 1_MiB));
  EXPECT_FALSE(fires(20_GiB * 10 / 9 - 1));
  EXPECT_TRUE(fires(20_GiB * 10 / 9 + 1_MiB));
}

TEST(Pred001, SilentOnRanksAndGpusThePlanDoesNotHave) {
  const auto p = two_ranks();
  observe::observation o;
  o.stats = {stats(2, 40_GiB), stats(-1, 40_GiB), stats(0, 0)};  // 0 bytes: nothing observed
  o.gpus = {gpu(2, 60_GiB)};
  EXPECT_TRUE(check(p, o).empty());

  observe::observation no_rank;  // a stats file without a rank is rank 0's
  no_rank.stats = {stats(std::nullopt, 40_GiB)};
  const auto found = check(p, no_rank);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].evidence[0].starts_with("rank 0 allocated peak: ")) << found[0].evidence[0];
}

TEST(Pred001, SilentWithoutAPredictionOrAnObservation) {
  const auto p = two_ranks();
  observe::observation o;
  o.stats = {stats(0, 40_GiB)};
  doctor_input in;
  in.prediction = &p;
  EXPECT_TRUE(rules::prediction_disagrees(in).empty());
  in.prediction = nullptr;
  in.observed = &o;
  EXPECT_TRUE(rules::prediction_disagrees(in).empty());
}

TEST(Pred001, APlannedJobAgainstWhatRan) {
  const auto job = plan_yaml(
      "model: llama-3.2-1b\n"
      "hardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
      "parallel: { strategy: single }\n"
      "precision: bf16-true\n"
      "training: { micro_batch: 2, seq_len: 2048 }\n");
  ASSERT_TRUE(job);
  const auto& r = job->prediction.ranks[0];
  // The run's figures as planned: nothing to say.
  observe::observation as_planned;
  as_planned.stats = {stats(0, r.peak.allocated, r.peak.reserved)};
  as_planned.gpus = {gpu(0, job->prediction.gpus[0].device)};
  EXPECT_TRUE(rules::prediction_disagrees(job->input(&as_planned)).empty());

  // A run that allocated a quarter more than planned (a larger batch than the spec says).
  observe::observation larger = as_planned;
  larger.stats[0].allocated.peak = r.peak.allocated / 4 * 5;
  const auto found = rules::prediction_disagrees(job->input(&larger));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence,
            (std::vector<std::string>{"rank 0 allocated peak: observed " +
                                      format_bytes(r.peak.allocated / 4 * 5) + ", planned " +
                                      format_bytes(r.peak.allocated) + " (-20 %)"}));
}

}  // namespace
}  // namespace vramscope::doctor
