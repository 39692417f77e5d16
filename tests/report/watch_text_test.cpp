#include <vramscope/report/watch_report.hpp>

#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::report {
namespace {

using watch::frame;
using watch::peak_tracker;
using watch::sample;
using watch::testing::gpu;
using watch::testing::process;

frame two_gpu_frame(peak_tracker& peaks) {
  frame f;
  f.source = "nvml";
  f.samples_in_window = 4;
  f.now.time_ms = 1732183200000;  // 2024-11-21 10:00:00 UTC
  f.now.gpus.push_back(gpu(0, 22 * GiB, 80 * GiB));
  f.now.gpus[0].gpu.name = "NVIDIA H100 80GB HBM3";
  f.now.gpus[0].gpu.utilization_gpu = 97;
  f.now.gpus.push_back(gpu(1, std::nullopt, std::nullopt));
  f.now.gpus[1].lost = true;
  f.now.processes.push_back(process(0, 1000, 20 * GiB, 0));
  f.now.processes.back().process.name = "/opt/conda/bin/python3.11";
  f.now.processes.back().details.world_size = 2;
  f.now.processes.back().details.framework = "torch";
  f.now.processes.push_back(process(0, 1001, 600 * MiB));
  f.now.processes.back().process.name = "a-very-long-process-name-for-the-table";
  sample spike = f.now;
  spike.gpus[0].gpu.used = 30 * GiB;
  peaks.add(spike);
  peaks.add(f.now);
  peaks.fill_window_peaks(f.now);
  f.alerts = watch::evaluate_alerts(f.now);
  f.now.warnings.push_back(error_at("nvml", "GPU 1 is lost"));
  return f;
}

TEST(WatchText, RendersGpusProcessesAlertsAndWarnings) {
  peak_tracker peaks;
  const frame f = two_gpu_frame(peaks);
  const std::string text = render_watch_text(f, peaks, {std::chrono::milliseconds(1000), true});
  auto expected = read_file(watch::testing::data_path("expected-watch.txt"));
  ASSERT_TRUE(expected) << expected.error().to_string();
  EXPECT_EQ(text, *expected);
}

TEST(WatchText, ShowsIntervalsBelowASecond) {
  peak_tracker peaks;
  frame f = two_gpu_frame(peaks);
  f.samples_in_window = 1;
  const std::string text = render_watch_text(f, peaks, {std::chrono::milliseconds(250), true});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "vramscope watch  2024-11-21 10:00:00  nvml  every 250 ms, peaks over 1 sample");
}

}  // namespace
}  // namespace vramscope::report
