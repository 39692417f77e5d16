#include <vramscope/watch/alerts.hpp>

#include <gtest/gtest.h>

#include <chrono>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::gpu;
using testing::process;

std::vector<alert> of_kind(const std::vector<alert>& all, alert_kind kind) {
  std::vector<alert> out;
  for (const auto& a : all)
    if (a.kind == kind) out.push_back(a);
  return out;
}

// Four ranks; ranks 1-3 also created a context on GPU 0 (DDP "GPU 0 fills up").
sample ddp_gpu0() {
  sample s;
  s.gpus.push_back(gpu(0, 22 * GiB, 80 * GiB));
  for (int i = 1; i < 4; ++i) s.gpus.push_back(gpu(i, 20 * GiB, 80 * GiB));
  s.processes.push_back(process(0, 1000, 20 * GiB, 0));
  for (int r = 1; r < 4; ++r) s.processes.push_back(process(0, 1000 + r, 500 * MiB, r));
  for (int r = 1; r < 4; ++r) s.processes.push_back(process(r, 1000 + r, 20 * GiB, r));
  return s;
}

TEST(SharedGpuAlert, NamesRanksThatAlsoUseAnotherGpu) {
  const auto alerts = of_kind(evaluate_alerts(ddp_gpu0()), alert_kind::shared_gpu);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].gpu, 0);
  EXPECT_EQ(alerts[0].pids, (std::vector<std::int64_t>{1000, 1001, 1002, 1003}));
  EXPECT_EQ(alerts[0].message,
            "GPU 0 holds 4 processes: pid 1000 (rank 0), pid 1001 (rank 1), pid 1002 (rank 2), "
            "pid 1003 (rank 3). pid 1001 (rank 1), pid 1002 (rank 2), pid 1003 (rank 3) also use "
            "another GPU: ranks touched GPU 0 before setting their own device, or loaded a "
            "checkpoint without map_location; call torch.cuda.set_device(local_rank) first and "
            "load with map_location=\"cpu\".");
}

TEST(SharedGpuAlert, TwoUnrelatedJobsOnOneGpu) {
  sample s;
  s.gpus.push_back(gpu(0, 30 * GiB, 80 * GiB));
  s.processes.push_back(process(0, 1, 10 * GiB));
  s.processes.push_back(process(0, 2, 20 * GiB));
  const auto alerts = of_kind(evaluate_alerts(s), alert_kind::shared_gpu);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].pids, (std::vector<std::int64_t>{2, 1})) << "largest first";
  EXPECT_EQ(alerts[0].message,
            "GPU 0 holds 2 processes: pid 2, pid 1. They compete for its memory; check that each "
            "rank uses its own GPU.");
}

TEST(SharedGpuAlert, GraphicsOnlyProcessDoesNotCount) {
  sample s;
  s.gpus.push_back(gpu(0, 30 * GiB, 80 * GiB));
  s.processes.push_back(process(0, 1, 10 * GiB));
  s.processes.push_back(process(0, 2, 100 * MiB));
  s.processes[1].process.type = "G";
  EXPECT_TRUE(of_kind(evaluate_alerts(s), alert_kind::shared_gpu).empty());
}

TEST(ImbalancedGpuAlert, FiresForOneGpuFarAbovePeers) {
  sample s;
  for (int i = 0; i < 4; ++i) {
    s.gpus.push_back(gpu(i, i == 2 ? 40 * GiB : 20 * GiB, 80 * GiB));
    s.processes.push_back(process(i, 100 + i, i == 2 ? 39 * GiB : 19 * GiB, i));
  }
  const auto alerts = of_kind(evaluate_alerts(s), alert_kind::imbalanced_gpu);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].gpu, 2);
  EXPECT_EQ(alerts[0].message,
            "GPU 2 uses 40.00 GiB, 20.00 GiB more than the median of the other busy GPUs "
            "(20.00 GiB); look for work only one rank does (loading, evaluation, logging) or "
            "tensors placed on this GPU by other ranks.");
}

TEST(ImbalancedGpuAlert, SmallDifferencesAndIdleGpusDoNotFire) {
  sample s;
  s.gpus.push_back(gpu(0, 3 * GiB, 80 * GiB));  // twice its peer, but only 1.5 GiB more
  s.gpus.push_back(gpu(1, 1 * GiB + 512 * MiB, 80 * GiB));
  s.gpus.push_back(gpu(2, 100 * MiB, 80 * GiB));  // idle: no process, not a peer
  s.processes.push_back(process(0, 1, 3 * GiB));
  s.processes.push_back(process(1, 2, 1 * GiB));
  EXPECT_TRUE(of_kind(evaluate_alerts(s), alert_kind::imbalanced_gpu).empty());
}

TEST(ImbalancedGpuAlert, SingleBusyGpuHasNoPeers) {
  sample s;
  s.gpus.push_back(gpu(0, 70 * GiB, 80 * GiB));
  s.gpus.push_back(gpu(1, 0, 80 * GiB));
  s.processes.push_back(process(0, 1, 70 * GiB));
  EXPECT_TRUE(of_kind(evaluate_alerts(s), alert_kind::imbalanced_gpu).empty());
}

