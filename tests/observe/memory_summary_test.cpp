#include <vramscope/observe/torch_stats.hpp>

#include <gtest/gtest.h>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

result<std::vector<torch_stats>> parse(const std::string& text) {
  warnings w;
  return parse_memory_summary(text, "summary.txt", w);
}

// A complete summary, then lines cut from it.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string first_lines(const std::string& text, std::size_t n) {
  std::string out;
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < n && i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

TEST(MemorySummary, ReadsTheFullTable) {
  auto s = parse(data("memory_summary_device0.txt"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.origin, stats_origin::memory_summary_text);
  EXPECT_EQ(t.device, 0);
  EXPECT_FALSE(t.rank);
  EXPECT_EQ(t.allocated.current, 10 * GiB);  // printed "10240 MiB"
  EXPECT_EQ(t.allocated.peak, 20 * GiB);
  EXPECT_EQ(t.active.peak, 22 * GiB);
  EXPECT_EQ(t.reserved.peak, 24 * GiB);
  EXPECT_EQ(t.inactive_split.current, 512 * MiB);
  EXPECT_EQ(t.requested.peak, 20479 * MiB);  // 20 GiB - 9999 B, printed in whole MiB
  EXPECT_EQ(t.num_ooms, 0u);
  EXPECT_EQ(t.num_alloc_retries, 0u);
  EXPECT_EQ(t.raw.at("allocation.all.allocated"), 9127000u);  // printed "9127 K"
  EXPECT_EQ(t.raw.at("segment.small_pool.peak"), 9u);
  EXPECT_EQ(t.raw.at("oversize_segments.current"), 0u);
  EXPECT_EQ(t.raw.count("allocated_bytes.large_pool.freed"), 1u);
}

TEST(MemorySummary, ReadsTheAbbreviatedTable) {
  auto s = parse(data("memory_summary_abbreviated.txt"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].device, 1);
  EXPECT_EQ((*s)[0].active.peak, 37 * GiB);
  EXPECT_EQ((*s)[0].raw.count("allocated_bytes.large_pool.peak"), 0u);
}

TEST(MemorySummary, ReadsATableInsideATorchrunLog) {
  auto s = parse(data("torchrun_oom_rank0.log"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].rank, 0);
  EXPECT_EQ((*s)[0].reserved.peak, 24 * GiB);
}

TEST(MemorySummary, ReadsTheOlderUnitNames) {
  std::string text = data("memory_summary_abbreviated.txt");
  for (auto [from, to] : {std::pair{" MiB |", " MB  |"}, std::pair{" GiB |", " GB  |"}}) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) text.replace(at, 6, to);
  }
  auto s = parse(text);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)[0].active.peak, 37 * GiB);
}

TEST(MemorySummary, NoTableMeansNoStats) {
  auto s = parse("epoch 1 loss 2.0\n");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->empty());
}

TEST(MemorySummary, RejectsATableCutOffBeforeTheReservedRow) {
  const std::string text = first_lines(data("memory_summary_device0.txt"), 16);
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "memory summary is cut off: it ends before the \"GPU reserved memory\" row");
  EXPECT_EQ(s.error().line, 16);
}

TEST(MemorySummary, RejectsARowCutInTheMiddle) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 8);
  text += "| Active memory         |  10240 MiB |  22";
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "summary.txt:9: memory summary row is cut off: expected it to end with \"|\"\n"
            "| Active memory         |  10240 MiB |  22\n"
            "^ near here");
}

TEST(MemorySummary, RejectsACellThatIsNotASize) {
  std::string text = data("memory_summary_device0.txt");
  const std::size_t at = text.find("20480 MiB");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "2O480 MiB");
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "expected a size such as \"1234 MiB\" in the \"Peak Usage\" column, got \"2O480 MiB\"");
  EXPECT_EQ(s.error().line, 8);
  EXPECT_EQ(s.error().column, 41);
}

TEST(MemorySummary, RejectsARowWithTheWrongNumberOfCells) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 7);
  text += "| Allocated memory      |  10240 MiB |  20480 MiB |\n";
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "memory summary row has 3 cells, expected 5 (a label and 4 figures)");
}

}  // namespace
}  // namespace vramscope::observe
