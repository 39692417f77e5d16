#include <vramscope/watch/replay_source.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

TEST(ReplaySource, PlaysRecordedSamplesInOrderThenFinishes) {
  auto source = replay_source::open(testing::data_path("replay-ddp-gpu0.jsonl"));
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->name(), "replay");
  EXPECT_EQ((*source)->size(), 3u);
  std::vector<std::int64_t> times;
  while (!(*source)->finished()) {
    auto s = (*source)->read();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->gpus.size(), 4u);
    EXPECT_EQ(s->processes.size(), 7u);
    times.push_back(s->time_ms);
  }
  EXPECT_EQ(times, (std::vector<std::int64_t>{1732183200000, 1732183201000, 1732183202000}));
  auto after = (*source)->read();
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().message, "end of recording");
}

TEST(ReplaySource, SkipsABrokenLineWithAWarningOnTheFirstSample) {
  auto source = replay_source::open(testing::data_path("replay-ddp-gpu0.jsonl"));
  ASSERT_TRUE(source);
  ASSERT_EQ((*source)->skipped().size(), 1u);
  const auto& w = (*source)->skipped()[0];
  EXPECT_EQ(w.line, 4);
  EXPECT_EQ(w.message.rfind("not a JSON sample: ", 0), 0u) << w.message;
  auto first = (*source)->read();
  ASSERT_EQ(first->warnings.size(), 1u);
  EXPECT_TRUE((*source)->read()->warnings.empty());
}

TEST(ReplaySource, ReadsProcessDetailsBack) {
  auto source = replay_source::open(testing::data_path("replay-jax-prealloc.jsonl"));
  ASSERT_TRUE(source);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  const auto& p = s->processes[1];
  EXPECT_EQ(p.process.pid, 2001);
  EXPECT_EQ(p.process.gpu_index, 1);
  EXPECT_EQ(p.details.framework, "jax");
  EXPECT_EQ(p.details.xla_mem_fraction, 0.9);
  EXPECT_EQ(p.process.used, 72 * GiB);
}

TEST(ReplaySource, EmptyRecordingIsAnError) {
  auto source = replay_source::from_text("\n\n", "empty.jsonl");
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().to_string(), "empty.jsonl: no sample in the recording (empty file)");
}

TEST(ReplaySource, RecordingWithoutValidLineNamesTheFirstProblem) {
  auto source = replay_source::from_text("{\"gpus\": 3}\n", "bad.jsonl");
  ASSERT_FALSE(source);
  EXPECT_EQ(
      source.error().to_string(),
      "bad.jsonl:1: no valid sample in the recording; first problem: gpus: expected an array");
}

TEST(ReplaySource, MissingFileIsAnError) {
  auto source = replay_source::open("/nonexistent/watch.jsonl");
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().to_string(), "/nonexistent/watch.jsonl: no such file");
}

}  // namespace
}  // namespace vramscope::watch
