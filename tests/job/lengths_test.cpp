// training.lengths: the distributions a job describes, the histogram file's errors with file and
// line, and the seeded draws.
#include <vramscope/job/lengths.hpp>

#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <unistd.h>

namespace vramscope::job {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() /
                     ("vramscope_lengths_" + std::to_string(::getpid()) + "_" + name))
                        .string();
  EXPECT_TRUE(write_file_atomic(path, text));
  return path;
}

job_spec with_lengths(const std::string& kind) {
  job_spec j;
  j.training.lengths = kind;
  return j;
}

TEST(LengthDistribution, FixedIsSeqLenAlone) {
  job_spec j;
  j.training.seq_len = 4096;
  const auto d = length_distribution_of(j);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->support(), 1u);
  EXPECT_EQ(d->shortest(), 4096u);
  EXPECT_EQ(describe(*d, j), "fixed 4096");
}

TEST(LengthDistribution, UniformRunsFromSeqLenMinToSeqLen) {
  auto j = with_lengths("uniform");
  j.training.seq_len = 8192;
  j.training.seq_len_min = 512;
  const auto d = length_distribution_of(j);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->support(), 8192u - 512u + 1u);
  EXPECT_EQ(describe(*d, j), "uniform 512..8192");
  j.training.seq_len_min = 0;
  const auto bad = length_distribution_of(j);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "training.seq_len_min: uniform lengths need the shortest length, from 1 to "
            "training.seq_len (8192); got 0");
}

TEST(LengthDistribution, BucketsAddRepeatedLengthsAndNameABadItem) {
  auto j = with_lengths("buckets");
  j.training.length_buckets = {"2048:1", "512:2.5", "2048:0.5"};
  const auto d = length_distribution_of(j);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->weighted.size(), 2u);
  EXPECT_EQ(d->weighted[0].length, 512u);
  EXPECT_DOUBLE_EQ(d->weighted[0].weight, 2.5);
  EXPECT_DOUBLE_EQ(d->weighted[1].weight, 1.5);
  EXPECT_EQ(describe(*d, j), "2 buckets 512..2048");
  j.training.length_buckets = {"512:1", "1024"};
  const auto bad = length_distribution_of(j);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "training.length_buckets: item 2 \"1024\": expected LENGTH:WEIGHT, a length from 1 "
            "to 16777216 and a weight of at least 0");
  j.training.length_buckets = {"512:0"};
  ASSERT_FALSE(length_distribution_of(j));
}

TEST(LengthDistribution, HistogramCsvWithHeaderAndComments) {
  auto j = with_lengths("histogram");
  j.training.length_file =
      temp_file("ok.csv", "length,count\n# from the tokenizer\n128,10\n\n4096, 2\n128,5\n");
  const auto d = length_distribution_of(j);
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->weighted.size(), 2u);
  EXPECT_DOUBLE_EQ(d->weighted[0].weight, 15);
  EXPECT_EQ(d->longest(), 4096u);
}

TEST(LengthDistribution, HistogramCsvErrorNamesFileAndLine) {
  auto j = with_lengths("histogram");
  const auto path = temp_file("bad.csv", "length,count\n128,10\n256;3\n");
  j.training.length_file = path;
  const auto d = length_distribution_of(j);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().source, path);
  EXPECT_EQ(d.error().line, 3);
  EXPECT_EQ(d.error().message,
            "expected length,count: a length from 1 to 16777216 and a count of at least 0");
  EXPECT_EQ(d.error().context, "256;3");
  j.training.length_file = temp_file("zero.csv", "0,4\n");
  const auto zero = length_distribution_of(j);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().line, 1);
  j.training.length_file = temp_file("none.csv", "64,0\n");
  const auto none = length_distribution_of(j);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no length has a weight above 0");
  j.training.length_file = path + ".missing";
  ASSERT_FALSE(length_distribution_of(j));
}

TEST(LengthDistribution, HistogramJsonPairsOrObjects) {
  auto j = with_lengths("histogram");
  j.training.length_file =
      temp_file("ok.json", "[[256, 3], {\"length\": 1024, \"count\": 1}]");
  const auto d = length_distribution_of(j);
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->weighted.size(), 2u);
  EXPECT_EQ(d->weighted[1].length, 1024u);
  const auto path = temp_file("bad.json", "[[256, 3],\n [-1, 2]]");
  j.training.length_file = path;
  const auto bad = length_distribution_of(j);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().source, path);
  EXPECT_EQ(bad.error().message,
            "item 2 ([-1,2]): expected [length, count] or {\"length\": L, \"count\": C}, a "
            "length from 1 to 16777216 and a count of at least 0");
  j.training.length_file = temp_file("broken.json", "[[256, 3],\n [512 2]]");
  const auto broken = length_distribution_of(j);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().line, 2);
}

TEST(DrawLengths, SeededAndTheSameEveryTime) {
  length_distribution d;
  d.lo = 1;
  d.hi = 1000;
  const auto a = draw_lengths(d, 200, 7);
  EXPECT_EQ(a, draw_lengths(d, 200, 7));
  EXPECT_NE(a, draw_lengths(d, 200, 8));
  for (auto v : a) {
    EXPECT_GE(v, 1u);
    EXPECT_LE(v, 1000u);
  }
  // SplitMix64 from seed 0 gives 0xe220a8397b1dcdaf first: 1 + floor(x * 1000 / 2^64) = 884.
  EXPECT_EQ(draw_lengths(d, 1, 0).front(), 884u);
}

TEST(DrawLengths, WeightsSetTheFrequencies) {
  length_distribution d;
  d.weighted = {{512, 3}, {4096, 1}};
  std::map<std::uint64_t, int> seen;
  for (auto v : draw_lengths(d, 40000, 1)) ++seen[v];
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NEAR(seen[512] / 40000.0, 0.75, 0.01);
}

}  // namespace
}  // namespace vramscope::job
