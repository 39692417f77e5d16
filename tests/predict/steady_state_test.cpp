// A replay that finds the rank back in the state the previous training step (or micro-batch)
// left it in has the builder leave out the steps (micro-batches) that would repeat it
// (replay_while_built::steady). The figures must be those of replaying the whole program:
// checked on jobs of every data-parallel strategy, with and without checkpointing, over 1 to 7
// steps and 1 to 6 micro-batches, on GPUs they fit and GPUs they do not.
#include "predict/replay.hpp"

#include <vramscope/alloc/factory.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "support/tiny_model.hpp"

namespace vramscope::predict {
namespace {

std::unique_ptr<alloc::allocator_model> allocator(bytes capacity) {
  alloc::caching_allocator_options o;
  o.capacity = capacity;
  o.device_total = capacity;
  return alloc::make_caching_allocator(o);
}

// Phases are compared by name: a shorter program has fewer phases before the same one.
void expect_same(const replay_result& a, const schedule::program& pa, const replay_result& b,
                 const schedule::program& pb, const std::string& label) {
  EXPECT_EQ(a.peak.allocated, b.peak.allocated) << label;
  EXPECT_EQ(a.peak.active, b.peak.active) << label;
  EXPECT_EQ(a.peak.reserved, b.peak.reserved) << label;
  EXPECT_EQ(pa.phase_names[a.allocated_peak_phase], pb.phase_names[b.allocated_peak_phase])
      << label;
  EXPECT_EQ(pa.phase_names[a.reserved_peak_phase], pb.phase_names[b.reserved_peak_phase])
      << label;
  EXPECT_EQ(a.at_peak, b.at_peak) << label;
  EXPECT_EQ(a.fragmentation, b.fragmentation) << label;
  EXPECT_EQ(a.init_allocated, b.init_allocated) << label;
  EXPECT_EQ(a.init_reserved, b.init_reserved) << label;
  for (std::size_t i = 0; i < a.outside.size(); ++i) {
    EXPECT_EQ(a.outside[i].reached, b.outside[i].reached) << label << " outside " << i;
    EXPECT_EQ(a.outside[i].oom, b.outside[i].oom) << label << " outside " << i;
    EXPECT_EQ(a.outside[i].peak.allocated, b.outside[i].peak.allocated) << label;
    EXPECT_EQ(a.outside[i].peak.active, b.outside[i].peak.active) << label;
    EXPECT_EQ(a.outside[i].peak.reserved, b.outside[i].peak.reserved) << label;
  }
  ASSERT_EQ(a.oom.has_value(), b.oom.has_value()) << label;
  if (a.oom) {
    EXPECT_EQ(pa.phase_names[a.oom_phase], pb.phase_names[b.oom_phase]) << label;
    EXPECT_EQ(a.oom->requested, b.oom->requested) << label;
    EXPECT_EQ(a.oom->allocated, b.oom->allocated) << label;
    EXPECT_EQ(a.oom->reserved, b.oom->reserved) << label;
    EXPECT_EQ(a.oom->largest_free, b.oom->largest_free) << label;
  }
}

struct counts {
  int jobs = 0, shortened = 0, oom = 0;
  int long_fitting = 0;  // jobs of 7 steps that fit: every one reaches a steady state
};

// Replays `j` whole and while built, on a thread of its own (no programs kept from other jobs),
// and compares the two.
void check(const model::model_spec& model, const job::job_spec& j, bytes capacity,
           const std::string& label, counts& n) {
  const auto whole = schedule::build_program(model, j, 0);
  ASSERT_TRUE(whole) << label;
  const auto expected = replay(*whole, *allocator(capacity));
  std::thread([&] {
    auto a = allocator(capacity);
    replay_while_built watcher(*a);
    const auto built = schedule::build_program(model, j, 0, {}, watcher);
    ASSERT_TRUE(built) << label;
    expect_same(watcher.finish(*built), *built, expected, *whole, label);
    ++n.jobs;
    n.oom += expected.oom ? 1 : 0;
    if (built->complete && built->events.size() < whole->events.size()) ++n.shortened;
    if (j.training.steps >= 7 && !expected.oom) {
      ++n.long_fitting;
      EXPECT_LT(built->events.size(), whole->events.size()) << label << ": not shortened";
    }
  }).join();
}

TEST(SteadyState, LeftOutStepsAndMicroBatchesChangeNoFigure) {
  const auto model = testing::tiny_llama();
  counts n;
  for (auto s : {job::strategy::ddp, job::strategy::fsdp1, job::strategy::fsdp2,
                 job::strategy::zero2, job::strategy::zero3, job::strategy::single})
    for (auto ckpt : {job::checkpointing::none, job::checkpointing::full})
      for (int steps : {1, 2, 3, 7})
        for (int micros : {1, 3, 6})
          for (bytes capacity : {80_GiB, 2_GiB}) {
            job::job_spec j;
            j.parallel.kind = s;
            j.hardware.gpus_per_node = s == job::strategy::single ? 1 : 4;
            j.training.seq_len = 2048;
            j.training.micro_batch = 2;
            j.training.activation_checkpointing = ckpt;
            j.training.steps = steps;
            j.training.gradient_accumulation = micros;
            check(model, j, capacity,
                  "strategy " + std::to_string(static_cast<int>(s)) + ", checkpointing " +
                      std::to_string(static_cast<int>(ckpt)) + ", " + std::to_string(steps) +
                      " steps of " + std::to_string(micros) + " micro-batches at " +
                      std::to_string(capacity),
                  n);
          }
  EXPECT_EQ(n.jobs, 6 * 2 * 4 * 3 * 2);
  // Jobs of 3 steps are shortened by 6 micro-batches only (steady from the second step on),
  // FSDP1's micro-batches never; some jobs run out of memory.
  EXPECT_GT(n.long_fitting, 12);
  EXPECT_GT(n.shortened, n.long_fitting);
  EXPECT_GT(n.oom, 0);
}

// Evaluation and a checkpoint save follow the left-out steps: they start from the state the
// last step would have left.
TEST(SteadyState, PhasesAfterTheStepsSeeTheLastStepsState) {
  const auto model = testing::tiny_llama();
  counts n;
  for (auto s : {job::strategy::ddp, job::strategy::fsdp2, job::strategy::zero3})
    for (int steps : {2, 5}) {
      job::job_spec j;
      j.parallel.kind = s;
      j.hardware.gpus_per_node = 4;
      j.training.seq_len = 1024;
      j.training.steps = steps;
      j.eval.enabled = true;
      j.eval.steps = 2;
      j.checkpoint.save = job::state_dict_kind::full;
      check(model, j, 80_GiB, "strategy " + std::to_string(static_cast<int>(s)) + ", " +
                                  std::to_string(steps) + " steps, eval, save", n);
    }
  EXPECT_EQ(n.jobs, 6);
  EXPECT_GE(n.shortened, 3);
}

}  // namespace
}  // namespace vramscope::predict
