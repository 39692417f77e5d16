// Rules over Kaldi's GPU lines (observe/kaldi_log.hpp): memory others held before the program
// allocated anything, the allocator's region refused on a shared GPU (PROC001), the same refused
// on a GPU the job filled itself (OOM001), and the allocator's growth, which is no leak (LEAK001).
#include <vramscope/doctor/finding.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>

#include "doctor/likelihood.hpp"
#include "doctor/rules/rules.hpp"
#include "observe/observe_data.hpp"

namespace vramscope::doctor {
namespace {

namespace lk = likelihood;

observe::observation read(const std::string& text) {
  auto o = observe::parse_observation(text, "train.log");
  EXPECT_TRUE(o) << o.error().to_string();
  return o ? std::move(*o) : observe::observation{};
}

std::vector<finding> diagnose_text(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return diagnose(in);
}

const std::string selection =
    "WARNING (nnet3-train[5.5]:SelectGpuId():cu-device.cc:228) Not in compute-exclusive mode.  "
    "Suggestion: use "
    "'nvidia-smi -c 3' to set compute exclusive mode\n"
    "LOG (nnet3-train[5.5]:SelectGpuIdAuto():cu-device.cc:423) cudaSetDevice(0): GeForce RTX "
    "2070\tfree:2715M, "
    "used:5267M, total:7982M, free/total:0.340140\n"
    "LOG (nnet3-train[5.5]:FinalizeActiveGpu():cu-device.cc:349) The active GPU is [0]: GeForce "
    "RTX 2070\t"
    "free:2610M, used:5372M, total:7982M, free/total:0.326986 version 7.5\n";

TEST(KaldiRules, MemoryUsedBeforeTheProgramAllocatedIsOthers) {
  const auto o = read(selection);
  doctor_input in;
  in.observed = &o;
  const auto found = rules::memory_outside_process(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "other_process");
  // No failure: possible, one step for the shared compute mode.
  EXPECT_DOUBLE_EQ(found[0].likelihood, lk::possible + lk::step);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(5267_MiB - lk::context_max));
  EXPECT_NE(found[0].fix.find("nvidia-smi -c 3"), std::string::npos);
  // No leak read from the selection's reading and the active GPU's.
  EXPECT_TRUE(rules::kept_across_iterations(in).empty());
}

// SelectGpuIdAuto makes its own context on every GPU it reads: the GPUs it left hold that
// context, and another job's memory on a GPU it did not choose is not where it runs.
TEST(KaldiRules, GpusLookedAtAndLeftAreNoCrowdingAndNoOthersOnItsGpu) {
  std::string log;
  for (int n = 0; n < 4; ++n)
    log += "LOG (nnet3-train[5.5]:SelectGpuIdAuto():cu-device.cc:464) cudaSetDevice(" +
           std::to_string(n) + "): Tesla V100-SXM2-16GB\t" +
           (n == 0 ? "free:7125M, used:9035M" : "free:15853M, used:307M") +
           ", total:16160M, free/total:0.5\n";
  log +=
      "LOG (nnet3-train[5.5]:FinalizeActiveGpu():cu-device.cc:349) The active GPU is [1]: Tesla "
      "V100-SXM2-16GB\t"
      "free:15549M, used:611M, total:16160M, free/total:0.962191 version 7.0\n";
  const auto o = read(log);
  ASSERT_EQ(o.gpus.size(), 4u);
  doctor_input in;
  in.observed = &o;
  EXPECT_TRUE(rules::gpu0_crowding(in).empty());
  EXPECT_TRUE(rules::memory_outside_process(in).empty());
}

TEST(KaldiRules, ContextAloneAtStartIsNoOtherProcess) {
  const auto o = read(
      "LOG (nnet3-train[5.5]:SelectGpuIdAuto():cu-device.cc:423) cudaSetDevice(0): GeForce RTX "
      "2070\tfree:7715M, "
      "used:267M, total:7982M, free/total:0.966535\n");
  doctor_input in;
  in.observed = &o;
  EXPECT_TRUE(rules::memory_outside_process(in).empty());
}

TEST(KaldiRules, RegionRefusedOnASharedGpuIsOthersFirst) {
  const auto o = read(observe::testing::data("kaldi/shared_gpu_at_start.log"));
  const auto found = diagnose_text(o);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().rule, "PROC001");
  EXPECT_GE(found.front().likelihood, lk::likely);
  // 9976 MiB in use less the regions (3609 MiB) and one context.
  EXPECT_EQ(found.front().saving, static_cast<std::int64_t>(9976_MiB - 3609_MiB - lk::context_max));
  for (const auto& f : found)
    if (f.rule == "OOM001") {
      EXPECT_LT(f.likelihood, lk::possible);
    }
}

TEST(KaldiRules, RegionRefusedOnAGpuTheJobFilledDoesNotFit) {
  const auto o = read(observe::testing::data("kaldi/grows_then_fails.log"));
  const auto found = diagnose_text(o);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front().rule, "OOM001");
  EXPECT_DOUBLE_EQ(found.front().likelihood, lk::likely);
  EXPECT_NE(found.front().fix.find("minibatch"), std::string::npos);
  for (const auto& f : found) {
    EXPECT_NE(f.rule, "PROC001");
    EXPECT_NE(f.rule, "LEAK001");  // the regions' growth is the pool's, kept by design
  }
}

TEST(KaldiRules, ARegionSmallerThanTheFreeMemoryWasTakenInBetween) {
  // AllocateNewRegion asks max(free x 0.5, request): 1000M of 2000M free refused.
  const auto o = read(
      "LOG (p[5.5]:PrintMemoryUsage():cu-allocator.cc:357) Memory usage: 5000000000/5242880000 "
      "bytes currently "
      "allocated/total-held; 10/2 blocks currently allocated/free; largest free/allocated block "
      "sizes are 1/1\n"
      "ERROR (p[5.5]:AllocateNewRegion():cu-allocator.cc:506) Failed to allocate a memory region "
      "of 1048576000 "
      "bytes.  Possibly this is due to sharing the GPU.  Try switching the GPUs to exclusive mode "
      "(nvidia-smi -c 3) "
      "and using the option --use-gpu=wait to scripts like steps/nnet3/chain/train.py.  Memory "
      "info: free:2000M, "
      "used:5300M, total:7300M, free/total:0.273973 CUDA error: 'out of memory'\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::memory_outside_process(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, lk::possible + lk::step);
  bool raced = false;
  for (const auto& s : found[0].support)
    raced = raced || s.find("taken in between") != std::string::npos;
  EXPECT_TRUE(raced);
}

}  // namespace
}  // namespace vramscope::doctor
