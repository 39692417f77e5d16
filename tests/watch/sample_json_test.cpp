#include <vramscope/watch/sample_json.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::gpu;
using testing::process;

sample full_sample() {
  sample s;
  s.time_ms = 1732183200123;
  s.gpus.push_back(gpu(0, 10 * GiB, 80 * GiB));
  s.gpus[0].gpu.reserved = 512 * MiB;
  s.gpus[0].gpu.utilization_gpu = 55;
  s.gpus[0].peak_used = 11 * GiB;
  s.gpus.push_back(gpu(1, std::nullopt, std::nullopt));
  s.gpus[1].lost = true;
  s.processes.push_back(process(0, 4242, 9 * GiB, 0));
  s.processes[0].details.world_size = 8;
  s.processes[0].details.cuda_visible_devices = "0,1";
  s.processes[0].details.framework = "torch";
  s.processes[0].peak_used = 10 * GiB;
  return s;
}

TEST(SampleJson, RoundTripsEveryField) {
  const sample s = full_sample();
  const std::string line = to_json_line(s, {}, "nvml");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = sample_from_json_line(line, "log.jsonl", 1);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->time_ms, s.time_ms);
  ASSERT_EQ(back->gpus.size(), 2u);
  EXPECT_EQ(back->gpus[0].gpu.used, 10 * GiB);
  EXPECT_EQ(back->gpus[0].gpu.reserved, 512 * MiB);
  EXPECT_EQ(back->gpus[0].gpu.utilization_gpu, 55);
  EXPECT_EQ(back->gpus[0].peak_used, 11 * GiB);
  EXPECT_FALSE(back->gpus[0].gpu.free.has_value());
  EXPECT_TRUE(back->gpus[1].lost);
  const auto& p = back->processes.at(0);
  EXPECT_EQ(p.process.pid, 4242);
  EXPECT_EQ(p.details.rank, 0);
  EXPECT_EQ(p.details.world_size, 8);
  EXPECT_EQ(p.details.cuda_visible_devices, "0,1");
  EXPECT_EQ(p.details.framework, "torch");
  EXPECT_EQ(p.peak_used, 10 * GiB);
}

TEST(SampleJson, NamesFieldsAsExplainJsonDoes) {
  const auto j = to_json(full_sample());
  EXPECT_EQ(j["gpus"][0]["utilization_gpu"], 55);
  EXPECT_FALSE(j["gpus"][0].contains("util_gpu"));
  EXPECT_EQ(j["processes"][0]["gpu_index"], 0);
  EXPECT_FALSE(j["processes"][0].contains("gpu"));
}

TEST(SampleJson, ReadsLogsWrittenWithTheEarlierNames) {
  auto back = sample_from_json_line(
      R"({"time_ms": 1, "gpus": [{"index": 0, "util_gpu": 37, "util_memory": 12}],)"
      R"( "processes": [{"gpu": 0, "pid": 7}]})",
      "old.jsonl", 1);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->gpus[0].gpu.utilization_gpu, 37);
  EXPECT_EQ(back->gpus[0].gpu.utilization_memory, 12);
  EXPECT_EQ(back->processes[0].process.gpu_index, 0);
}

TEST(SampleJson, OmitsUnknownFiguresInsteadOfWritingZero) {
  sample s;
  s.gpus.push_back(gpu(0, std::nullopt, 80 * GiB));
  const auto j = to_json(s);
  EXPECT_FALSE(j["gpus"][0].contains("used"));
  EXPECT_FALSE(j["gpus"][0].contains("lost"));
  EXPECT_EQ(j["gpus"][0]["total"], 80 * GiB);
}

TEST(SampleJson, WritesAlertsAndWarnings) {
  sample s = full_sample();
  s.warnings.push_back(error_at("nvml", "GPU 1 is lost"));
  const std::vector<alert> alerts{{alert_kind::shared_gpu, 0, {1, 2}, "two processes"}};
  const auto j = to_json(s, alerts);
  EXPECT_EQ(j["alerts"][0]["id"], "shared_gpu");
  EXPECT_EQ(j["alerts"][0]["pids"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(j["warnings"][0], "nvml: GPU 1 is lost");
}

TEST(SampleJson, RejectsWrongTypeWithPath) {
  auto s = sample_from_json_line(R"({"gpus": [{"index": 0}, {"index": 1, "used": "lots"}]})",
                                 "w.jsonl", 7);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(), "w.jsonl:7: gpus[1].used: expected a non-negative integer");
}

TEST(SampleJson, RejectsNegativeSize) {
  auto s = sample_from_json_line(R"({"gpus": [{"index": 0, "total": -5}]})", "w.jsonl", 1);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "gpus[0].total: expected a non-negative integer");
}

TEST(SampleJson, RequiresGpuIndexAndProcessPid) {
  auto g = sample_from_json_line(R"({"gpus": [{"used": 1}]})", "w.jsonl", 1);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error().message, "gpus[0].index: expected a value (the field is required)");
  auto p = sample_from_json_line(R"({"gpus": [], "processes": [{"gpu": 0}]})", "w.jsonl", 1);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "processes[0].pid: expected a value (the field is required)");
}

TEST(SampleJson, ReportsParseErrorWithColumnAndCaret) {
  auto s = sample_from_json_line(R"({"gpus": [}])", "w.jsonl", 3);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().line, 3);
  EXPECT_EQ(s.error().column, 11);
  EXPECT_NE(s.error().to_string().find("{\"gpus\": [}]\n          ^ near here"), std::string::npos)
      << s.error().to_string();
}

TEST(SampleJson, IgnoresUnknownKeys) {
  auto s =
      sample_from_json_line(R"({"gpus": [{"index": 0, "fan": 30}], "future": 1})", "w.jsonl", 1);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->gpus.size(), 1u);
}

}  // namespace
}  // namespace vramscope::watch
