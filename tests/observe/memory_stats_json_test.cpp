#include <vramscope/observe/torch_stats.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

result<std::vector<torch_stats>> parse(const std::string& text, const std::string& source = "stats.json") {
  warnings w;
  return parse_memory_stats_json(text, source, w);
}

TEST(MemoryStatsJson, ReadsAFlatDictAndTakesTheRankFromTheFileName) {
  auto s = parse(data("stats_rank3.json"), "runs/stats_rank3.json");
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& r = (*s)[0];
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.origin, stats_origin::memory_stats_json);
  EXPECT_EQ(r.allocated.peak, 19756849561u);  // case 4: 18.4 GiB
  EXPECT_EQ(r.active.peak, 39 * GiB);
  EXPECT_EQ(r.reserved.peak, 45 * GiB);
  EXPECT_EQ(r.inactive_split.peak, 5 * GiB);
  EXPECT_EQ(r.inactive_split_blocks, 212u);
  EXPECT_EQ(r.num_alloc_retries, 2u);
  EXPECT_EQ(r.num_ooms, 0u);
  EXPECT_EQ(r.raw.at("max_split_size"), 18446744073709551615u);
  EXPECT_EQ(r.raw.at("allocated_bytes.large_pool.peak"), 19559281065u);
}

TEST(MemoryStatsJson, ReadsTheNestedForm) {
  auto s = parse(data("memory_stats_nested.json"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].rank, 1);
  EXPECT_EQ((*s)[0].device, 1);
  EXPECT_EQ((*s)[0].active.peak, 37 * GiB);
}

TEST(MemoryStatsJson, ReadsAListOfRanks) {
  auto s = parse(data("memory_stats_all_ranks.json"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0].rank, 0);
  EXPECT_EQ((*s)[1].rank, 1);
  EXPECT_EQ((*s)[0].reserved.peak, 24 * GiB);
}

TEST(MemoryStatsJson, ReadsADictKeyedByRank) {
  auto s = parse(data("memory_stats_by_rank.json"));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[1].rank, 1);
  EXPECT_EQ((*s)[1].allocated.current, 9 * GiB);
}

TEST(MemoryStatsJson, ListPositionIsTheRankWhenNoneIsGiven) {
  auto s = parse(R"([{"allocated_bytes.all.peak": 1}, {"allocated_bytes.all.peak": 2}])");
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)[1].rank, 1);
  EXPECT_EQ((*s)[1].allocated.peak, 2u);
  EXPECT_FALSE((*s)[1].allocated.current);
}

TEST(MemoryStatsJson, WarnsAboutKeysItDoesNotKnow) {
  warnings w;
  auto s = parse_memory_stats_json(R"({"allocated_bytes.all.peak": 1, "step": 40})", "stats.json", w);
  ASSERT_TRUE(s);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].to_string(), "stats.json: key \"step\" is not a memory_stats key; skipped");
}

// torch.cuda.memory_stats_as_nested_dict(), saved with json.dump.
TEST(MemoryStatsJson, ReadsTheNestedDictForm) {
  auto s = parse(R"({"active_bytes": {"all": {"current": 1, "peak": 3}},
    "allocated_bytes": {"all": {"allocated": 9, "current": 1024, "freed": 8, "peak": 4096},
                        "large_pool": {"current": 1000, "peak": 4000}},
    "reserved_bytes": {"all": {"current": 2097152, "peak": 8388608}},
    "oversize_allocations": {"current": 0, "peak": 0},
    "num_alloc_retries": 2, "num_ooms": 1, "max_split_size": -1})");
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const auto& r = (*s)[0];
  EXPECT_EQ(r.allocated.current, 1024u);
  EXPECT_EQ(r.allocated.peak, 4096u);
  EXPECT_EQ(r.reserved.peak, 8388608u);
  EXPECT_EQ(r.num_alloc_retries, 2u);
  EXPECT_EQ(r.raw.at("allocated_bytes.large_pool.peak"), 4000u);
  EXPECT_EQ(r.raw.at("oversize_allocations.peak"), 0u);
}

TEST(MemoryStatsJson, NamesTheWholeKeyOfABadNestedValue) {
  auto s = parse("{\"allocated_bytes\": {\"all\": {\n  \"peak\": \"4 GiB\"}}}");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "stats.json:2:3: \"allocated_bytes.all.peak\" must be a whole number of bytes or a count, got a string\n"
            "  \"peak\": \"4 GiB\"}}}\n"
            "  ^ near here");
}

