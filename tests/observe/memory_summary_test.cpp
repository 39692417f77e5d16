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

result<std::vector<torch_stats>> parse(const std::string& text, warnings& w) {
  return parse_memory_summary(text, "summary.txt", w);
}

// Lines 1-16 end after the "Active memory" group's separator: Requested and reserved are not there.
TEST(MemorySummary, ReadsATableCutOffBeforeTheReservedRow) {
  warnings w;
  auto s = parse(first_lines(data("memory_summary_device0.txt"), 15), w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.allocated.peak, 20 * GiB);
  EXPECT_EQ(t.active.peak, 22 * GiB);
  EXPECT_FALSE(t.reserved.current);  // unknown, not 0
  EXPECT_FALSE(t.reserved.peak);
  EXPECT_FALSE(t.inactive_split.current);
  EXPECT_FALSE(t.requested.peak);
  EXPECT_EQ(t.cut_at_line, 15);
  EXPECT_TRUE(t.cut);
  ASSERT_GE(t.missing.size(), 3u);
  EXPECT_EQ(t.missing[0], "Requested memory");
  EXPECT_EQ(t.missing[1], "GPU reserved memory");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 15);
  EXPECT_TRUE(w[0].message.starts_with(
      "memory summary is cut off after this line; not in the paste, so unknown (not 0): "
      "\"Requested memory\", \"GPU reserved memory\", \"Non-releasable memory\", "))
      << w[0].message;
  EXPECT_NE(w[0].message.find("its cache (reserved - allocated) and so fragmentation"), std::string::npos);
  EXPECT_EQ(w[0].message.find("active - allocated"), std::string::npos);  // Active was read
}

TEST(MemorySummary, ReadsATableCutOffAfterTheReservedRow) {
  warnings w;
  auto s = parse(first_lines(data("memory_summary_device0.txt"), 22), w);
  ASSERT_TRUE(s) << s.error().to_string();
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.reserved.peak, 24 * GiB);
  EXPECT_EQ(t.raw.at("reserved_bytes.small_pool.current"), 245 * MiB);
  EXPECT_FALSE(t.inactive_split.current);
  EXPECT_EQ(t.missing.front(), "Non-releasable memory");
  EXPECT_EQ(t.missing.back(), "Oversize GPU segments");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 22);
  EXPECT_EQ(w[0].message.find("reserved - allocated"), std::string::npos);
  EXPECT_NE(w[0].message.find("the free bytes trapped in split blocks (non-releasable)"), std::string::npos);
}

TEST(MemorySummary, ATableCutAfterItsLastRowLacksNothing) {
  std::string text = data("memory_summary_device0.txt");
  const auto lines = lines_of(text);
  std::size_t last_row = lines.size();
  while (last_row > 0 && lines[last_row - 1].find("Oversize GPU segments") == std::string::npos) --last_row;
  ASSERT_GT(last_row, 0u);
  warnings w;
  auto s = parse(first_lines(text, last_row), w);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_TRUE((*s)[0].missing.empty());
  EXPECT_TRUE(w.empty()) << w[0].to_string();
  // Nothing is missing, but the closing border is: the result still says the paste was cut.
  EXPECT_TRUE((*s)[0].cut);
  EXPECT_EQ((*s)[0].cut_at_line, static_cast<int>(last_row));
  warnings none;
  auto whole = parse(text, none);
  ASSERT_TRUE(whole);
  EXPECT_FALSE((*whole)[0].cut);
  EXPECT_FALSE((*whole)[0].cut_at_line);
}

TEST(MemorySummary, DropsARowCutInTheMiddle) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 11);
  text += "| Active memory         |  10240 MiB |  22";
  warnings w;
  auto s = parse(text, w);
  ASSERT_TRUE(s) << s.error().to_string();
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.allocated.peak, 20 * GiB);
  EXPECT_FALSE(t.active.current);  // the cut row is dropped, not half read
  EXPECT_EQ(t.missing.front(), "Active memory");
  EXPECT_EQ(t.cut_at_line, 12);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 12);
  EXPECT_EQ(w[0].context, "| Active memory         |  10240 MiB |  22");
  EXPECT_EQ(w[0].message.substr(0, 72),
            "memory summary is cut off in the middle of this row: the row is dropped;");
}

