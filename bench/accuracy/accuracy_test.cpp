#include <gtest/gtest.h>

#include <vramscope/core/io.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "accuracy/accuracy_cli.hpp"
#include "accuracy/baseline.hpp"
#include "accuracy/groundtruth.hpp"
#include "accuracy/scoring.hpp"

namespace vramscope::bench {
namespace {

const std::string gpt2_job =
    R"({"model":"gpt2","hardware":{"gpu":"H100-80GB","gpus_per_node":2},)"
    R"("parallel":{"strategy":"ddp"},"precision":"bf16-mixed","training":{"seq_len":1024}})";

std::string line_with(const std::string& peak, const std::string& extra = "") {
  return R"({"measured":false,"rank":0,"oom":false,"process_group":"fake","job":)" + gpt2_job +
         R"(,"peak":)" + peak + extra + "}";
}

const std::string full_peak =
    R"({"allocated":1000000000,"active":1100000000,"reserved":1200000000,"device":1700000000})";

TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9), 9.0);
  EXPECT_DOUBLE_EQ(quantile({0.25}, 0.9), 0.25);
}

TEST(ParseMeasurement, ReadsTheFieldsItNeeds) {
  auto m = parse_measurement(line_with(full_peak, R"(,"case":"c1")"), "x.jsonl", 3);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_EQ(m->name, "c1");
  EXPECT_FALSE(m->measured);
  EXPECT_EQ(m->process_group, "fake");
  EXPECT_EQ(m->peak[3], bytes{1700000000});
}

TEST(ParseMeasurement, AcceptsNullLevel) {
  auto m = parse_measurement(line_with(R"({"allocated":1,"active":1,"reserved":2,"device":null})"),
                             "x.jsonl", 1);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_FALSE(m->peak[3].has_value());
  EXPECT_EQ(m->name, "x.jsonl:1");
}

TEST(ParseMeasurement, RejectsMissingPeak) {
  auto m = parse_measurement(R"({"measured":true,"rank":0,"oom":false,"job":{}})", "x.jsonl", 4);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().to_string(), "x.jsonl:4: missing field \"peak\"");
}

TEST(ParseMeasurement, RejectsMissingLevel) {
  auto m = parse_measurement(line_with(R"({"allocated":1,"active":1,"reserved":2})"), "x.jsonl", 2);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().to_string(), "x.jsonl:2: missing field \"peak.device\"");
}

TEST(ParseMeasurement, RejectsMissingMeasuredFlag) {
  auto m = parse_measurement(R"({"rank":0})", "x.jsonl", 1);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().to_string(), "x.jsonl:1: missing field \"measured\"");
}

TEST(ParseMeasurement, AcceptsUnrecordedOomOnPlaceholderLinesOnly) {
  const std::string peak = R"({"allocated":null,"active":null,"reserved":null,"device":null})";
  const std::string placeholder =
      R"({"measured":false,"rank":0,"oom":null,"job":{},"peak":)" + peak + "}";
  auto m = parse_measurement(placeholder, "x.jsonl", 1);
  ASSERT_TRUE(m) << m.error().to_string();
  EXPECT_FALSE(m->oom.has_value());
  const std::string measured =
      R"({"measured":true,"rank":0,"oom":null,"job":{},"peak":)" + peak + "}";
  auto bad = parse_measurement(measured, "x.jsonl", 2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "x.jsonl:2: field \"oom\": expected true or false, got null");
}

TEST(ParseMeasurement, RejectsNegativeRank) {
  auto m = parse_measurement(R"({"measured":true,"rank":-1,"oom":false,"job":{}})", "x.jsonl", 5);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().to_string(), "x.jsonl:5: field \"rank\": expected an integer >= 0, got -1");
}

TEST(ParseMeasurement, RejectsInvalidJsonWithColumn) {
  auto m = parse_measurement(R"({"measured": tru})", "x.jsonl", 7);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().line, 7);
  EXPECT_EQ(m.error().column, 17);
  EXPECT_EQ(m.error().message.rfind("invalid JSON: ", 0), 0U) << m.error().message;
}

TEST(CompareApplied, NamesTheDifferingField) {
  const nlohmann::json resolved = {
      {"parallel", {{"dp_shard", 8}, {"fsdp_sharding", "full_shard"}}}};
  const nlohmann::json applied = {{"parallel.dp_shard", 4},
                                  {"parallel.fsdp_sharding", "FULL_SHARD"}};
  const auto diffs = compare_applied(applied, resolved);
  ASSERT_EQ(diffs.size(), 1U);
  EXPECT_EQ(diffs[0], "parallel.dp_shard: harness ran 4, planner resolved 8");
}

TEST(CompareApplied, ReportsUnknownPath) {
  const auto diffs = compare_applied({{"parallel.nonsense", true}}, {{"parallel", {{"tp", 1}}}});
  ASSERT_EQ(diffs.size(), 1U);
  EXPECT_EQ(diffs[0], "parallel.nonsense: harness ran true, the planner has no such field");
}

group_summary one_level(std::size_t n, double median, double p90) {
  group_summary g;
  g.cases = n;
  g.levels[0] = {n, median, p90};
  g.oom_agree = g.oom_total = n;
  return g;
}

