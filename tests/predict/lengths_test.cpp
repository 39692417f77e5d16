// Variable-length training (training.lengths): steps replayed at their drawn lengths, the steps
// left out once every length replays to the same state, and the plan's figures.
#include "predict/lengths.hpp"

#include <vramscope/alloc/factory.hpp>
#include <vramscope/job/lengths.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "support/tiny_model.hpp"

namespace vramscope::predict {
namespace {

std::unique_ptr<alloc::allocator_model> allocator(bool expandable) {
  alloc::caching_allocator_options o;
  o.capacity = 80_GiB;
  o.device_total = 80_GiB;
  o.expandable_segments = expandable;
  return alloc::make_caching_allocator(o);
}

job::job_spec variable_job(job::strategy s, int steps) {
  job::job_spec j;
  j.parallel.kind = s;
  j.hardware.gpus_per_node = s == job::strategy::single ? 1 : 4;
  j.hardware.capacity = 80_GiB;
  j.training.micro_batch = 2;
  j.training.seq_len = 2048;
  j.training.steps = steps;
  j.training.lengths = "buckets";
  j.training.length_buckets = {"256:2", "1024:1", "640:1"};
  return j;
}

std::vector<std::uint64_t> drawn(const job::job_spec& j) {
  return job::draw_lengths(*job::length_distribution_of(j), j.training.steps,
                           static_cast<std::uint64_t>(j.training.length_seed));
}

// The figures with the steps left out are those of replaying every step.
TEST(VariableLengths, LeftOutStepsChangeNoFigure) {
  const auto model = testing::tiny_llama();
  int shortened = 0, jobs = 0;
  for (auto s : {job::strategy::single, job::strategy::ddp, job::strategy::fsdp2})
    for (bool expandable : {false, true})
      for (int seed : {0, 3}) {
        auto j = variable_job(s, 80);
        j.training.length_seed = seed;
        const std::string label = std::to_string(static_cast<int>(s)) + (expandable ? " exp" : "") +
                                  " seed " + std::to_string(seed);
        const auto lengths = drawn(j);
        const auto whole = schedule::build_program(model, j, 0);
        ASSERT_TRUE(whole) << label;
        ASSERT_EQ(whole->steps.size(), lengths.size()) << label;
        for (std::size_t i = 0; i < lengths.size(); ++i)
          EXPECT_EQ(whole->steps[i].seq_len, lengths[i]) << label;
        const auto all = summarise_steps(whole->steps, replay(*whole, *allocator(expandable)),
                                         lengths);
        EXPECT_EQ(all.steps_replayed, 80) << label;
        std::thread([&] {  // no programs kept from other jobs
          auto a = allocator(expandable);
          replay_while_built watcher(*a);
          const auto built = schedule::build_program(model, j, 0, {}, watcher);
          ASSERT_TRUE(built) << label;
          const auto cut = summarise_steps(built->steps, watcher.finish(*built), lengths);
          EXPECT_EQ(cut.first, all.first) << label;
          EXPECT_EQ(cut.p50, all.p50) << label;
          EXPECT_EQ(cut.p99, all.p99) << label;
          EXPECT_EQ(cut.highest, all.highest) << label;
          EXPECT_EQ(cut.last_growth_step, all.last_growth_step) << label;
          if (cut.steps_replayed < 80) ++shortened;
          ++jobs;
        }).join();
      }
  EXPECT_EQ(jobs, 12);
  EXPECT_GE(shortened, 6) << "three lengths over 80 steps reach a repeating state";
}

// Each step's activations are its own length's: a longer step allocates more.
TEST(VariableLengths, StepsAllocateAtTheirLength) {
  const auto model = testing::tiny_llama();
  auto j = variable_job(job::strategy::single, 30);
  const auto lengths = drawn(j);
  const auto program = schedule::build_program(model, j, 0);
  ASSERT_TRUE(program);
  const auto rr = replay(*program, *allocator(false));
  ASSERT_EQ(rr.steps.size(), 30u);
  std::map<std::uint64_t, bytes> allocated;
  for (std::size_t i = 1; i < 30; ++i) allocated[lengths[i]] = rr.steps[i].allocated;
  ASSERT_EQ(allocated.size(), 3u) << "the seed draws every bucket in 30 steps";
  EXPECT_LT(allocated[256], allocated[640]);
  EXPECT_LT(allocated[640], allocated[1024]);
}

TEST(VariableLengths, PlanReportsBothAllocatorsAndRankZerosPeak) {
  const auto model = testing::tiny_llama();
  auto j = variable_job(job::strategy::fsdp2, 200);
  const auto p = plan(model, j);
  ASSERT_TRUE(p) << p.error().to_string();
  ASSERT_TRUE(p->lengths);
  const auto& l = *p->lengths;
  EXPECT_EQ(l.steps, 200);
  EXPECT_EQ(l.shortest, 256u);
  EXPECT_EQ(l.longest, 1024u);
  EXPECT_EQ(l.distribution, "3 buckets 256..1024");
  EXPECT_FALSE(l.without_expandable.expandable_segments);
  EXPECT_TRUE(l.with_expandable.expandable_segments);
  // The job's own allocator (no expandable segments) peaks where its steps do: reserved memory
  // only grows over the run.
  EXPECT_EQ(p->ranks[0].peak.reserved, l.without_expandable.highest);
  for (const auto* r : {&l.without_expandable, &l.with_expandable}) {
    EXPECT_LE(r->first, r->p50);
    EXPECT_LE(r->p50, r->p99);
    EXPECT_LE(r->p99, r->highest);
    EXPECT_LT(r->steps_replayed, 200) << "the replay stops where the state repeats";
  }
}

TEST(VariableLengths, FixedLengthsHaveNoLengthFigures) {
  const auto model = testing::tiny_llama();
  job::job_spec j;
  const auto p = plan(model, j);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->lengths);
  const auto program = schedule::build_program(model, j, 0);
  ASSERT_TRUE(program);
  EXPECT_TRUE(program->steps.empty());
}

}  // namespace
}  // namespace vramscope::predict
