#include <vramscope/watch/stats_folder.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::temp_dir;

TEST(StatsFolder, ReadsEveryRanksMemoryStatsInRankOrder) {
  temp_dir dir;
  dir.write("rank1.json", R"({"allocated_bytes.all.current": 100, "reserved_bytes.all.peak": 400})");
  dir.write("rank0.json", R"({"rank": 0, "allocated_bytes.all.current": 50, "num_alloc_retries": 3})");
  dir.write("eval.json", R"({"allocated_bytes.all.current": 7})");
  dir.write("notes.txt", "not a stats file");
  dir.write("old/rank9.json", R"({"allocated_bytes.all.current": 9})");
  auto f = read_stats_folder(dir.path());
  ASSERT_TRUE(f);
  ASSERT_EQ(f->ranks.size(), 3u) << "*.json directly in the folder only";
  EXPECT_EQ(f->ranks[0].stats.rank, 0);
  EXPECT_EQ(f->ranks[0].stats.num_alloc_retries, 3u);
  EXPECT_EQ(f->ranks[1].stats.rank, 1) << "rank from the file name";
  EXPECT_EQ(f->ranks[1].file, "rank1.json");
  EXPECT_EQ(f->ranks[1].stats.reserved.peak, 400u);
  EXPECT_FALSE(f->ranks[2].stats.rank) << "no rank: last";
  EXPECT_EQ(f->ranks[2].file, "eval.json");
  EXPECT_GE(f->ranks[0].age_seconds, 0.0);
  EXPECT_LT(f->ranks[0].age_seconds, 60.0);
  EXPECT_EQ(f->skipped, 0u);
}

TEST(StatsFolder, HalfWrittenFilesAreSkippedAndCounted) {
  temp_dir dir;
  dir.write("rank0.json", R"({"allocated_bytes.all.current": 1)");
  dir.write("rank1.json", R"({"allocated_bytes.all.current": 2})");
  dir.write("rank2.json", R"({"allocated_bytes.all.current": "lots"})");
  dir.write("rank3.json", R"({"allocated_bytes.all.current": 3, "reserved_bytes.all.current": 4,)");
  auto f = read_stats_folder(dir.path());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ranks.size(), 1u);
  EXPECT_EQ(f->skipped, 3u);
  ASSERT_EQ(f->problems.size(), 3u);
  EXPECT_NE(f->problems[0].to_string().find("rank0.json"), std::string::npos) << f->problems[0].to_string();
  // Whole figures before the cut do not make a file caught mid-write a reading.
  EXPECT_NE(f->problems[2].to_string().find("rank3.json"), std::string::npos) << f->problems[2].to_string();
  EXPECT_NE(f->problems[2].message.find("memory_stats JSON is cut off"), std::string::npos);
}

// The reader's cut flag decides, not its warning's wording: a list cut between two whole entries
// loses no figure, and is still a file caught mid-write.
TEST(StatsFolder, AListCutBetweenWholeEntriesIsCaughtMidWrite) {
  temp_dir dir;
  dir.write("all.json", R"([{"rank": 0, "allocated_bytes.all.current": 1}, )");
  dir.write("done.json", R"([{"rank": 1, "allocated_bytes.all.current": 2}])");
  auto f = read_stats_folder(dir.path());
  ASSERT_TRUE(f);
  ASSERT_EQ(f->ranks.size(), 1u);
  EXPECT_EQ(f->ranks[0].file, "done.json");
  EXPECT_EQ(f->skipped, 1u);
  ASSERT_EQ(f->problems.size(), 1u);
  EXPECT_NE(f->problems[0].to_string().find("all.json:1:"), std::string::npos) << f->problems[0].to_string();
}

// A pipe named like a stats file is never opened (that would block the metrics) and is counted
// and named among the skipped files, where it was passed over without a word.
TEST(StatsFolder, APipeNamedLikeAStatsFileIsSkippedAndNamed) {
  temp_dir dir;
  dir.write("rank0.json", R"({"allocated_bytes.all.current": 2})");
  ASSERT_EQ(::mkfifo(dir.file("rank1.json").c_str(), 0600), 0);
  auto f = read_stats_folder(dir.path());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ranks.size(), 1u);
  EXPECT_EQ(f->skipped, 1u);
  ASSERT_EQ(f->problems.size(), 1u);
  EXPECT_EQ(f->problems[0].to_string(),
            dir.file("rank1.json") + ": skipped: not a regular file (a pipe, device or socket)");
}

TEST(StatsFolder, MissingFolderIsAnError) {
  auto f = read_stats_folder("/nonexistent/stats");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().to_string(),
            "/nonexistent/stats: not a folder (expected a folder of torch.cuda.memory_stats() JSON files)");
}

}  // namespace
}  // namespace vramscope::watch
