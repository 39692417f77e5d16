#include <vramscope/observe/read_observation.hpp>

#include <vramscope/observe/observe_json.hpp>

#include <gtest/gtest.h>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;
using testing::data_path;

TEST(ReadObservation, DetectsEveryFormat) {
  EXPECT_EQ(detect_observation_format(data("smi_case1_2xa100_jax.txt")), observation_format::smi_table);
  EXPECT_EQ(detect_observation_format(data("smi_case1_query_gpu.csv")), observation_format::smi_csv);
  EXPECT_EQ(detect_observation_format(data("smi_case1_v12.xml")), observation_format::smi_xml);
  EXPECT_EQ(detect_observation_format(data("stats_rank3.json")), observation_format::memory_stats);
  EXPECT_EQ(detect_observation_format(data("memory_stats_all_ranks.json")), observation_format::memory_stats);
  EXPECT_EQ(detect_observation_format(data("memory_stats_rank3_ordered_dict.txt")), observation_format::memory_stats);
  EXPECT_EQ(detect_observation_format(data("memory_stats_nested_dict.txt")), observation_format::memory_stats);
  EXPECT_EQ(detect_observation_format(data("memory_summary_device0.txt")), observation_format::log);
  EXPECT_EQ(detect_observation_format(data("torchrun_oom_rank0.log")), observation_format::log);
  EXPECT_EQ(detect_observation_format(data("oom_xla_bfc.log")), observation_format::log);
  EXPECT_FALSE(detect_observation_format("just some words\n"));
  // TensorFlow.js's tf.memory() objects start with a brace but are no memory_stats() JSON.
  EXPECT_EQ(detect_observation_format(
                "{unreliable: false, numTensors: 3, numDataBuffers: 2, numBytes: 64}\n"),
            observation_format::log);
}

TEST(ReadObservation, ReadsStatsWithTheRankFromTheFileName) {
  auto o = read_observation(data_path("stats_rank3.json"));
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->stats.size(), 1u);
  EXPECT_EQ(o->stats[0].rank, 3);
}

TEST(ReadObservation, ReadsSummaryAndOomFromOneLog) {
  auto o = read_observation(data_path("torchrun_oom_rank0.log"));
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->stats.size(), 1u);
  EXPECT_EQ(o->ooms.size(), 1u);
}

TEST(ReadObservation, PointsPicklesToTheSnapshotCommand) {
  auto o = parse_observation(std::string("\x80\x04}\x94."), "snap.pickle");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "snap.pickle: this is a pickle (a PyTorch memory snapshot?): analyse it with `vramscope snapshot`");
}

TEST(ReadObservation, RejectsTextOfNoKnownFormat) {
  auto o = parse_observation("just some words\n", "notes.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "notes.txt: could not tell the format: expected nvidia-smi output (table, CSV, -q text or XML), "
            "torch.cuda.memory_stats() JSON, a memory_summary() table, a log with an out-of-memory message or "
            "memory figures (allocated / reserved, used / total). Paste nvidia-smi's whole output, "
            "torch.cuda.memory_summary(), or the log lines from the traceback through the out-of-memory error");
}

// A paste with sizes but no label a reader knows: the refusal quotes the lines it found them on.
TEST(ReadObservation, ARefusalQuotesTheSizesItFound) {
  auto o = parse_observation("step 40 done\nit peaked at 11.2 GB then died\n", "notes.txt");
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().to_string().find(
                "found sizes without a label this reader knows (allocated / active / reserved, "
                "MA / CA, used / total) on line 2: it peaked at 11.2 GB then died."),
            std::string::npos)
      << o.error().to_string();
}

TEST(ReadObservation, MissingFileIsNamed) {
  auto o = read_observation("/nonexistent/smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(), "/nonexistent/smi.txt: no such file");
}

TEST(ReadObservation, AppendMergesBundles) {
  auto a = read_observation(data_path("smi_case1_query_gpu.csv"));
  auto b = read_observation(data_path("smi_case1_query_apps.csv"));
  ASSERT_TRUE(a && b);
  append(*a, std::move(*b));
  EXPECT_EQ(a->gpus.size(), 2u);
  EXPECT_EQ(a->processes.size(), 2u);
}

TEST(ObservationJson, WritesBytesAndOmitsMissingFigures) {
  auto o = read_observation(data_path("smi_gb10_na.csv"));
  ASSERT_TRUE(o);
  const auto j = to_json(*o);
  ASSERT_EQ(j["gpus"].size(), 1u);
  EXPECT_FALSE(j["gpus"][0].contains("total"));
  auto t = read_observation(data_path("smi_case1_2xa100_jax.txt"));
  ASSERT_TRUE(t);
  const auto k = to_json(*t);
  EXPECT_EQ(k["gpus"][0]["total"], 81920 * MiB);
  EXPECT_EQ(k["processes"][1]["used"], 73728 * MiB);
  EXPECT_EQ(k["driver_version"], "535.183.01");
}

// A log of 2,000,001 short lines is refused before its lines are indexed (45 MB of 2-byte lines
// took 1.7 GiB).
TEST(ReadObservation, ALogOfMoreLinesThanItReadsIsRefused) {
  std::string text = "torch.OutOfMemoryError: CUDA out of memory.\n";
  for (int i = 0; i < 2000000; ++i) text += "x\n";
  auto o = parse_observation(text, "train.log");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().line, 2000001);
  EXPECT_NE(o.error().message.find("more than 2000000 lines"), std::string::npos)
      << o.error().message;
}

}  // namespace
}  // namespace vramscope::observe
