// Ranks as ranges (prediction::classes, prediction::ranges): every rank of a plan, and the GPU
// it runs on, has its class's figures but for its own numbers; a plan asked for ranges only
// gives the same classes, ranges and verdict as a full one.
#include <vramscope/predict/prediction.hpp>
#include <vramscope/predict/rank_runs.hpp>

#include <gtest/gtest.h>

#include <string>

#include "support/rank_layouts.hpp"
#include "support/tiny_model.hpp"

namespace vramscope::predict {
namespace {

// A process's description without its leading "rank N", which names its own rank.
std::string without_rank(const process_share& s) {
  const std::string prefix = "rank " + std::to_string(s.rank);
  return s.what.rfind(prefix, 0) == 0 ? s.what.substr(prefix.size()) : s.what;
}

void expect_same_levels(const levels& a, const levels& b) {
  EXPECT_EQ(a.allocated, b.allocated);
  EXPECT_EQ(a.active, b.active);
  EXPECT_EQ(a.reserved, b.reserved);
  EXPECT_EQ(a.device, b.device);
}

// Every figure of `r` is the class's `c`; the numbers are the rank's own.
void expect_like(const rank_prediction& r, const rank_prediction& c, int rank) {
  EXPECT_EQ(r.rank, rank);
  EXPECT_EQ(r.gpu, rank);
  EXPECT_EQ(r.like_rank, c.like_rank);
  expect_same_levels(r.peak, c.peak);
  EXPECT_EQ(r.peak_phase, c.peak_phase);
  EXPECT_EQ(r.reserved_peak_phase, c.reserved_peak_phase);
  EXPECT_EQ(r.init_phase_peak, c.init_phase_peak);
  EXPECT_EQ(r.init_allocated, c.init_allocated);
  EXPECT_EQ(r.init_reserved, c.init_reserved);
  const auto& a = r.parts;
  const auto& b = c.parts;
  EXPECT_EQ(
      std::tie(a.parameters, a.gradients, a.optimizer, a.activations, a.communication, a.temporary,
               a.fragmentation, a.cuda_context, a.nccl, a.other_processes, a.managed),
      std::tie(b.parameters, b.gradients, b.optimizer, b.activations, b.communication, b.temporary,
               b.fragmentation, b.cuda_context, b.nccl, b.other_processes, b.managed));
  EXPECT_EQ(std::tie(r.context, r.nccl, r.managed, r.managed_resident),
            std::tie(c.context, c.nccl, c.managed, c.managed_resident));
  ASSERT_EQ(r.oom.has_value(), c.oom.has_value());
  if (r.oom) {
    EXPECT_EQ(r.oom->message, c.oom->message);
    EXPECT_EQ(r.oom->requested, c.oom->requested);
  }
  EXPECT_EQ(r.oom_phase, c.oom_phase);
  ASSERT_EQ(r.phases.size(), c.phases.size());
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    EXPECT_EQ(r.phases[i].name, c.phases[i].name);
    expect_same_levels(r.phases[i].peak, c.phases[i].peak);
    EXPECT_EQ(std::tie(r.phases[i].reached, r.phases[i].oom, r.phases[i].fits),
              std::tie(c.phases[i].reached, c.phases[i].oom, c.phases[i].fits));
  }
  EXPECT_EQ(r.timeline, c.timeline);
}

void expect_like(const gpu_prediction& g, const gpu_prediction& c, int index) {
  EXPECT_EQ(g.index, index);
  EXPECT_EQ(g.capacity, c.capacity);
  EXPECT_EQ(g.device, c.device);
  ASSERT_EQ(g.processes.size(), c.processes.size());
  for (std::size_t i = 0; i < g.processes.size(); ++i) {
    // The node's ranks in the same places: rank numbers shift with the GPU's.
    EXPECT_EQ(g.processes[i].rank - g.index, c.processes[i].rank - c.index);
    EXPECT_EQ(g.processes[i].device, c.processes[i].device);
    EXPECT_EQ(without_rank(g.processes[i]), without_rank(c.processes[i]));
  }
}

TEST(RankRanges, EveryRankHasItsClassesFiguresAndRangesOnlyGiveTheSameAnswer) {
  int plans = 0, oom = 0, several = 0, folded = 0;
  testing::for_each_rank_layout([&](job::job_spec& j) {
    const auto full = plan(testing::tiny_llama(), j);
    ASSERT_TRUE(full) << full.error().to_string();
    predict_options only;
    only.rank_ranges = true;
    const auto ranges = plan(testing::tiny_llama(), j, only);
    ASSERT_TRUE(ranges) << ranges.error().to_string();
    ++plans;
    const int world = j.world_size();
    ASSERT_EQ(full->ranks.size(), static_cast<std::size_t>(world));
    EXPECT_TRUE(ranges->ranks.empty());
    EXPECT_TRUE(ranges->gpus.empty());
    ASSERT_EQ(full->ranges.size(), ranges->ranges.size());
    ASSERT_EQ(full->classes.size(), ranges->classes.size());
    for (std::size_t i = 0; i < full->ranges.size(); ++i) {
      const auto& a = full->ranges[i];
      const auto& b = ranges->ranges[i];
      EXPECT_EQ(std::tie(a.first, a.count, a.cls, a.period, a.times),
                std::tie(b.first, b.count, b.cls, b.period, b.times));
      if (i > 0) {
        EXPECT_GT(a.first, full->ranges[i - 1].first);  // ordered by first
      }
      if (a.period > 0) {  // a node's block (rank_range)
        EXPECT_EQ(a.period, j.hardware.gpus_per_node);
        EXPECT_LE(a.count, a.period);
        EXPECT_GE(a.times, 1);
      }
    }
    int next = 0;
    for_each_range_run(*full, [&](int first, int count, std::uint32_t cls) {
      ASSERT_EQ(first, next);  // the ranges cover the ranks in order
      ASSERT_GT(count, 0);
      ASSERT_LT(cls, full->classes.size());
      next += count;
      const auto& c = full->classes[cls];
      for (int rank = first; rank < first + count; ++rank) {
        expect_like(full->ranks[static_cast<std::size_t>(rank)], c.rank, rank);
        expect_like(full->gpus[static_cast<std::size_t>(rank)], c.gpu, rank);
        const auto r = rank_of(*ranges, rank);
        ASSERT_TRUE(r.has_value());
        expect_like(full->ranks[static_cast<std::size_t>(rank)], *r, rank);
        const auto g = gpu_of(*ranges, rank);
        ASSERT_TRUE(g.has_value());
        expect_like(full->gpus[static_cast<std::size_t>(rank)], *g, rank);
      }
    });
    EXPECT_EQ(next, world);
    EXPECT_EQ(rank_count(*ranges), world);
    EXPECT_FALSE(rank_of(*ranges, world).has_value());
    EXPECT_FALSE(gpu_of(*ranges, world).has_value());
    folded += full->ranges.back().period > 0 ? 1 : 0;
    for (std::size_t i = 0; i < full->classes.size(); ++i) {
      expect_like(ranges->classes[i].rank, full->classes[i].rank, full->classes[i].rank.rank);
      expect_like(ranges->classes[i].gpu, full->classes[i].gpu, full->classes[i].gpu.index);
    }
    EXPECT_EQ(full->fits, ranges->fits);
    EXPECT_EQ(full->notes, ranges->notes);
    EXPECT_EQ(state_of(*full), state_of(*ranges));
    const auto va = verdict_of(*full);
    const auto vb = verdict_of(*ranges);
    EXPECT_EQ(va.oom.has_value(), vb.oom.has_value());
    if (va.oom && vb.oom) {
      EXPECT_EQ(va.oom->rank, vb.oom->rank);
      EXPECT_EQ(va.oom->phase, vb.oom->phase);
    }
    EXPECT_EQ(va.busiest_gpu, vb.busiest_gpu);
    EXPECT_EQ(va.busiest_device, vb.busiest_device);
    EXPECT_EQ(busiest_rank(*full).rank, busiest_rank(*ranges).rank);
    EXPECT_EQ(busiest_rank(*full).peak.device, busiest_rank(*ranges).peak.device);
    oom += va.oom ? 1 : 0;
    several += full->classes.size() > 1 ? 1 : 0;
  });
  EXPECT_GT(folded, 0);  // three nodes: the third is the second's block
  // The grid reaches what it is meant to: out-of-memory failures and plans of several classes.
  EXPECT_EQ(plans, 3 * 4 * 2 * static_cast<int>(std::size(testing::rank_variants)));
  EXPECT_GT(oom, 0);
  EXPECT_GT(several, plans / 2);
}

// Ranks alike are kept once: a thousand nodes of 8 GPUs have a handful of classes, and the
// nodes after the second are one block of the second's ranges (GPU 0 of a node holds what the
// node's other ranks leave there).
TEST(RankRanges, AThousandNodesAreAFewClassesAndRanges) {
  auto j = testing::rank_layout_job(job::strategy::ddp, 8, 1000);
  j.init.set_device_first = false;
  predict_options only;
  only.rank_ranges = true;
  const auto p = plan(testing::tiny_llama(), j, only);
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_TRUE(p->ranks.empty());
  // rank 0; rank 1; ranks 2-7; GPU 0 of every later node. Node 0 is three ranges, node 1 two,
  // and nodes 2-999 the block of node 1's two.
  EXPECT_EQ(p->classes.size(), 4u);
  ASSERT_EQ(p->ranges.size(), 7u);
  const auto& gpu0 = p->ranges[5];
  const auto& rest = p->ranges[6];
  EXPECT_EQ(std::tie(gpu0.first, gpu0.count, gpu0.period, gpu0.times),
            std::make_tuple(16, 1, 8, 998));
  EXPECT_EQ(std::tie(rest.first, rest.count, rest.period, rest.times),
            std::make_tuple(17, 7, 8, 998));
  EXPECT_EQ(rank_count(*p), 8000);
  EXPECT_EQ(rank_of(*p, 7999)->like_rank, 1);
  EXPECT_EQ(gpu_of(*p, 7992)->processes.size(), 8u);  // GPU 0 of the last node
  EXPECT_EQ(gpu_of(*p, 7992)->processes[1].what.rfind("rank 7993", 0), 0u);
}

}  // namespace
}  // namespace vramscope::predict
