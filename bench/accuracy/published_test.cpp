#include <gtest/gtest.h>

#include <vramscope/core/io.hpp>
#include <vramscope/model/model_spec.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include "accuracy/accuracy_cli.hpp"
#include "accuracy/published.hpp"
#include "accuracy/published_report.hpp"

namespace vramscope::bench {
namespace {

namespace fs = std::filesystem;

const std::string ran =
    R"({"id":"LR06","quality":"A","oom":false,"memory_value":9.69,"memory_unit":"GB",)"
    R"("memory_metric":"torch.cuda.max_memory_allocated()/1e9"})";

// A fresh folder under the test temp dir holding records.jsonl, the given jobs and a list.
std::string folder(const std::string& name, const std::string& records,
                   const std::vector<std::pair<std::string, std::string>>& jobs) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("vramscope_published_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_TRUE(write_file_atomic((dir / "records.jsonl").string(), records));
  for (const auto& [file, text] : jobs) EXPECT_TRUE(write_file_atomic((dir / file).string(), text));
  return dir.string();
}

TEST(LevelOfMetric, MapsEachPublishedWording) {
  EXPECT_EQ(level_of_metric("torch.cuda.max_memory_allocated()/1e9"), 0u);
  EXPECT_EQ(level_of_metric("torch.cuda.memory_stats()['active_bytes.all.peak']/1024**3"), 1u);
  EXPECT_EQ(level_of_metric("torch.cuda.memory_stats()['reserved_bytes.all.peak']"), 2u);
  EXPECT_EQ(level_of_metric("99th percentile of torch.cuda.memory_reserved()"), 2u);
  EXPECT_EQ(level_of_metric("W&B screenshot (process/device-level, nvidia-smi-like)"), 3u);
  EXPECT_EQ(level_of_metric("torchtune memory stats (which of active/allocated/reserved is not "
                            "stated)"),
            std::nullopt);
  EXPECT_EQ(level_of_metric("'memory consumed per GPU' (method not stated)"), std::nullopt);
}

TEST(PublishedRecord, ConvertsDecimalGigabytes) {
  auto r = parse_published_record(ran, "records.jsonl", 6);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->group, "LR");
  EXPECT_EQ(r->value, bytes{9'690'000'000});
  EXPECT_EQ(r->level, 0u);
}

TEST(PublishedRecord, ReadsWhetherTheSequenceLengthIsExact) {
  auto with = [](const std::string& field) {
    return ran.substr(0, ran.size() - 1) + R"(,"seq_len_exact":)" + field + "}";
  };
  auto exact = parse_published_record(with(R"x("exact (packed)")x"), "records.jsonl", 1);
  ASSERT_TRUE(exact) << exact.error().to_string();
  EXPECT_TRUE(exact->exact_length);
  auto cap = parse_published_record(with(R"x("cap-only (dynamic padding)")x"), "records.jsonl", 2);
  ASSERT_TRUE(cap);
  EXPECT_FALSE(cap->exact_length);
  auto bad = parse_published_record(with("5"), "records.jsonl", 3);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("seq_len_exact"), std::string::npos) << bad.error().to_string();
}

TEST(PublishedRecord, RejectsUnknownUnit) {
  std::string text = ran;
  text.replace(text.find("\"GB\""), 4, "\"TB\"");
  auto r = parse_published_record(text, "records.jsonl", 7);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().to_string(),
            "records.jsonl:7: field \"memory_unit\": expected GB, GiB, MB or MiB, got \"TB\"");
}

TEST(PublishedRecord, RejectsBrokenJsonWithItsLine) {
  auto r = parse_published_record(R"({"id": "LR01", )", "records.jsonl", 3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().to_string().rfind("records.jsonl:3:", 0), 0u) << r.error().to_string();
}

TEST(PublishedRecord, RejectsMissingOom) {
  auto r = parse_published_record(R"({"id":"LR01","quality":"A","memory_metric":null})",
                                  "records.jsonl", 2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().to_string(), "records.jsonl:2: missing field \"oom\"");
}

TEST(Unexpressed, ReadsTheLastCellOfEachRecordRow) {
  const std::string dir = folder("list", "",
                                 {{"LIST.md",
                                   "# list\n\n| id | model | missing |\n"
                                   "|---|---|---|\n"
                                   "| LR01 | phi-1.5 | model family phi |\n"}});
  auto list = read_unexpressed(dir + "/LIST.md");
  ASSERT_TRUE(list) << list.error().to_string();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->at("LR01"), "model family phi");
}

TEST(Unexpressed, RejectsRowWithoutFeature) {
  const std::string dir = folder("list_bad", "", {{"LIST.md", "| LR01 |\n"}});
  auto list = read_unexpressed(dir + "/LIST.md");
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().to_string().rfind(dir + "/LIST.md:1: row of LR01 names no missing", 0), 0u)
      << list.error().to_string();
}

TEST(ScorePublished, RecordWithNeitherJobNorEntryIsAnError) {
  const std::string dir = folder("neither", ran + "\n", {});
  auto set = score_published(dir, {});
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().to_string(), dir + "/records.jsonl:1: record LR06: quality A but neither " +
                                         dir + "/LR06.yaml nor a not-expressible entry");
}