TEST(MemorySummary, DropsARowCutAtACellBorder) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 11);
  text += "| Active memory         |  10240 MiB |\n";
  warnings w;
  auto s = parse(text, w);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_FALSE((*s)[0].active.current);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 12);
}

TEST(MemorySummary, ReadsAHeaderWithNoRows) {
  warnings w;
  auto s = parse(first_lines(data("memory_summary_device0.txt"), 6), w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.device, 0);
  EXPECT_EQ(t.num_ooms, 0u);  // the counters line came before the cut
  EXPECT_FALSE(t.allocated.peak);
  EXPECT_FALSE(t.reserved.peak);
  EXPECT_EQ(t.missing.size(), 11u);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 6);
  EXPECT_NE(w[0].message.find("what live tensors hold (allocated)"), std::string::npos);
}

TEST(MemorySummary, RejectsARowCutInTheMiddleOfTheTable) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 11);
  text += "| Active memory         |  10240 MiB |  22\n";
  text += "|       from large pool |  10137 MiB |  22302 MiB | 772485 MiB | 762347 MiB |\n";
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "summary.txt:12: memory summary row is cut off: expected it to end with \"|\"\n"
            "| Active memory         |  10240 MiB |  22\n"
            "^ near here");
}

TEST(MemorySummary, ACellThatIsNotASizeStaysAnErrorInACutTable) {
  std::string text = first_lines(data("memory_summary_device0.txt"), 10);
  const std::size_t at = text.find("20480 MiB");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "2O480 MiB");
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().line, 8);
  EXPECT_EQ(s.error().column, 41);
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
  text += "|       from large pool |  10137 MiB |  20275 MiB | 750182 MiB | 740044 MiB |\n";
  auto s = parse(text);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "memory summary row has 3 cells, expected 5 (a label and 4 figures)");
}

// A table pasted without its title (cut above it, or quoted in part): its rows read from the
// first, the device unknown, the rows above and below the paste named as missing; a markdown
// table of other labels, or a single row, is not a summary.
TEST(MemorySummary, ReadsATableCutAboveItsTitle) {
  warnings w;
  auto s = parse(
      "|       from small pool |     100 MB |     101 MB |    1200 MB |    1100 MB |\n"
      "|---------------------------------------------------------------------------|\n"
      "| Active memory         |     100 MB |     101 MB |    1200 MB |    1100 MB |\n"
      "|       from large pool |       0 MB |       0 MB |       0 MB |       0 MB |\n"
      "|       from small pool |     100 MB |     101 MB |    1200 MB |    1100 MB |\n"
      "|---------------------------------------------------------------------------|\n"
      "| GPU reserved memory   |     102 MB |     102 MB |     102 MB |       0 B  |\n"
      "|       from large pool |       0 MB |       0 MB |       0 MB |       0 B  |\n"
      "|       from small pool |     102 MB |     102 MB |     102 MB |       0 B  |\n",
      w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& t = (*s)[0];
  EXPECT_FALSE(t.device);
  EXPECT_EQ(t.active.current, 100 * MiB);
  EXPECT_EQ(t.reserved.current, 102 * MiB);
  EXPECT_FALSE(t.allocated.current);  // its row is above the paste: unknown, not 0
  EXPECT_TRUE(t.cut);
  ASSERT_FALSE(t.missing.empty());
  EXPECT_EQ(t.missing.front(), "Allocated memory");
  ASSERT_GE(w.size(), 2u);
  EXPECT_EQ(w[0].line, 1);
  EXPECT_NE(w[0].message.find("without its title"), std::string::npos) << w[0].message;

  warnings none;
  auto other = parse(
      "| Model | Allocated | Reserved | Peak | Freed |\n| a | 1 MB | 2 MB | 3 MB | 4 MB |\n", none);
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->empty());
  auto one_row = parse(
      "| Active memory         |     100 MB |     101 MB |    1200 MB |    1100 MB |\n", none);
  ASSERT_TRUE(one_row);
  EXPECT_TRUE(one_row->empty());
}

}  // namespace
}  // namespace vramscope::observe
