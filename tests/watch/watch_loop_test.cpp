#include <vramscope/watch/watch_loop.hpp>

#include <vramscope/watch/nvml_source.hpp>
#include <vramscope/watch/replay_source.hpp>
#include <vramscope/watch/sample_json.hpp>

#include <httplib.h>

#include <gtest/gtest.h>

#include <csignal>
#include <optional>
#include <sstream>
#include <thread>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::scoped_env;
using testing::temp_dir;

std::unique_ptr<replay_source> ddp_replay() {
  auto s = replay_source::open(testing::data_path("replay-ddp-gpu0.jsonl"));
  if (!s) throw std::runtime_error(s.error().to_string());
  return std::move(*s);
}

watch_settings fast() {
  watch_settings w;
  w.monitor.interval = std::chrono::milliseconds(0);
  w.monitor.read_proc = false;
  return w;
}

// Keeps what it was shown, and quits (as a user pressing q would) once `quit_at` has passed.
class recording_display final : public watch_display {
 public:
  void show(const frame& f, const peak_tracker& peaks) override {
    frames.push_back(f);
    samples_seen = peaks.samples();
  }
  bool poll_input() override {
    ++polls;
    return std::chrono::steady_clock::now() < quit_at;
  }

  std::vector<frame> frames;
  std::uint64_t samples_seen = 0;
  std::uint64_t polls = 0;
  std::chrono::steady_clock::time_point quit_at = std::chrono::steady_clock::time_point::max();
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(WatchLoop, ReplaysEveryRecordedLineAsOneRefresh) {
  auto source = ddp_replay();
  std::ostringstream out;
  json_line_display display(out);
  auto r = run_watch(*source, fast(), {}, display);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->refreshes, 3u);
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u);
  auto first = sample_from_json_line(lines[0], "out", 1);
  ASSERT_TRUE(first) << first.error().to_string();
  EXPECT_EQ(first->time_ms, 1732183200000);
  EXPECT_NE(lines[0].find("\"id\":\"shared_gpu\""), std::string::npos) << "alerts are recomputed";
}

TEST(WatchLoop, StopsAfterCountAndOnce) {
  auto source = ddp_replay();
  std::ostringstream out;
  json_line_display display(out);
  auto settings = fast();
  settings.count = 2;
  ASSERT_EQ(run_watch(*source, settings, {}, display)->refreshes, 2u);
  auto again = ddp_replay();
  settings.count = 0;
  settings.once = true;
  std::ostringstream once;
  json_line_display once_display(once);
  ASSERT_EQ(run_watch(*again, settings, {}, once_display)->refreshes, 1u);
  EXPECT_EQ(lines_of(once.str()).size(), 1u);
}

TEST(WatchLoop, LogGetsOneLinePerRefreshBesideTheDisplay) {
  auto source = ddp_replay();
  std::ostringstream log;
  recording_display display;
  auto r = run_watch(*source, fast(), {&log, nullptr}, display);
  ASSERT_TRUE(r);
  EXPECT_EQ(lines_of(log.str()).size(), 3u);
  ASSERT_EQ(display.frames.size(), 3u);
  EXPECT_EQ(display.frames[2].now.time_ms, 1732183202000);
  EXPECT_EQ(display.frames[2].source, "replay");
  ASSERT_FALSE(display.frames[2].alerts.empty());
  EXPECT_NE(display.frames[2].alerts[0].message.find("GPU 0 holds 4 processes"), std::string::npos);
  EXPECT_EQ(display.samples_seen, 3u) << "the display sees the tracker that made the frame";
  // The log replays to the same samples.
  auto back = replay_source::from_text(log.str(), "log");
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)->size(), 3u);
}

TEST(WatchLoop, PublishesMetricsOfEachRefresh) {
  auto server = metrics_server::start("127.0.0.1:0");
  ASSERT_TRUE(server);
  auto source = ddp_replay();
  recording_display display;
  ASSERT_TRUE(run_watch(*source, fast(), {nullptr, server->get()}, display));
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(2, 0);
  auto r = client.Get("/metrics");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("vramscope_alert_active{alert=\"shared_gpu\",gpu=\"0\"} 1\n"),
            std::string::npos);
  EXPECT_NE(r->body.find("vramscope_samples_total 3\n"), std::string::npos);
}

// A live source: the fake NVML with one GPU, its config in `dir` for the scope of `config`.
std::unique_ptr<gpu_source> one_fake_gpu(const temp_dir& dir, std::optional<scoped_env>& config) {
  config.emplace("VRAMSCOPE_FAKE_NVML_CONFIG",
                 dir.write("nvml.json", R"({"devices": [{"uuid": "GPU-l", "total": 100, "used": 10}]})"));
  auto source = nvml_source::open(VRAMSCOPE_FAKE_NVML_FULL);
  if (!source) ADD_FAILURE() << source.error().to_string();
  return source ? std::move(*source) : nullptr;
}

TEST(WatchLoop, SamplesLiveSourceSeveralTimesPerRefreshAndStopsOnSignal) {
  temp_dir dir;
  std::optional<scoped_env> config;
  auto source = one_fake_gpu(dir, config);
  ASSERT_TRUE(source);
  watch_settings settings = fast();
  settings.monitor.interval = std::chrono::milliseconds(200);
  settings.monitor.sample_interval = std::chrono::milliseconds(20);
  settings.count = 20;  // a bound, should the signal get lost
  // Ignored outside run_watch's own handler, so a late signal cannot end the test binary.
  const auto previous = std::signal(SIGINT, SIG_IGN);
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    std::raise(SIGINT);
  });
  recording_display display;
  auto r = run_watch(*source, settings, {}, display);
  stopper.join();
  std::signal(SIGINT, previous);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->interrupted);
  EXPECT_GE(r->refreshes, 2u);
  EXPECT_LE(r->refreshes, 5u);
  EXPECT_GE(r->samples, 3 * r->refreshes) << "sampled faster than refreshed";
}

TEST(WatchLoop, TheDisplayEndsTheLoopWhenTheUserQuits) {
  temp_dir dir;
  std::optional<scoped_env> config;
  auto source = one_fake_gpu(dir, config);
  ASSERT_TRUE(source);
  watch_settings settings = fast();
  settings.monitor.interval = std::chrono::milliseconds(100);
  settings.monitor.sample_interval = std::chrono::milliseconds(20);
  settings.count = 50;  // a bound, should quitting not work
  recording_display display;
  const auto started = std::chrono::steady_clock::now();
  display.quit_at = started + std::chrono::milliseconds(250);  // after two refreshes
  auto r = run_watch(*source, settings, {}, display);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(r->quit);
  EXPECT_FALSE(r->interrupted);
  EXPECT_GE(r->refreshes, 1u);
  EXPECT_LT(r->refreshes, 6u);
  EXPECT_GT(display.polls, r->refreshes) << "keys are read while waiting, not only at refreshes";
  EXPECT_EQ(display.frames.size(), r->refreshes) << "nothing is shown after quitting";
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
}

}  // namespace
}  // namespace vramscope::watch
