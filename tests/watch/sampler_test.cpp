#include <vramscope/watch/sampler.hpp>

#include <vramscope/watch/replay_source.hpp>
#include <vramscope/watch/sample_json.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using namespace std::string_literals;
using testing::gpu;
using testing::process;
using testing::temp_dir;

std::unique_ptr<replay_source> replay_of(const std::vector<sample>& samples) {
  std::string text;
  for (const auto& s : samples) text += to_json_line(s) + "\n";
  auto source = replay_source::from_text(text, "test");
  if (!source) throw std::runtime_error(source.error().to_string());
  return std::move(*source);
}

sample with_used(bytes used) {
  sample s;
  s.gpus.push_back(gpu(0, used, 80 * GiB));
  s.processes.push_back(process(0, 42, used - 1 * GiB));
  return s;
}

TEST(Sampler, FrameShowsLatestSampleWithWindowPeak) {
  auto source = replay_of({with_used(10 * GiB), with_used(70 * GiB), with_used(20 * GiB)});
  monitor_options o;
  o.read_proc = false;
  sampler s(*source, o);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.poll());
  const frame f = s.take_frame();
  EXPECT_EQ(f.source, "replay");
  EXPECT_EQ(f.samples_in_window, 3u);
  EXPECT_EQ(f.now.gpus[0].gpu.used, 20 * GiB);
  EXPECT_EQ(f.now.gpus[0].peak_used, 70 * GiB);
  EXPECT_EQ(f.now.processes[0].peak_used, 69 * GiB);
  EXPECT_FALSE(s.has_new_sample());
  EXPECT_FALSE(s.poll()) << "the recording is over";
}

TEST(Sampler, AlertsUseTheWindowPeak) {
  auto source = replay_of({with_used(78 * GiB), with_used(20 * GiB)});
  monitor_options o;
  o.read_proc = false;
  sampler s(*source, o);
  ASSERT_TRUE(s.poll());
  ASSERT_TRUE(s.poll());
  const frame f = s.take_frame();
  ASSERT_EQ(f.alerts.size(), 1u);
  EXPECT_EQ(f.alerts[0].kind, alert_kind::near_limit);
}

TEST(Sampler, AddsRankAndNameFromProc) {
  temp_dir proc;
  proc.write("42/environ", "RANK=2\0WORLD_SIZE=4\0"s);
  proc.write("42/comm", "pt_main_thread\n");
  sample s = with_used(10 * GiB);
  s.processes[0].process.name.clear();
  auto source = replay_of({s});
  monitor_options o;
  o.proc_root = proc.path();
  sampler smp(*source, o);
  ASSERT_TRUE(smp.poll());
  const frame f = smp.take_frame();
  EXPECT_EQ(f.now.processes[0].details.rank, 2);
  EXPECT_EQ(f.now.processes[0].details.world_size, 4);
  EXPECT_EQ(f.now.processes[0].process.name, "pt_main_thread");
}

// Returns the same sample, with the same warning, every time.
class repeating_source : public gpu_source {
 public:
  std::string_view name() const override { return "repeat"; }
  result<sample> read() override {
    sample s = with_used(10 * GiB);
    s.warnings.push_back(error_at("nvml", "GPU 0: utilisation unavailable"));
    return s;
  }
};

TEST(Sampler, ReportsEachWarningOnce) {
  repeating_source source;
  monitor_options o;
  o.read_proc = false;
  sampler smp(source, o);
  ASSERT_TRUE(smp.poll());
  ASSERT_TRUE(smp.poll());
  EXPECT_EQ(smp.take_frame().now.warnings.size(), 1u);
  ASSERT_TRUE(smp.poll());
  EXPECT_TRUE(smp.take_frame().now.warnings.empty());
}

TEST(Sampler, DefaultSampleIntervalIsAQuarterOfTheRefresh) {
  monitor_options o;
  EXPECT_EQ(effective_sample_interval(o), std::chrono::milliseconds(250));
  o.interval = std::chrono::milliseconds(100);
  EXPECT_EQ(effective_sample_interval(o), std::chrono::milliseconds(50));
  o.sample_interval = std::chrono::milliseconds(10);
  EXPECT_EQ(effective_sample_interval(o), std::chrono::milliseconds(10));
}

TEST(Duration, ParsesSecondsMillisecondsAndMinutes) {
  using std::chrono::milliseconds;
  EXPECT_EQ(*parse_duration("1s", "--interval"), milliseconds(1000));
  EXPECT_EQ(*parse_duration("250ms", "--interval"), milliseconds(250));
  EXPECT_EQ(*parse_duration("2.5s", "--interval"), milliseconds(2500));
  EXPECT_EQ(*parse_duration("2", "--interval"), milliseconds(2000));
  EXPECT_EQ(*parse_duration("1m", "--interval"), milliseconds(60000));
  EXPECT_EQ(*parse_duration("0", "--interval"), milliseconds(0));
}

TEST(Duration, RejectsOtherText) {
  for (const char* bad : {"", "s", "fast", "1h", "-1s", "1 s"}) {
    auto d = parse_duration(bad, "--interval");
    ASSERT_FALSE(d) << bad;
    EXPECT_EQ(d.error().to_string(),
              std::string("--interval: expected a duration such as 1s, 500ms or 2.5s, got \"") +
                  bad + "\"");
  }
}

}  // namespace
}  // namespace vramscope::watch
