// The plan's reports read ranks kept as ranges (predict_options::rank_ranges) as they read ranks
// kept one by one: text, JSON, timeline CSV and HTML are byte-identical either way, a single
// rank (plan --rank) too, and the JSON's classes and ranges give back every rank and GPU by
// the rule docs/formats/plan-json.md states.
#include <vramscope/predict/rank_runs.hpp>
#include <vramscope/report/plan_report.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>

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
    int next = 0;
    for (const auto& range : json["ranges"]) {
      const int first = range["first"].get<int>(), count = range["count"].get<int>();
      ASSERT_EQ(first, next);
      ASSERT_GT(count, 0);
      const auto& c = json["classes"].at(range["class"].get<std::size_t>());
      for (int k = first; k < first + count; ++k) {
        EXPECT_EQ(moved_rank(c["rank"], k), json["ranks"][static_cast<std::size_t>(k)]);
        EXPECT_EQ(moved_gpu(c["gpu"], k), json["gpus"][static_cast<std::size_t>(k)]);
      }
      next += count;
    }
    EXPECT_EQ(next, world);
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
  EXPECT_EQ(json["ranges"].size(), 2u + 2 * 999);
  for (const auto& range : json["ranges"]) {
    const auto& c = json["classes"][range["class"].get<std::size_t>()];
    const int first = range["first"].get<int>(), count = range["count"].get<int>();
    for (int k = first; k < first + count; ++k) {
      const auto& r = full->ranks[static_cast<std::size_t>(k)];
      const auto moved = moved_rank(c["rank"], k);
      ASSERT_EQ(moved["rank"].get<int>(), r.rank);
      ASSERT_EQ(moved["gpu"].get<int>(), r.gpu);
      ASSERT_EQ(moved["peak"]["device"].get<bytes>(), r.peak.device);
      ASSERT_EQ(moved_gpu(c["gpu"], k), gpu_json_for_test(full->gpus[static_cast<std::size_t>(k)]));
    }
  }
  EXPECT_TRUE(render_plan_text(*full) == render_plan_text(*p));
}

}  // namespace
}  // namespace vramscope::report
