// The plan's reports read ranks kept as ranges (predict_options::rank_ranges) as they read ranks
// kept one by one: text, JSON, timeline CSV and HTML are byte-identical either way, a single
// rank (plan --rank) too, and the JSON's classes and ranges give back every rank and GPU by
// the rule docs/formats/plan-json.md states.
#include <vramscope/predict/rank_runs.hpp>
#include <vramscope/report/plan_report.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "report/node_fold.hpp"
#include "support/rank_layouts.hpp"
#include "support/tiny_model.hpp"

namespace vramscope::report {
namespace {

using predict::predict_options;

// docs/formats/plan-json.md: rank k of a range has its class's rank with "rank" k and "gpu"
// moved as far; its GPU is the class's GPU with "index" and each process's "rank" moved as
// far, and the number of a "what" that begins "rank N" with them.
nlohmann::json moved_rank(nlohmann::json r, int rank) {
  const int shift = rank - r["rank"].get<int>();
  r["rank"] = rank;
  r["gpu"] = r["gpu"].get<int>() + shift;
  return r;
}

nlohmann::json moved_gpu(nlohmann::json g, int index) {
  const int shift = index - g["index"].get<int>();
  g["index"] = index;
  for (auto& proc : g["processes"]) {
    const int rank = proc["rank"].get<int>();
    if (rank < 0) continue;
    const std::string old = "rank " + std::to_string(rank);
    auto what = proc["what"].get<std::string>();
    if (what.rfind(old, 0) == 0 && (what.size() == old.size() || what[old.size()] == ':'))
      what = "rank " + std::to_string(rank + shift) + what.substr(old.size());
    proc["what"] = what;
    proc["rank"] = rank + shift;
  }
  return g;
}

// Calls f(k) for every rank a JSON range holds (docs/formats/plan-json.md): first to
// first + count - 1, or with "period" and "times" those of `times` nodes in a row.
template <typename F>
void for_each_rank_in(const nlohmann::json& range, F&& f) {
  const int first = range["first"].get<int>(), count = range["count"].get<int>();
  const int period = range.contains("period") ? range["period"].get<int>() : 0;
  const int times = range.contains("times") ? range["times"].get<int>() : 1;
  ASSERT_EQ(range.contains("period"), range.contains("times"));
  ASSERT_GT(count, 0);
  if (period > 0) {
    ASSERT_LE(count, period);
    ASSERT_GE(times, 3);  // runs on one or two nodes are written one by one
  }
  for (int j = 0; j < times; ++j)
    for (int i = 0; i < count; ++i) f(first + j * period + i);
}

// Every rank the JSON's ranges hold, once each, is its rank and GPU of `every` (listed).
void expect_ranges_give_every_rank(const nlohmann::json& json, const nlohmann::json& every,
                                   int world) {
  std::vector<int> seen(static_cast<std::size_t>(world), 0);
  int last_first = -1;
  for (const auto& range : json["ranges"]) {
    ASSERT_GT(range["first"].get<int>(), last_first);  // ordered by first
    last_first = range["first"].get<int>();
    const auto& c = json["classes"].at(range["class"].get<std::size_t>());
    for_each_rank_in(range, [&](int k) {
      ASSERT_LT(k, world);
      ++seen[static_cast<std::size_t>(k)];
      EXPECT_EQ(moved_rank(c["rank"], k), every["ranks"][static_cast<std::size_t>(k)]);
      EXPECT_EQ(moved_gpu(c["gpu"], k), every["gpus"][static_cast<std::size_t>(k)]);
    });
  }
  for (int k = 0; k < world; ++k) EXPECT_EQ(seen[static_cast<std::size_t>(k)], 1) << "rank " << k;
}

nlohmann::json gpu_json_for_test(const predict::gpu_prediction& g) {
  nlohmann::json procs = nlohmann::json::array();
  for (const auto& proc : g.processes)
    procs.push_back({{"rank", proc.rank}, {"what", proc.what}, {"device", proc.device}});
  return {{"index", g.index}, {"capacity", g.capacity}, {"device", g.device}, {"processes", procs}};
}

TEST(PlanRanges, EveryReportIsTheSameFromRangesAsFromEveryRank) {
  int plans = 0, merged = 0;
  testing::for_each_rank_layout([&](job::job_spec& j) {
    predict_options every;
    every.timeline = true;
    every.timeline_points = 50;
    auto ranges_options = every;
    ranges_options.rank_ranges = true;
    auto full = predict::plan(testing::tiny_llama(), j, every);
    ASSERT_TRUE(full) << full.error().to_string();
    auto ranges = predict::plan(testing::tiny_llama(), j, ranges_options);
    ASSERT_TRUE(ranges) << ranges.error().to_string();
    predict::fill_whole_step_need(testing::tiny_llama(), j, *full);
    predict::fill_whole_step_need(testing::tiny_llama(), j, *ranges);
    ASSERT_TRUE(ranges->ranks.empty());
    ++plans;
    EXPECT_EQ(render_plan_text(*full), render_plan_text(*ranges));
    const auto json = plan_json(*full);
    EXPECT_EQ(json.dump(2), plan_json(*ranges).dump(2));
    EXPECT_EQ(timeline_csv(*full), timeline_csv(*ranges));
    EXPECT_EQ(plan_html(*full), plan_html(*ranges));
    const int world = j.world_size();
    EXPECT_EQ(predict::rank_count(*ranges), world);

    // The JSON's classes and ranges stand for every rank and GPU.
    ASSERT_TRUE(json.contains("classes") && json.contains("ranges"));
    expect_ranges_give_every_rank(json, json, world);
    merged += json["classes"].size() < ranges->classes.size() ? 1 : 0;

    // plan --rank: one rank, its own numbers, the GPUs whole.
    const int one = world - 1;
    auto narrowed_full = *full;
    std::erase_if(narrowed_full.ranks, [&](const auto& r) { return r.rank != one; });
    auto narrowed = *ranges;
    const auto r = predict::rank_of(narrowed, one);
    ASSERT_TRUE(r.has_value());
    narrowed.ranks.push_back(*r);
    EXPECT_EQ(render_plan_text(narrowed_full), render_plan_text(narrowed));
    EXPECT_EQ(plan_json(narrowed_full).dump(2), plan_json(narrowed).dump(2));
    for (int k : {0, one}) {
      const auto g = predict::gpu_of(*ranges, k);
      ASSERT_TRUE(g.has_value());
      EXPECT_EQ(gpu_json_for_test(*g),
                gpu_json_for_test(full->gpus[static_cast<std::size_t>(k)]));
    }
    EXPECT_FALSE(predict::rank_of(*ranges, world).has_value());
    EXPECT_FALSE(predict::gpu_of(*ranges, world).has_value());
  });
  EXPECT_EQ(plans, 3 * 4 * 2 * static_cast<int>(std::size(testing::rank_variants)));
  EXPECT_GT(merged, 0);  // classes alike but for their numbers are one in the JSON
}

// A share's "rank N" is renumbered only where N is the share's own rank, as a whole number.
TEST(PlanRanges, RenumberingMovesTheRanksOfAGpusShares) {
  predict::gpu_prediction g;
  g.index = 8;
  g.processes = {{8, "rank 8", 10},
                 {9, "rank 9: CUDA context created before set_device", 20},
                 {9, "rank 90", 30},
                 {-1, "JAX pool", 40}};
  const auto moved = predict::renumbered(g, 16);
  EXPECT_EQ(moved.index, 16);
  EXPECT_EQ(moved.processes[0].rank, 16);
  EXPECT_EQ(moved.processes[0].what, "rank 16");
  EXPECT_EQ(moved.processes[1].rank, 17);
  EXPECT_EQ(moved.processes[1].what, "rank 17: CUDA context created before set_device");
  EXPECT_EQ(moved.processes[2].rank, 17);
  EXPECT_EQ(moved.processes[2].what, "rank 90");
  EXPECT_EQ(moved.processes[3].rank, -1);
  EXPECT_EQ(moved.processes[3].what, "JAX pool");
  predict::rank_prediction r;
  r.rank = 8;
  r.gpu = 8;
  r.like_rank = 1;
  const auto m = predict::renumbered(r, 20);
  EXPECT_EQ(std::tie(m.rank, m.gpu, m.like_rank), std::make_tuple(20, 20, 1));
}

// Past plan_json_listed_ranks the JSON keeps classes and ranges only, and they give every rank
// and GPU of the plan kept one by one; the text report is the same either way.
TEST(PlanRanges, ALargeJobsJsonHasRangesWithoutEveryRank) {
  auto j = testing::rank_layout_job(job::strategy::ddp, 8, 1000);
  j.init.set_device_first = false;  // GPU 0 of each node differs from its others
  predict_options only;
  only.rank_ranges = true;
  const auto p = predict::plan(testing::tiny_llama(), j, only);
  ASSERT_TRUE(p) << p.error().to_string();
  const auto full = predict::plan(testing::tiny_llama(), j);
  ASSERT_TRUE(full) << full.error().to_string();
  ASSERT_GT(j.world_size(), plan_json_listed_ranks);
  const auto json = plan_json(*p);
  EXPECT_FALSE(json.contains("ranks"));
  EXPECT_FALSE(json.contains("gpus"));
  auto every = plan_json(*full);  // a plan kept one by one lists them whatever its size
  EXPECT_EQ(every["ranks"].size(), 8000u);
  every.erase("ranks");
  every.erase("gpus");
  EXPECT_TRUE(json == every);  // not EXPECT_EQ: a difference of two long texts takes minutes
  // Rank 0; ranks 1-7 with the other GPUs of later nodes (rank 1, simulated, differs from the
  // others only in its curve, which the JSON does not hold); GPU 0 of later nodes.
  EXPECT_EQ(json["classes"].size(), 3u);
  // Node 0's two ranges, and GPU 0 and the others of nodes 1-999 folded (a period of 8).
  ASSERT_EQ(json["ranges"].size(), 4u);
  EXPECT_EQ(json["ranges"][2], (nlohmann::json{{"first", 8}, {"count", 1}, {"class", 2},
                                               {"period", 8}, {"times", 999}}));
  EXPECT_EQ(json["ranges"][3], (nlohmann::json{{"first", 9}, {"count", 7}, {"class", 1},
                                               {"period", 8}, {"times", 999}}));
  std::vector<int> seen(8000, 0);
  for (const auto& range : json["ranges"]) {
    const auto& c = json["classes"][range["class"].get<std::size_t>()];
    for_each_rank_in(range, [&](int k) {
      ++seen[static_cast<std::size_t>(k)];
      const auto& r = full->ranks[static_cast<std::size_t>(k)];
      const auto moved = moved_rank(c["rank"], k);
      ASSERT_EQ(moved["rank"].get<int>(), r.rank);
      ASSERT_EQ(moved["gpu"].get<int>(), r.gpu);
      ASSERT_EQ(moved["peak"]["device"].get<bytes>(), r.peak.device);
      ASSERT_EQ(moved_gpu(c["gpu"], k), gpu_json_for_test(full->gpus[static_cast<std::size_t>(k)]));
    });
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 8000);
  EXPECT_TRUE(render_plan_text(*full) == render_plan_text(*p));
}

// The ranks a text label names: "rank 3", "ranks 0-7", "local rank 0 of nodes 1-4", "local
// ranks 1-7 of nodes 1-4", "GPU 3", "GPUs 1-7 of nodes 1-4", after any "stage 1: ".
std::vector<int> ranks_of_label(std::string label, int per_node) {
  static const std::regex stage(R"(^stages? [0-9-]+: )");
  label = std::regex_replace(label, stage, "");
  static const std::regex form(
      R"(^(?:local )?(?:ranks?|GPUs?) ([0-9]+)(?:-([0-9]+))?(?: of nodes ([0-9]+)-([0-9]+))?$)");
  std::smatch m;
  if (!std::regex_match(label, m, form)) {
    ADD_FAILURE() << "not a label: '" << label << "'";
    return {};
  }
  const int a = std::stoi(m[1]), b = m[2].matched ? std::stoi(m[2]) : a;
  const bool nodes = m[3].matched;
  const int x = nodes ? std::stoi(m[3]) : 0, y = nodes ? std::stoi(m[4]) : 0;
  std::vector<int> out;
  for (int node = x; node <= y; ++node)
    for (int k = a; k <= b; ++k) out.push_back(nodes ? node * per_node + k : k);
  return out;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Every rank the text's rank table names, once each, has the figures of its line, and every
// GPU the GPU table names has the device figure of its line.
void expect_text_tables_hold(const std::string& text, const predict::prediction& full) {
  const int per_node = full.job.hardware.gpus_per_node;
  const int world = full.job.world_size();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && line.rfind("per ", 0) != 0) {}
  const auto width = line.find("allocated") - 3;
  std::vector<int> seen(static_cast<std::size_t>(world), 0);
  while (std::getline(in, line) && !line.empty()) {
    const auto ranks = ranks_of_label(trimmed(line.substr(0, width)), per_node);
    std::vector<std::string> figures;
    for (std::size_t c = 0; c < 4; ++c)
      figures.push_back(trimmed(line.substr(width + 1 + 12 * c, 11)));
    for (int k : ranks) {
      ASSERT_LT(k, world) << line;
      ++seen[static_cast<std::size_t>(k)];
      const auto& r = full.ranks[static_cast<std::size_t>(k)];
      EXPECT_EQ(figures, (std::vector<std::string>{
                             format_bytes(r.peak.allocated), format_bytes(r.peak.active),
                             format_bytes(r.peak.reserved), format_bytes(r.peak.device)}))
          << "rank " << k << " in '" << line << "'";
    }
  }
  for (int k = 0; k < world; ++k) EXPECT_EQ(seen[static_cast<std::size_t>(k)], 1) << "rank " << k;
  while (std::getline(in, line) && line.rfind("per GPU", 0) != 0) {}
  static const std::regex gpu_line(R"(^  (GPUs? .*?) +([0-9.]+ [A-Za-z]+) of )");
  std::fill(seen.begin(), seen.end(), 0);
  while (std::getline(in, line) && !line.empty()) {
    std::smatch m;
    if (!std::regex_search(line, m, gpu_line)) continue;  // a process's line
    for (int k : ranks_of_label(m[1], per_node)) {
      ASSERT_LT(k, world) << line;
      ++seen[static_cast<std::size_t>(k)];
      EXPECT_EQ(m[2].str(), format_bytes(full.gpus[static_cast<std::size_t>(k)].device))
          << "GPU " << k << " in '" << line << "'";
    }
  }
  for (int k = 0; k < world; ++k) EXPECT_EQ(seen[static_cast<std::size_t>(k)], 1) << "GPU " << k;
}

// Where GPU 0 of each node holds other ranks' shares, a node's lines and ranges repeat on every
// node: from three nodes alike on they are folded, and every report is still the same from
// ranges as from every rank, names every rank once with its own figures, and the JSON's folded
// ranges give back every rank and GPU.
TEST(PlanRanges, NodesAlikeAreFoldedInEveryReport) {
  int plans = 0, folded_text = 0, folded_json = 0;
  for (auto s : {job::strategy::ddp, job::strategy::fsdp2, job::strategy::megatron})
    for (int per_node : {1, 2, 4, 8})
      for (int nodes : {2, 3, 4, 6, 11})
        for (const auto& v : testing::rank_variants) {
          auto j = testing::rank_layout_job(s, per_node, nodes);
          v.apply(j);
          SCOPED_TRACE(::testing::Message() << v.name << ", " << per_node << " x " << nodes
                                            << ", strategy " << static_cast<int>(s));
          predict_options every;
          every.timeline = true;
          every.timeline_points = 20;
          auto ranges_options = every;
          ranges_options.rank_ranges = true;
          const auto full = predict::plan(testing::tiny_llama(), j, every);
          ASSERT_TRUE(full) << full.error().to_string();
          const auto ranges = predict::plan(testing::tiny_llama(), j, ranges_options);
          ASSERT_TRUE(ranges) << ranges.error().to_string();
          ++plans;
          const auto text = render_plan_text(*full);
          EXPECT_EQ(text, render_plan_text(*ranges));
          expect_text_tables_hold(text, *full);
          const auto json = plan_json(*full);
          EXPECT_EQ(json.dump(2), plan_json(*ranges).dump(2));
          expect_ranges_give_every_rank(json, json, j.world_size());
          EXPECT_EQ(timeline_csv(*full), timeline_csv(*ranges));
          EXPECT_EQ(plan_html(*full), plan_html(*ranges));
          folded_text += text.find(" of nodes ") != std::string::npos ? 1 : 0;
          folded_json += json.dump().find("\"period\"") != std::string::npos ? 1 : 0;
          if (nodes < 3) {  // one or two nodes: listed one by one, as before
            EXPECT_EQ(text.find(" of nodes "), std::string::npos);
            EXPECT_EQ(json.dump().find("\"period\""), std::string::npos);
          }
          // plan --rank N on every node's GPU 0 and last GPU: that rank alone, its own numbers.
          for (int node = 0; node < nodes; ++node)
            for (int k : {node * per_node, node * per_node + per_node - 1}) {
              auto narrowed_full = *full;
              std::erase_if(narrowed_full.ranks, [&](const auto& r) { return r.rank != k; });
              auto narrowed = *ranges;
              const auto r = predict::rank_of(narrowed, k);
              ASSERT_TRUE(r.has_value());
              narrowed.ranks.push_back(*r);
              EXPECT_EQ(render_plan_text(narrowed_full), render_plan_text(narrowed));
              EXPECT_EQ(plan_json(narrowed_full).dump(), plan_json(narrowed).dump());
            }
        }
  EXPECT_EQ(plans, 3 * 4 * 5 * static_cast<int>(std::size(testing::rank_variants)));
  EXPECT_GT(folded_text, 0);
  EXPECT_GT(folded_json, 0);
}

// fold_by_node on rows of its own: a block in one node repeated on three nodes or more is
// folded, on two it is not; a row that differs, a shift that is not a node's or a stage's end
// stops a fold where it is.
TEST(PlanRanges, FoldByNodeFoldsOnlyBlocksRepeatedOnThreeNodes) {
  struct row {
    int first, last;
    char kind;
  };
  const auto same = [](const row& a, const row& b) { return a.kind == b.kind; };
  const auto anywhere = [](int, int) { return true; };
  const auto fold = [&](std::vector<row> rows, auto together) {
    std::string out;
    for (const auto& [r, nodes] : fold_by_node(rows, 4, same, together))
      out += fmt::format("{}-{}{}x{} ", r.first, r.last, r.kind, nodes);
    return out;
  };
  // Rank 0, then GPU 0 (a) and the others (b) of nodes 0-3.
  const std::vector<row> four = {{0, 0, 'a'}, {1, 3, 'b'}, {4, 4, 'a'}, {5, 7, 'b'},
                                 {8, 8, 'a'}, {9, 11, 'b'}, {12, 12, 'a'}, {13, 15, 'b'}};
  EXPECT_EQ(fold(four, anywhere), "0-0ax4 1-3bx4 ");
  EXPECT_EQ(fold({four.begin(), four.begin() + 4}, anywhere), "0-0ax1 1-3bx1 4-4ax1 5-7bx1 ");
  auto odd = four;
  odd[4].kind = 'c';  // node 2's GPU 0 differs: nodes 0-1 alone are not folded
  EXPECT_EQ(fold(odd, anywhere),
            "0-0ax1 1-3bx1 4-4ax1 5-7bx1 8-8cx1 9-11bx1 12-12ax1 13-15bx1 ");
  auto first_apart = four;
  first_apart[0].kind = 'r';  // rank 0 apart: nodes 1-3 folded
  EXPECT_EQ(fold(first_apart, anywhere), "0-0rx1 1-3bx1 4-4ax3 5-7bx3 ");
  // Two stages of two nodes each: no fold crosses the stage's end.
  EXPECT_EQ(fold(four, [](int first, int last) { return first / 8 == last / 8; }),
            "0-0ax1 1-3bx1 4-4ax1 5-7bx1 8-8ax1 9-11bx1 12-12ax1 13-15bx1 ");
  // Rows with repeats (row_repeat) fold as the rows they stand for: node 1's two rows stand for
  // nodes 1-6, node 7's follow; with rank 0 apart or alike, in one stage or two of 4 nodes.
  for (char head : {'a', 'r'})
    for (int stage : {64, 16}) {
      const auto in_stage = [stage](int first, int last) {
        return first / stage == last / stage;
      };
      std::vector<row> base = {{0, 0, head}, {1, 3, 'b'}, {4, 4, 'a'}, {5, 7, 'b'},
                               {28, 28, 'a'}, {29, 31, 'b'}};
      std::vector<row> expanded(base.begin(), base.begin() + 4);
      for (int node = 2; node <= 7; ++node) {
        expanded.push_back({node * 4, node * 4, 'a'});
        expanded.push_back({node * 4 + 1, node * 4 + 3, 'b'});
      }
      const std::vector<row_repeat> repeats = {{2, 2, 5}};
      std::string folded, plain = fold(expanded, in_stage);
      for (const auto& [r, nodes] : fold_by_node(base, repeats, 4, same, in_stage))
        folded += fmt::format("{}-{}{}x{} ", r.first, r.last, r.kind, nodes);
      EXPECT_EQ(folded, plain) << head << " " << stage;
    }
  EXPECT_EQ(fold({{0, 0, 'a'}, {1, 3, 'b'}, {4, 4, 'a'}, {5, 7, 'b'}, {8, 8, 'a'}, {9, 11, 'b'},
                  {12, 12, 'a'}, {13, 15, 'b'}, {16, 16, 'a'}, {17, 19, 'b'}, {20, 20, 'a'},
                  {21, 23, 'b'}, {24, 24, 'a'}, {25, 27, 'b'}, {28, 28, 'a'}, {29, 31, 'b'}},
                 [](int first, int last) { return first / 16 == last / 16; }),
            "0-0ax4 1-3bx4 16-16ax4 17-19bx4 ");
  // A run across a node's end is not a node's block.
  EXPECT_EQ(fold({{0, 5, 'a'}, {6, 11, 'a'}, {12, 17, 'a'}}, anywhere),
            "0-5ax1 6-11ax1 12-17ax1 ");
}

}  // namespace
}  // namespace vramscope::report
