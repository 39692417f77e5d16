// Kaldi's GPU memory lines (observe/kaldi_log.hpp), as cu-device.cc and cu-allocator.cc print
// them: the GPU found at selection, the compute mode, the allocator's growth and its failure.
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>

#include "observe/kaldi_log.hpp"
#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

const std::string header = "LOG (nnet3-train[5.5.963~1-8e7d4]:";

observation read(const std::string& text) {
  auto o = parse_observation(text, "train.log");
  EXPECT_TRUE(o) << o.error().to_string();
  return o ? std::move(*o) : observation{};
}

TEST(KaldiLog, SelectionReadsEachGpuBeforeItsOwnUse) {
  const auto o = read(data("kaldi/shared_gpu_at_start.log"));
  ASSERT_EQ(o.gpus.size(), 2u);  // SelectGpuIdAuto's two readings; the active GPU's line adds none
  EXPECT_EQ(o.gpus[0].index, 0);
  EXPECT_EQ(o.gpus[0].name, "GeForce GTX 1080 Ti");
  EXPECT_EQ(o.gpus[0].total, 11178_MiB);
  EXPECT_EQ(o.gpus[0].used, 6205_MiB);
  EXPECT_EQ(o.gpus[0].free, 4973_MiB);
  EXPECT_TRUE(o.gpus[0].before_own_use);
  EXPECT_TRUE(o.gpus[0].selected);  // "The active GPU is [0]"
  EXPECT_FALSE(o.gpus[1].selected);
  EXPECT_EQ(o.gpus[1].index, 1);
  EXPECT_EQ(o.gpus[1].used, 6267_MiB);
  EXPECT_TRUE(o.stats.empty());  // the Memory usage line is the allocator's, read with the failure
  EXPECT_TRUE(o.warnings.empty());
  ASSERT_EQ(o.compute_modes.size(), 1u);
  EXPECT_TRUE(o.compute_modes[0].shared);
  EXPECT_EQ(o.compute_modes[0].gpu, 0);
  EXPECT_EQ(o.compute_modes[0].line, 5);
}

TEST(KaldiLog, FailureTakesThePoolFiguresPrintedBeforeIt) {
  const auto o = read(data("kaldi/shared_gpu_at_start.log"));
  ASSERT_EQ(o.ooms.size(), 1u);  // no second reading of the same line by the generic reader
  const auto& r = o.ooms[0];
  EXPECT_EQ(r.runtime, "kaldi");
  EXPECT_EQ(r.kind, oom_kind::cuda);
  EXPECT_EQ(r.origin, oom_origin::allocator);
  EXPECT_EQ(r.requested, 1577058304u);
  EXPECT_EQ(r.capacity, 11178_MiB);
  EXPECT_EQ(r.free, 1202_MiB);
  EXPECT_EQ(r.pool_held, 3784310784u);
  EXPECT_EQ(r.in_use, 3644850176u);
  // Printed as "largest free/allocated block sizes are X/Y" with X the largest allocated block.
  EXPECT_EQ(r.largest_free_block, 98566144u);
  EXPECT_EQ(r.status, "out of memory");
  EXPECT_EQ(r.gpu, 0);
  EXPECT_EQ(r.line, 16);
  EXPECT_FALSE(r.context.empty());
}

TEST(KaldiLog, GrowthLinesAreAPoolSeriesAndTheActiveGpuItsReading) {
  const auto o = read(data("kaldi/grows_then_fails.log"));
  ASSERT_EQ(o.gpus.size(), 1u);  // exclusive mode: no SelectGpuIdAuto, the active GPU's line
  EXPECT_EQ(o.gpus[0].name, "Tesla T4");
  EXPECT_EQ(o.gpus[0].used, 254_MiB);
  ASSERT_EQ(o.compute_modes.size(), 1u);
  EXPECT_FALSE(o.compute_modes[0].shared);
  const observation::figure_series* pool = nullptr;
  for (const auto& s : o.series)
    if (s.pool_growth) pool = &s;
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(pool->points.size(), 4u);
  EXPECT_EQ(pool->points[0].second, 7682_MiB);
  EXPECT_EQ(pool->points[3].second, 14181_MiB);
  for (const auto& s : o.series)  // the same lines are not read again as a generic series
    EXPECT_TRUE(s.pool_growth) << s.label;
  ASSERT_EQ(o.ooms.size(), 1u);
  EXPECT_EQ(o.ooms[0].requested, 1_GiB);
  EXPECT_EQ(o.ooms[0].free, 928_MiB);
  EXPECT_EQ(o.ooms[0].pool_held, 14603517952u);
  EXPECT_EQ(o.ooms[0].largest_free_block, 41943040u);
}