TEST(MemoryStatsJson, RejectsANonNumericValue) {
  auto s = parse("{\n  \"allocated_bytes.all.current\": 1024,\n  \"allocated_bytes.all.peak\": \"12 GiB\"\n}\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "stats.json:3:3: \"allocated_bytes.all.peak\" must be a whole number of bytes or a count, got a string\n"
            "  \"allocated_bytes.all.peak\": \"12 GiB\"\n"
            "  ^ near here");
}

TEST(MemoryStatsJson, RejectsANegativeValue) {
  auto s = parse(R"({"num_ooms": -1})");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "\"num_ooms\" must be a whole number of bytes or a count, got a negative number");
}

// torch writes an unset max_split_size as -1; that is "no limit", not a bad value.
TEST(MemoryStatsJson, TakesMaxSplitSizeMinusOneAsUnset) {
  auto s = parse(R"({"allocated_bytes.all.peak": 7, "max_split_size": -1, "num_ooms": 0})");
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)[0].allocated.peak, 7u);
  EXPECT_EQ((*s)[0].raw.count("max_split_size"), 0u);
  auto nested = parse(R"({"rank": 2, "stats": {"max_split_size": -1, "allocated_bytes.all.peak": 9}})");
  ASSERT_TRUE(nested) << nested.error().to_string();
  EXPECT_EQ((*nested)[0].allocated.peak, 9u);
  EXPECT_FALSE(parse(R"({"allocated_bytes.all.peak": 7, "max_split_size": -2})"));
}

TEST(MemoryStatsJson, RejectsAFraction) {
  auto s = parse(R"({"reserved_bytes.all.peak": 1.5})");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "\"reserved_bytes.all.peak\" must be a whole number of bytes or a count, got a fraction");
}

TEST(MemoryStatsJson, RejectsAnObjectWithoutStatsKeys) {
  auto s = parse(R"({"loss": 2.5})");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "stats.json: no memory_stats keys found (expected keys such as \"allocated_bytes.all.peak\")");
}

TEST(MemoryStatsJson, RejectsAListElementThatIsNotAnObject) {
  auto s = parse(R"([{"num_ooms": 0}, 7])");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "element 1 of the list: expected an object of memory_stats keys");
}

TEST(MemoryStatsJson, RejectsInvalidJsonWithItsPosition) {
  auto s = parse("{\n  \"num_ooms\": 0,\n  \"segment.all.peak\" 4\n}\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().line, 3);
  EXPECT_EQ(s.error().message.rfind("invalid JSON: syntax error while parsing object separator", 0), 0u)
      << s.error().message;
}

TEST(MemoryStatsJson, ReadsJsonCutShortUpToTheCut) {
  warnings w;
  auto s = parse_memory_stats_json("{\"num_ooms\": 0,\n \"allocated_bytes.all.peak\": 2000,\n \"segment.all.peak\": ",
                                   "stats.json", w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& t = (*s)[0];
  EXPECT_EQ(t.num_ooms, 0u);
  EXPECT_EQ(t.allocated.peak, 2000u);
  EXPECT_FALSE(t.reserved.peak);  // unknown, not 0
  EXPECT_EQ(t.cut_at_line, 3);
  ASSERT_EQ(t.missing.size(), 6u);
  EXPECT_EQ(t.missing[0], "allocated_bytes.all.current");
  EXPECT_EQ(t.missing[3], "reserved_bytes.all.current");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 3);
  EXPECT_TRUE(w[0].message.starts_with("memory_stats JSON is cut off here: the figures before the cut are read, "
                                       "any after it are not in the paste (unknown, not 0); missing "
                                       "allocated_bytes.all.current, active_bytes.all.current,"))
      << w[0].message;
  EXPECT_NE(w[0].message.find("without reserved the cache (reserved - allocated) and fragmentation cannot be "
                              "computed"),
            std::string::npos);
}

TEST(MemoryStatsJson, DropsANumberTheCutMayHaveShortened) {
  warnings w;
  auto s = parse_memory_stats_json(R"({"allocated_bytes.all.peak": 2000, "reserved_bytes.all.peak": 30)",
                                   "stats.json", w);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)[0].allocated.peak, 2000u);
  EXPECT_FALSE((*s)[0].reserved.peak);  // "30" may be the start of "30064771072"
  EXPECT_EQ((*s)[0].raw.count("reserved_bytes.all.peak"), 0u);
}

