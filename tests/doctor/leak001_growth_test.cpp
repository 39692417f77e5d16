// LEAK001: memory kept from one iteration to the next. Two pastes of the same GPU whose memory
// grew; an out-of-memory message nothing places, which reads like a step that does not fit and
// so ranks below it, saying so.
#include <vramscope/doctor/finding.hpp>
#include <vramscope/observe/oom_report.hpp>

#include <gtest/gtest.h>

#include <string>

#include "doctor/likelihood.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::gpu_observation gpu(bytes used, int utilisation) {
  observe::gpu_observation g;
  g.index = 0;
  g.name = "TITAN X (Pascal)";
  g.total = 12189_MiB;
  g.used = used;
  g.utilization_gpu = utilisation;
  return g;
}

std::vector<finding> check(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::kept_across_iterations(in);
}

observe::observation::figure_series series(std::vector<double> gib) {
  observe::observation::figure_series s{"GPU max memory allocated:", {}, "log.txt"};
  for (std::size_t k = 0; k < gib.size(); ++k)
    s.points.emplace_back(static_cast<int>(k) + 1, static_cast<bytes>(gib[k] * 1024 * 1024 * 1024));
  return s;
}

// A figure a log prints each step that rises steadily by more than a context is kept memory
// (Project-MONAI/MONAI#7480's per-step maximum allocated); one that stays level, or falls and
// rises in turn, is not.
TEST(Leak001, AFigureRisingFromPrintToPrintIsKeptMemory) {
  observe::observation o;
  o.series = {series({0.5, 0.9, 1.0, 1.5, 2.6})};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "leak");
  EXPECT_EQ(found[0].likelihood, likelihood::possible);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(2.1 * 1024 * 1024 * 1024));
  EXPECT_NE(found[0].evidence[0].find("log.txt lines 1 to 5"), std::string::npos) << found[0].evidence[0];
  o.series = {series({2.0, 2.0, 2.0, 2.1})};
  EXPECT_TRUE(check(o).empty());
  o.series = {series({1.0, 6.0, 1.0, 6.0, 1.0, 7.0})};
  EXPECT_TRUE(check(o).empty());
}

// A memory summary's counts: 156,071 live allocations holding 820 MB, all but 2 MB of them in the
// small pool (tests/data/threads 946), are small tensors kept by the hundred thousand; a training
// job's own 1,843, or as many allocations held mostly in the large pool (a model's matrices), are
// not.
observe::torch_stats summary_counts(std::uint64_t count, bytes small, bytes large) {
  observe::torch_stats s;
  s.origin = observe::stats_origin::memory_summary_text;
  s.source = "summary.txt";
  s.raw["allocation.all.current"] = count;
  s.raw["allocated_bytes.all.current"] = small + large;
  s.raw["allocated_bytes.small_pool.current"] = small;
  s.raw["allocated_bytes.large_pool.current"] = large;
  return s;
}