TEST(KaldiLog, OnlyKaldisCudaFilesWithTheirHeader) {
  const std::string reading =
      "cudaSetDevice(0): GeForce RTX 2070\tfree:7715M, used:267M, total:7982M, free/total:0.966535";
  EXPECT_TRUE(detail::find_kaldi_lines(reading + "\n", "x").empty());
  EXPECT_TRUE(
      detail::find_kaldi_lines(header + "Train():nnet-training.cc:97) " + reading + "\n", "x")
          .empty());
  const auto k = detail::find_kaldi_lines(
      header + "SelectGpuIdAuto():cu-device.cc:423) " + reading + "\n", "x");
  ASSERT_EQ(k.gpus.size(), 1u);
  EXPECT_EQ(k.gpus[0].used, 267_MiB);
  EXPECT_EQ(k.gpus[0].name, "GeForce RTX 2070");
  // A path before the file name, as some builds print __FILE__.
  EXPECT_EQ(detail::find_kaldi_lines(
                header + "SelectGpuIdAuto():../cudamatrix/cu-device.cc:423) " + reading, "x")
                .gpus.size(),
            1u);
}

TEST(KaldiLog, AFailedMemoryQueryIsNotRead) {
  // GetFreeGpuMemory prints zeros when cuMemGetInfo gave nothing (cu-device.cc warns of it).
  const auto k =
      detail::find_kaldi_lines(header +
                                   "SelectGpuIdAuto():cu-device.cc:423) cudaSetDevice(0): "
                                   "X\tfree:0M, used:0M, total:0M, free/total:nan\n",
                               "x");
  EXPECT_TRUE(k.gpus.empty());
}

TEST(KaldiLog, AMemoryUsageLineFarBeforeTheFailureIsAnotherMoment) {
  std::string log =
      header +
      "PrintMemoryUsage():cu-allocator.cc:357) Memory usage: 100/200 bytes currently "
      "allocated/total-held; 1/1 blocks currently allocated/free; largest free/allocated block "
      "sizes are 100/100\n";
  for (int k = 0; k < 10; ++k)
    log += header + "Train():nnet-training.cc:97) minibatch " + std::to_string(k) + "\n";
  log +=
      "ERROR (nnet3-train[5.5]:AllocateNewRegion():cu-allocator.cc:506) Failed to allocate a "
      "memory region of "
      "1048576 bytes.  Possibly smaller minibatch size would help.  Memory info: free:0M, "
      "used:15109M, "
      "total:15109M, free/total:0 CUDA error: 'out of memory'\n";
  const auto k = detail::find_kaldi_lines(log, "x");
  ASSERT_EQ(k.ooms.size(), 1u);
  EXPECT_FALSE(k.ooms[0].pool_held);
  EXPECT_EQ(k.ooms[0].capacity, 15109_MiB);
  EXPECT_EQ(k.ooms[0].free, 0u);
}

TEST(KaldiLog, UncachedAllocationFailureAndTheOldWording) {
  // --cuda-cache-memory=false: CU_SAFE_CALL around cudaMallocPitch (cu-common.h).
  auto k = detail::find_kaldi_lines(
      "ERROR (nnet3-train[5.5]:MallocPitch():cu-allocator.cc:384) cudaError_t 2 : \"out of "
      "memory\" returned "
      "from 'cudaMallocPitch(&ans, pitch, row_bytes, num_rows)'\n",
      "x");
  ASSERT_EQ(k.ooms.size(), 1u);
  EXPECT_EQ(k.ooms[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(k.ooms[0].status, "out of memory");
  EXPECT_FALSE(k.ooms[0].requested);
  // Another CUDA error there is no memory failure.
  EXPECT_TRUE(detail::find_kaldi_lines(
                  "ERROR (p[5.5]:MallocPitch():cu-allocator.cc:384) cudaError_t 700 : \"an "
                  "illegal memory access was encountered\" returned from 'cudaMallocPitch(x)'\n",
                  "x")
                  .ooms.empty());
  // Before the region allocator (2018).
  k = detail::find_kaldi_lines(
      "ERROR (nnet-train[5.2]:MallocPitchInternal():cu-allocator.cc:114) Cannot allocate the "
      "requested memory "
      "(4096 x 1000 = 4096000 bytes)\n",
      "x");
  ASSERT_EQ(k.ooms.size(), 1u);
  EXPECT_EQ(k.ooms[0].requested, 4096000u);
}

TEST(KaldiLog, TheComputeModeWarningAloneIsRefused) {
  const auto o = parse_observation(
      "WARNING (nnet3-train[5.5]:SelectGpuId():cu-device.cc:228) Not in compute-exclusive "
      "mode.  Suggestion: use 'nvidia-smi -c 3' to set compute exclusive mode\n",
      "train.log");
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().to_string().find("train.log"), std::string::npos);
}

TEST(KaldiLog, ALogOfKaldisGpuLinesAloneIsALog) {
  const std::string log =
      header +
      "SelectGpuIdAuto():cu-device.cc:423) cudaSetDevice(0): GeForce RTX 2070\tfree:7715M, "
      "used:267M, total:7982M, free/total:0.966535\n";
  EXPECT_EQ(detect_observation_format(log), observation_format::log);
  const auto o = read(log);
  EXPECT_TRUE(o.has_facts());
}

}  // namespace
}  // namespace vramscope::observe