TEST(MemoryStatsJson, KeepsTheWholeEntriesOfAListCutShort) {
  warnings w;
  const std::string whole = R"({"allocated_bytes.all.current": 1, "allocated_bytes.all.peak": 5,
    "active_bytes.all.current": 1, "active_bytes.all.peak": 5, "reserved_bytes.all.current": 9,
    "reserved_bytes.all.peak": 9, "inactive_split_bytes.all.current": 0})";
  auto s = parse_memory_stats_json("[" + whole + ", {\"allocated_bytes.all.peak\": 7, \"active", "stats.json", w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 2u);
  // The first entry is whole and lacks nothing, but it was read from a text cut short: the
  // result says so on every entry, where the cut is.
  EXPECT_TRUE((*s)[0].missing.empty());
  EXPECT_TRUE((*s)[0].cut);
  EXPECT_EQ((*s)[0].cut_at_line, 3);
  EXPECT_TRUE((*s)[1].cut);
  EXPECT_EQ((*s)[1].rank, 1);
  EXPECT_EQ((*s)[1].allocated.peak, 7u);
  EXPECT_FALSE((*s)[1].reserved.peak);
  EXPECT_EQ((*s)[1].missing.size(), 6u);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].message.find("missing rank 1: allocated_bytes.all.current"), std::string::npos) << w[0].message;
}

// Every cut is in the result, also one that loses no figure: a list cut between its entries, a
// flat object cut after its last whole figure. A whole file is never cut.
TEST(MemoryStatsJson, FlagsEveryCutInTheResult) {
  warnings w;
  const std::string entry = R"({"allocated_bytes.all.peak": 5, "reserved_bytes.all.peak": 9})";
  for (const std::string& text : {"[" + entry + ", ", "[" + entry, std::string(R"({"allocated_bytes.all.peak": 5,)")}) {
    w.clear();
    auto s = parse_memory_stats_json(text, "stats.json", w);
    ASSERT_TRUE(s) << text << ": " << s.error().to_string();
    ASSERT_FALSE(s->empty()) << text;
    for (const auto& e : *s) {
      EXPECT_TRUE(e.cut) << text;
      EXPECT_EQ(e.cut_at_line, 1) << text;
    }
  }
  w.clear();
  auto whole = parse_memory_stats_json("[" + entry + "]", "stats.json", w);
  ASSERT_TRUE(whole);
  EXPECT_FALSE((*whole)[0].cut);
  EXPECT_FALSE((*whole)[0].cut_at_line);
}

// What print(torch.cuda.memory_stats()) shows is Python's repr, not JSON: an OrderedDict of
// pairs (Python <= 3.11: "OrderedDict([('k', 1), ...])", 3.12: "OrderedDict({'k': 1, ...})") or
// a dict with single-quoted keys. The files are Python's own repr of the JSON test files, and
// read to the same figures.
TEST(MemoryStatsJson, ReadsPythonsReprOfMemoryStatsAsItsJson) {
  const auto same_as = [](const std::string& repr_file, const std::string& json_file) {
    auto from_repr = parse(data(repr_file), "runs/stats_rank3.json");
    auto from_json = parse(data(json_file), "runs/stats_rank3.json");
    ASSERT_TRUE(from_repr) << from_repr.error().to_string();
    ASSERT_TRUE(from_json) << from_json.error().to_string();
    ASSERT_EQ(from_repr->size(), from_json->size());
    EXPECT_EQ((*from_repr)[0].raw, (*from_json)[0].raw);
    EXPECT_EQ((*from_repr)[0].rank, (*from_json)[0].rank);
    EXPECT_EQ((*from_repr)[0].reserved.peak, (*from_json)[0].reserved.peak);
    EXPECT_FALSE((*from_repr)[0].cut);
  };
  same_as("memory_stats_rank3_ordered_dict.txt", "stats_rank3.json");
  same_as("memory_stats_nested_dict.txt", "memory_stats_nested.json");
  for (const char* text : {"OrderedDict({'allocated_bytes.all.peak': 5, 'reserved_bytes.all.peak': 9})",
                           "{'allocated_bytes.all.peak': 5, 'reserved_bytes.all.peak': 9}",
                           "[OrderedDict([('allocated_bytes.all.peak', 5), ('reserved_bytes.all.peak', 9)])]"}) {
    auto s = parse(text);
    ASSERT_TRUE(s) << text << ": " << s.error().to_string();
    EXPECT_EQ((*s)[0].allocated.peak, 5u) << text;
    EXPECT_EQ((*s)[0].reserved.peak, 9u) << text;
  }
}