TEST(Regressions, NoneWhenEqual) {
  EXPECT_TRUE(regressions(one_level(3, 0.1, 0.2), one_level(3, 0.1, 0.2), "measured").empty());
}

TEST(Regressions, FlagsWorseMedianAndFewerCases) {
  const auto found = regressions(one_level(3, 0.1, 0.2), one_level(2, 0.11, 0.2), "measured");
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0], "measured allocated: scored on 2 cases, the baseline on 3");
  EXPECT_EQ(found[1], "measured allocated: median |error| 11.0000 %, baseline 10.0000 %");
}

TEST(Regressions, FlagsLowerOomAgreement) {
  auto now = one_level(3, 0.1, 0.2);
  now.oom_agree = 2;
  const auto found = regressions(one_level(3, 0.1, 0.2), now, "measured");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0], "measured OOM agreement: 2 of 3, baseline 3 of 3");
}

TEST(Baseline, RoundTripsThroughItsFile) {
  summary s;
  s.measured = one_level(4, 0.0123, 0.0456);
  s.not_measured = one_level(2, 0.5, 0.75);
  const std::string path = ::testing::TempDir() + "vramscope_baseline_test.json";
  ASSERT_TRUE(write_file_atomic(path, to_baseline_json(s).dump(2)));
  auto back = read_baseline(path);
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_TRUE(regressions(s.measured, back->measured, "m").empty());
  EXPECT_TRUE(regressions(back->measured, s.measured, "m").empty());
  EXPECT_DOUBLE_EQ(back->not_measured.levels[0].p90, 0.75);
  std::remove(path.c_str());
}

TEST(Scorer, PlansTheLineAndComparesEveryLevel) {
  auto m = parse_measurement(line_with(full_peak), "x.jsonl", 1);
  ASSERT_TRUE(m);
  scorer plans;
  auto scored = plans.score(*m);
  ASSERT_TRUE(scored) << scored.error().to_string();
  for (const auto& level : scored->levels) {
    ASSERT_TRUE(level.predicted.has_value());
    EXPECT_GT(*level.predicted, 0U);
    EXPECT_TRUE(level.error.has_value());
  }
}

TEST(Scorer, RejectsRankOutsideTheJob) {
  auto m = parse_measurement(line_with(full_peak), "x.jsonl", 9);
  ASSERT_TRUE(m);
  m->rank = 2;
  scorer plans;
  auto scored = plans.score(*m);
  ASSERT_FALSE(scored);
  EXPECT_EQ(scored.error().to_string(),
            "x.jsonl:9: rank 2 does not exist in the planned job (2 ranks)");
}

TEST(RunAccuracy, MissingFileIsBadInput) {
  std::ostringstream out, err;
  EXPECT_EQ(run_accuracy({"/nonexistent/ground-truth.jsonl"}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/ground-truth.jsonl"), std::string::npos) << err.str();
}

// The files scripts/accuracy.sh scores: bench/data/*.jsonl, in name order.
std::vector<std::string> committed_data_files() {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(VRAMSCOPE_BENCH_DIR) + "/data"))
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The measured lines of the committed ground truth (one JSON object per line).
std::size_t committed_measurements() {
  std::size_t count = 0;
  for (const auto& file : committed_data_files()) {
    std::istringstream lines(read_file(file).value());
    for (std::string line; std::getline(lines, line);)
      if (line.find("\"measured\":true") != std::string::npos) ++count;
  }
  return count;
}

TEST(RunAccuracy, ScoresTheCommittedDataAgainstItsBaseline) {
  // The files scripts/accuracy.sh scores (bench/data/*.jsonl): the GPU measurements and the
  // placeholder lines, against the committed baseline.
  const std::string data = std::string(VRAMSCOPE_BENCH_DIR) + "/data/";
  auto args = committed_data_files();
  args.insert(args.end(), {"--baseline", data + "baseline.json"});
  std::ostringstream out, err;
  EXPECT_EQ(run_accuracy(args, out, err), 0)
      << out.str() << err.str();
  EXPECT_NE(out.str().find("NOT MEASUREMENTS"), std::string::npos);
  const auto measured = committed_measurements();
  EXPECT_GE(measured, 45u);
  EXPECT_NE(out.str().find("MEASURED (" + std::to_string(measured) + " lines)"), std::string::npos)
      << out.str();
}

TEST(RunAccuracy, PlaceholdersAloneFailABaselineWithMeasurements) {
  const std::string data = std::string(VRAMSCOPE_BENCH_DIR) + "/data/";
  std::ostringstream out, err;
  EXPECT_EQ(run_accuracy({data + "example-not-measured.jsonl", "--baseline", data + "baseline.json"},
                         out, err),
            1)
      << out.str() << err.str();
  // The baseline counts the lines scored at each level: every committed measurement but those
  // that ran out of memory or did not record the level.
  const std::string all = out.str() + err.str();
  const std::string said = "measured allocated: scored on 0 cases, the baseline on ";
  const auto at = all.find(said);
  ASSERT_NE(at, std::string::npos) << all;
  const auto baseline_lines = std::stoul(all.substr(at + said.size()));
  EXPECT_GE(baseline_lines, 45u) << all;
  EXPECT_LE(baseline_lines, committed_measurements()) << all;
}

}  // namespace
}  // namespace vramscope::bench
