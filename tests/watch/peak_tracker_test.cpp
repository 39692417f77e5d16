#include <vramscope/watch/peak_tracker.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::gpu;
using testing::process;

sample at(bytes gpu_used, bytes process_used) {
  sample s;
  s.gpus.push_back(gpu(0, gpu_used, 80 * GiB));
  s.processes.push_back(process(0, 42, process_used));
  return s;
}

TEST(PeakTracker, KeepsTheSpikeBetweenRefreshes) {
  peak_tracker t;
  t.add(at(10 * GiB, 9 * GiB));
  t.add(at(30 * GiB, 29 * GiB));  // the spike
  t.add(at(12 * GiB, 11 * GiB));
  sample shown = at(12 * GiB, 11 * GiB);
  t.fill_window_peaks(shown);
  EXPECT_EQ(shown.gpus[0].peak_used, 30 * GiB);
  EXPECT_EQ(shown.processes[0].peak_used, 29 * GiB);
  EXPECT_EQ(t.samples(), 3u);
}

TEST(PeakTracker, NewWindowForgetsWindowPeakButKeepsTheMaximum) {
  peak_tracker t;
  t.add(at(30 * GiB, 29 * GiB));
  t.start_window();
  t.add(at(10 * GiB, 9 * GiB));
  sample shown = at(10 * GiB, 9 * GiB);
  t.fill_window_peaks(shown);
  EXPECT_EQ(shown.gpus[0].peak_used, 10 * GiB);
  EXPECT_EQ(t.gpu_peak(shown.gpus[0]), 30 * GiB);
  EXPECT_EQ(t.process_peak(shown.processes[0]), 29 * GiB);
}

TEST(PeakTracker, RecordedPeaksCountToo) {
  peak_tracker t;
  sample replayed = at(10 * GiB, 9 * GiB);
  replayed.gpus[0].peak_used = 50 * GiB;
  replayed.processes[0].peak_used = 49 * GiB;
  t.add(replayed);
  EXPECT_EQ(t.gpu_peak(replayed.gpus[0]), 50 * GiB);
  EXPECT_EQ(t.process_peak(replayed.processes[0]), 49 * GiB);
}

TEST(PeakTracker, UnknownFiguresAndLostGpusAddNothing) {
  peak_tracker t;
  sample s;
  s.gpus.push_back(gpu(0, std::nullopt, 80 * GiB));
  s.gpus.push_back(gpu(1, 5 * GiB, 80 * GiB));
  s.gpus[1].lost = true;
  t.add(s);
  EXPECT_FALSE(t.gpu_peak(s.gpus[0]).has_value());
  EXPECT_FALSE(t.gpu_peak(s.gpus[1]).has_value());
  t.fill_window_peaks(s);
  EXPECT_FALSE(s.gpus[0].peak_used.has_value());
}

TEST(PeakTracker, KeepsPeaksOfExitedProcesses) {
  peak_tracker t;
  t.add(at(10 * GiB, 9 * GiB));
  sample later;
  later.gpus.push_back(gpu(0, 1 * GiB, 80 * GiB));
  t.add(later);
  const auto& all = t.all_process_peaks();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.begin()->first, std::make_pair(std::string("GPU-0"), std::int64_t{42}));
  EXPECT_EQ(all.begin()->second, 9 * GiB);
}

TEST(PeakTracker, GpusWithoutUuidAreKeyedByIndex) {
  observe::gpu_observation g;
  g.index = 3;
  EXPECT_EQ(gpu_key(g), "#3");
  g.uuid = "GPU-x";
  EXPECT_EQ(gpu_key(g), "GPU-x");
}

}  // namespace
}  // namespace vramscope::watch