TEST(NearLimitAlert, UsesTheWindowPeak) {
  sample s;
  s.gpus.push_back(gpu(0, 60 * GiB, 80 * GiB));
  s.processes.push_back(process(0, 7, 59 * GiB, 0));
  EXPECT_TRUE(of_kind(evaluate_alerts(s), alert_kind::near_limit).empty());
  s.gpus[0].peak_used = 78 * GiB;  // a spike between two refreshes
  const auto alerts = of_kind(evaluate_alerts(s), alert_kind::near_limit);
  ASSERT_EQ(alerts.size(), 1u);
  EXPECT_EQ(alerts[0].message,
            "GPU 0 reached 98% of its memory (78.00 GiB of 80.00 GiB); the largest holder is "
            "pid 7 (rank 0) with 59.00 GiB: the next allocation spike may run out of memory.");
}

TEST(NearLimitAlert, ThresholdIsConfigurable) {
  sample s;
  s.gpus.push_back(gpu(0, 70 * GiB, 80 * GiB));
  alert_options o;
  EXPECT_TRUE(of_kind(evaluate_alerts(s, o), alert_kind::near_limit).empty());
  o.near_limit_fraction = 0.85;
  EXPECT_EQ(of_kind(evaluate_alerts(s, o), alert_kind::near_limit).size(), 1u);
}

TEST(PreallocatedPoolAlert, FiresForJaxHoldingMostOfTheGpu) {
  sample s;
  for (int i = 0; i < 2; ++i) {
    s.gpus.push_back(gpu(i, 72 * GiB + 300 * MiB, 80 * GiB));
    s.processes.push_back(process(i, 2001, 72 * GiB));
    s.processes.back().details.framework = "jax";
    s.processes.back().details.xla_mem_fraction = 0.9;
  }
  const auto alerts = of_kind(evaluate_alerts(s), alert_kind::preallocated_pool);
  ASSERT_EQ(alerts.size(), 2u) << "one per GPU the process preallocated on";
  EXPECT_EQ(alerts[1].gpu, 1);
  EXPECT_EQ(alerts[0].message,
            "pid 2001 (JAX) holds 72.00 GiB, 90% of GPU 0: XLA preallocates a fixed share of "
            "every GPU it can see (XLA_PYTHON_CLIENT_MEM_FRACTION=0.9), so this is the pool, not "
            "what the model needs; set XLA_PYTHON_CLIENT_PREALLOCATE=false or a smaller "
            "fraction, and CUDA_VISIBLE_DEVICES to the GPUs the job uses.");
}

TEST(PreallocatedPoolAlert, TorchOrUnknownProcessDoesNotFire) {
  sample s;
  s.gpus.push_back(gpu(0, 72 * GiB, 80 * GiB));
  s.processes.push_back(process(0, 1, 72 * GiB));
  s.processes.back().details.framework = "torch";
  EXPECT_TRUE(of_kind(evaluate_alerts(s), alert_kind::preallocated_pool).empty());
}

TEST(Alerts, LostGpuAndMissingFiguresFireNothing) {
  sample s;
  s.gpus.push_back(gpu(0, std::nullopt, std::nullopt));
  s.gpus.push_back(gpu(1, 79 * GiB, 80 * GiB));
  s.gpus[1].lost = true;
  s.processes.push_back(process(0, 1, std::nullopt));
  EXPECT_TRUE(evaluate_alerts(s).empty());
}

// 4,000 GPUs with four processes each took 49 s when every GPU's checks walked every other
// GPU's processes; the checks now share one index. The answer is what the small cases give:
// only the one GPU far above the median of the others is imbalanced, and only the GPU whose
// processes also hold another GPU is shared with strays named.
TEST(Alerts, ManyGpusGiveTheSameAnswersQuickly) {
  sample s;
  for (int i = 0; i < 4000; ++i) {
    s.gpus.push_back(gpu(i, (i == 17 ? 60 : 20) * GiB + static_cast<bytes>(i) * MiB, 80 * GiB));
    for (int k = 0; k < 4; ++k)
      s.processes.push_back(process(i, 100000 + i * 4 + k, 4 * GiB, i * 4 + k));
  }
  s.processes.push_back(process(3999, 100000, 1 * GiB));  // pid of GPU 0 also on GPU 3999
  const auto start = std::chrono::steady_clock::now();
  const auto all = evaluate_alerts(s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto imbalanced = of_kind(all, alert_kind::imbalanced_gpu);
  ASSERT_EQ(imbalanced.size(), 1u);
  EXPECT_EQ(imbalanced[0].gpu, 17);
  const auto shared = of_kind(all, alert_kind::shared_gpu);
  EXPECT_EQ(shared.size(), 4000u);  // four processes on each GPU
  EXPECT_NE(shared[0].message.find("pid 100000 (rank 0) also uses another GPU"), std::string::npos)
      << shared[0].message;
  EXPECT_EQ(shared[1].message.find("also use"), std::string::npos) << shared[1].message;
  EXPECT_LT(seconds, 5.0);  // about 0.05 s; the cubic checks took 49 s
}

TEST(Alerts, IdsAreStable) {
  std::vector<std::string> ids;
  for (auto k : all_alert_kinds()) ids.emplace_back(alert_id(k));
  EXPECT_EQ(ids, (std::vector<std::string>{"shared_gpu", "imbalanced_gpu", "near_limit",
                                           "preallocated_pool"}));
}

}  // namespace
}  // namespace vramscope::watch