TEST(ScorePublished, JobThatDoesNotParseNamesFileAndLine) {
  const std::string dir =
      folder("badjob", ran + "\n", {{"LR06.yaml", "model: gpt2\ntraining: { seq_len: -3 }\n"}});
  auto set = score_published(dir, {});
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().to_string().rfind(dir + "/LR06.yaml:2:", 0), 0u) << set.error().to_string();
}

TEST(ScorePublished, JobWithoutRecordIsAnError) {
  const std::string dir = folder("orphan", ran + "\n", {{"LR99.yaml", "model: gpt2\n"}});
  auto set = score_published(dir, {{"LR06", "x"}});
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().to_string().find("LR99.yaml"), std::string::npos);
}

TEST(ScorePublished, ScoresTheRecordsLevelOnly) {
  const std::string job =
      "model: gpt2\nhardware: { gpu: A100-40GB }\nparallel: { strategy: single }\n"
      "precision: bf16-true\ntraining: { seq_len: 1024 }\n";
  const std::string dir = folder("one", ran + "\n", {{"LR06.yaml", job}});
  auto set = score_published(dir, {});
  ASSERT_TRUE(set) << set.error().to_string();
  ASSERT_EQ(set->cases.size(), 1u);
  const auto& c = set->cases[0];
  ASSERT_TRUE(c.predicted && c.error);
  EXPECT_DOUBLE_EQ(*c.error, (static_cast<double>(*c.predicted) - 9.69e9) / 9.69e9);
  const auto groups = summarize_published(*set);
  EXPECT_EQ(groups.front().name, "LR");
  EXPECT_EQ(groups.front().n, 1u);
  ASSERT_GE(groups.size(), 2u);
  const auto& all = groups[groups.size() - 2];
  EXPECT_EQ(all.name, "all");
  EXPECT_EQ(all.oom_agree, 1u);
  // The record gives no seq_len_exact, so it is not an exact translation.
  EXPECT_EQ(groups.back().name, "exact");
  EXPECT_EQ(groups.back().records, 0u);
}

// Two records, one planned 10 % over and one 30 % under: the median and p90 are of the
// magnitudes (0.1 and 0.3), the bias is their signed mean (-0.1).
TEST(SummarizePublished, BiasIsTheMeanSignedError) {
  published_set set;
  for (const double e : {0.1, -0.3}) {
    published_case c;
    c.record.id = "LH01";
    c.record.group = "LH";
    c.record.quality = 'B';
    c.record.level = 0;
    c.record.value = 1000;
    c.predicted = static_cast<bytes>(1000 * (1 + e));
    c.error = e;
    set.cases.push_back(c);
  }
  const auto groups = summarize_published(set);
  const auto it = std::find_if(groups.begin(), groups.end(),
                               [](const published_group& g) { return g.name == "LH"; });
  ASSERT_NE(it, groups.end());
  EXPECT_EQ(it->n, 2u);
  EXPECT_DOUBLE_EQ(it->bias, -0.1);
  EXPECT_NEAR(it->median, 0.2, 1e-12);
  EXPECT_NEAR(it->p90, 0.28, 1e-12);
  EXPECT_NE(render_published(set, groups).find("-10.0 %"), std::string::npos);
}

TEST(PublishedBaseline, WorseMedianFewerScoredAndLowerAgreementAreRegressions) {
  published_group before{"LR", 10, 8, 6, 0.10, 0.20, 8, 8};
  published_group now = before;
  EXPECT_TRUE(published_regressions({before}, {now}).empty());
  now.median = 0.11;
  now.n = 5;
  now.oom_agree = 7;
  EXPECT_EQ(published_regressions({before}, {now}).size(), 3u);
  EXPECT_EQ(published_regressions({before}, {}).front(), "group LR is gone");
}

TEST(PublishedBaseline, RoundTrips) {
  const std::vector<published_group> groups{{"LR", 10, 8, 6, 0.1, 0.2, 8, 8},
                                            {"all", 10, 8, 6, 0.1, 0.2, 8, 8}};
  const std::string path = ::testing::TempDir() + "vramscope_published_baseline.json";
  ASSERT_TRUE(write_file_atomic(path, to_published_baseline_json(groups).dump()));
  auto read = read_published_baseline(path);
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_TRUE(published_regressions(groups, *read).empty());
  EXPECT_TRUE(published_regressions(*read, groups).empty());
}

TEST(PublishedCli, PublishedAndFilesAreExclusive) {
  std::ostringstream out, err;
  EXPECT_EQ(run_accuracy({"x.jsonl", "--published", "dir", "--unexpressed", "l.md"}, out, err), 2);
  EXPECT_EQ(err.str(), "vramscope_accuracy: give ground-truth files or --published, not both\n");
}

// The models the committed jobs load from config.json carry their published parameter counts.
TEST(PublishedModels, ConfigsGiveThePublishedParameterCounts) {
  const std::string models = std::string(VRAMSCOPE_BENCH_DIR) + "/data/published/models/";
  auto stablelm = model::load_model(models + "stablelm-base-alpha-3b");
  ASSERT_TRUE(stablelm) << stablelm.error().to_string();
  EXPECT_EQ(stablelm->parameters(), 3'637'321'728u);
  auto llama = model::load_model(models + "llama-2-70b");
  ASSERT_TRUE(llama) << llama.error().to_string();
  EXPECT_EQ(llama->parameters(), 68'976'648'192u);
}

}  // namespace
}  // namespace vramscope::bench