TEST(Leak001, SmallTensorsByTheHundredThousandAreKeptMemory) {
  observe::observation o;
  o.stats = {summary_counts(156'071, 820_MiB, 2_MiB)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "leak");
  EXPECT_EQ(found[0].likelihood, likelihood::possible);
  EXPECT_NE(found[0].evidence[0].find(
                "156071 live allocations, 820.0 MiB of the 822.0 MiB allocated in the "
                "small pool"),
            std::string::npos)
      << found[0].evidence[0];
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(820_MiB));
  o.stats = {summary_counts(1'843, 102_MiB, 10137_MiB)};
  EXPECT_TRUE(check(o).empty());
  o.stats = {summary_counts(156'071, 820_MiB, 40_GiB)};
  EXPECT_TRUE(check(o).empty());
  o.stats = {summary_counts(99'000, 820_MiB, 2_MiB)};
  EXPECT_TRUE(check(o).empty());
  // A summary cut above its "Allocated memory" rows is read from its active bytes.
  auto cut = summary_counts(156'071, 820_MiB, 0);
  cut.raw.erase("allocated_bytes.all.current");
  cut.raw.erase("allocated_bytes.small_pool.current");
  cut.raw.erase("allocated_bytes.large_pool.current");
  cut.raw["active_bytes.all.current"] = 820_MiB;
  cut.raw["active_bytes.small_pool.current"] = 820_MiB;
  o.stats = {cut};
  EXPECT_EQ(check(o).size(), 1u);
}

// TensorFlow.js's count of live tensors rising at every print is kept memory whatever its bytes;
// a count that stays level or falls once is not.
TEST(Leak001, ATensorCountRisingAtEveryPrintIsKeptMemory) {
  observe::observation::figure_series count{"tf.memory() numTensors", {}, "stats.txt"};
  for (int k = 0; k < 5; ++k) count.points.emplace_back(k + 1, static_cast<bytes>(20 + 4 * k));
  count.tensor_count = true;
  observe::observation o;
  o.series = {count};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "leak");
  EXPECT_NE(found[0].fix.find("tf.tidy"), std::string::npos) << found[0].fix;
  EXPECT_NE(found[0].evidence[0].find("from 20 to 36 over 5 prints"), std::string::npos)
      << found[0].evidence[0];
  o.series[0].points[3].second = o.series[0].points[2].second;
  EXPECT_TRUE(check(o).empty());
}

// pytorch/pytorch#4661's two screens of one idle GPU, 2417 then 4417 MiB.
TEST(Leak001, TheSameIdleGpuHoldingMoreInTheLaterPasteIsKeptMemory) {
  observe::observation o;
  o.gpus = {gpu(2417_MiB, 0), gpu(4417_MiB, 0)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "LEAK001");
  EXPECT_EQ(found[0].cause_class, "leak");
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(2000_MiB));
  EXPECT_NE(found[0].fix.find("item()"), std::string::npos);
  EXPECT_NE(found[0].against.back().find("no process list"), std::string::npos);
  // Busy in either paste: a job still loading reads the same, so possible only.
  o.gpus = {gpu(2417_MiB, 0), gpu(4417_MiB, 97)};
  ASSERT_EQ(check(o).size(), 1u);
  EXPECT_EQ(check(o)[0].likelihood, likelihood::possible);
  // No more than a context could add, or another GPU: nothing.
  o.gpus = {gpu(2417_MiB, 0), gpu(2417_MiB + 1_GiB, 0)};
  EXPECT_TRUE(check(o).empty());
  auto other = gpu(4417_MiB, 0);
  other.index = 1;
  o.gpus = {gpu(2417_MiB, 0), other};
  EXPECT_TRUE(check(o).empty());
}

std::vector<finding> diagnose_log(const std::string& log, observe::observation& o) {
  vramscope::warnings w;
  o.ooms = observe::find_oom_reports(log, "train.log", w);
  doctor_input in;
  in.observed = &o;
  return diagnose(in);
}

const std::string unplaced = "RuntimeError: CUDA out of memory. Tried to allocate 210.00 MiB (GPU 0; 15.78 GiB total "
                             "capacity; 14.39 GiB already allocated; 138.50 MiB free; 14.42 GiB reserved in total "
                             "by PyTorch)\n";

// One message and no traceback: the job's size first; a leak and an evaluation without no_grad
// read the same and follow, each saying the paste cannot tell them apart.
TEST(Leak001, AnUnplacedMessageIsALeakBelowTheJobsSizeAndSaysSo) {
  observe::observation o;
  const auto ranked = diagnose_log(unplaced, o);
  ASSERT_GE(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].cause_class, "does_not_fit");
  std::vector<std::string> order;
  for (const auto& f : ranked) order.push_back(f.rule);
  const auto leak = std::find(order.begin(), order.end(), "LEAK001");
  const auto eval = std::find(order.begin(), order.end(), "EVAL001");
  ASSERT_NE(leak, order.end());
  ASSERT_NE(eval, order.end());
  const auto& f = ranked[static_cast<std::size_t>(leak - order.begin())];
  EXPECT_EQ(f.likelihood, likelihood::weak - likelihood::step);
  EXPECT_NE(f.against.front().find("nothing in the paste tells kept tensors from a step"), std::string::npos);
  const auto& e = ranked[static_cast<std::size_t>(eval - order.begin())];
  EXPECT_EQ(e.likelihood, likelihood::weak - likelihood::step);
  EXPECT_NE(e.against.front().find("nothing in the paste tells it from a step"), std::string::npos);
  EXPECT_EQ(e.level, severity::warning);
  EXPECT_NE(e.fix.find("no_grad"), std::string::npos);
}

// A traceback through autograd's backward is a training step: never an evaluation, still
// possibly a leak. A traceback in evaluate() is the evaluation, decisively, and no leak reading.
TEST(Leak001, ATracebackPlacesTheMessageOrRulesOutEvaluation) {
  observe::observation o;
  auto ranked = diagnose_log("--> 145     Variable._execution_engine.run_backward(\n" + unplaced, o);
  bool leak = false, eval = false;
  for (const auto& f : ranked) {
    leak |= f.rule == "LEAK001";
    eval |= f.rule == "EVAL001";
  }
  EXPECT_TRUE(leak);
  EXPECT_FALSE(eval);
  observe::observation placed;
  ranked = diagnose_log("  File \"train.py\", line 40, in evaluate\n" + unplaced, placed);
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].rule, "EVAL001");
  EXPECT_EQ(ranked[0].likelihood, likelihood::decisive);
  for (const auto& f : ranked) EXPECT_NE(f.rule, "LEAK001");
}

// A request of half the GPU or more is one tensor too large: a leak ends on an ordinary one.
TEST(Leak001, ARequestOfHalfTheGpuIsNotALeaksLastAllocation) {
  observe::observation o;
  const auto ranked = diagnose_log("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 23.11 GiB "
                                   "(GPU 0; 23.70 GiB total capacity; 1.54 GiB already allocated; 20.83 GiB free; "
                                   "1.87 GiB reserved in total by PyTorch)\n",
                                   o);
  for (const auto& f : ranked) EXPECT_NE(f.rule, "LEAK001");
}

}  // namespace
}  // namespace vramscope::doctor