// pprint spreads the repr over lines; a paste cut short is read up to the cut and says so; a
// value memory_stats never holds is an error at its line, quoting the pasted line.
TEST(MemoryStatsJson, AReprKeepsItsLinesItsCutAndItsErrors) {
  warnings w;
  auto s = parse_memory_stats_json("OrderedDict([('allocated_bytes.all.peak', 5),\n"
                                   "             ('reserved_bytes.all.peak', 9),\n"
                                   "             ('active_bytes.all.peak', 7",
                                   "stats.txt", w);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)[0].reserved.peak, 9u);
  EXPECT_FALSE((*s)[0].active.peak);  // "7" may be the start of a longer number
  EXPECT_TRUE((*s)[0].cut);
  EXPECT_EQ((*s)[0].cut_at_line, 3);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 3);
  EXPECT_EQ(w[0].context, "             ('active_bytes.all.peak', 7");
  auto bad = parse("{'allocated_bytes.all.peak': 5,\n 'reserved_bytes.all.peak': tensor(9)}", "stats.txt");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 2);
  EXPECT_NE(bad.error().message.find("Python value 'tensor'"), std::string::npos) << bad.error().message;
  auto not_whole = parse("{'allocated_bytes.all.peak': 'lots'}", "stats.txt");
  ASSERT_FALSE(not_whole);
  EXPECT_EQ(not_whole.error().context, "{'allocated_bytes.all.peak': 'lots'}");
  EXPECT_FALSE(parse("OrderedDict([('allocated_bytes.all.peak', 5)))"));  // unbalanced
}

TEST(MemoryStatsJson, DropsAnEntryTheCutLeftEmpty) {
  warnings w;
  auto s = parse_memory_stats_json(R"({"0": {"reserved_bytes.all.peak": 9}, "1": {)", "stats.json", w);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].reserved.peak, 9u);
}

TEST(MemoryStatsJson, RejectsJsonCutBeforeAnyFigure) {
  auto s = parse("{\"allocated_bytes.all.pe");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "no memory_stats keys found (expected keys such as \"allocated_bytes.all.peak\") (the text is cut off "
            "at line 1)");
}

TEST(MemoryStatsJson, AWrongValueBeforeTheCutStaysAnError) {
  auto s = parse(R"({"allocated_bytes.all.peak": "2000", "reserved_bytes.all.peak": 30)");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "\"allocated_bytes.all.peak\" must be a whole number of bytes or a count, got a string");
}

TEST(MemoryStatsJson, RejectsNestingTooDeep) {
  auto s = parse(std::string(40, '[') + std::string(40, ']'));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "JSON nested deeper than 32 levels");
  EXPECT_EQ(s.error().column, 33);
}

TEST(RankFromFileName, ReadsTheUsualPatterns) {
  EXPECT_EQ(rank_from_file_name("stats_rank3.json"), 3);
  EXPECT_EQ(rank_from_file_name("/tmp/run/rank-12.json"), 12);
  EXPECT_EQ(rank_from_file_name("Rank_4_stats.json"), 4);
  EXPECT_EQ(rank_from_file_name("memory_stats.3.json"), 3);
  EXPECT_EQ(rank_from_file_name("out/stats-7.json"), 7);
  EXPECT_FALSE(rank_from_file_name("frank3.json"));
  EXPECT_FALSE(rank_from_file_name("stats.json"));
  EXPECT_FALSE(rank_from_file_name("rank3/stats.json"));
}

// A dump torch 2.11.0+cu130 wrote on an H100 (bench/groundtruth/collect_files.py): 122 flat keys,
// "max_split_size": -1 (unset) among them. What the reader keeps equals the file's own values.
TEST(MemoryStatsJson, ReadsARealTorch211DumpAsTorchWroteIt) {
  const std::string text = data("../realworld/memory_stats/vramscope_h100_torch211.json");
  const auto file = nlohmann::json::parse(text);
  ASSERT_EQ(file.at("max_split_size").get<std::int64_t>(), -1);
  auto s = parse(text, "memory_stats.json");
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->size(), 1u);
  const torch_stats& r = (*s)[0];
  const auto at = [&](const char* key) { return file.at(key).get<std::uint64_t>(); };
  EXPECT_EQ(r.allocated.peak, at("allocated_bytes.all.peak"));
  EXPECT_EQ(r.allocated.current, at("allocated_bytes.all.current"));
  EXPECT_EQ(r.active.peak, at("active_bytes.all.peak"));
  EXPECT_EQ(r.reserved.peak, at("reserved_bytes.all.peak"));
  EXPECT_EQ(r.reserved.current, at("reserved_bytes.all.current"));
  EXPECT_EQ(r.num_alloc_retries, at("num_alloc_retries"));
  EXPECT_EQ(r.num_ooms, at("num_ooms"));
  EXPECT_GT(r.allocated.peak, 6 * GiB);  // the workload's peak: 6945 MiB in its memory_summary()
}

}  // namespace
}  // namespace vramscope::observe
