// plan replays a rank's program while it is built and stops the build at an out-of-memory
// failure (replay_while_built): the figures must be those of replaying the whole program.
#include "predict/replay.hpp"

#include <vramscope/alloc/factory.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "support/tiny_model.hpp"

namespace vramscope::predict {
namespace {

job::job_spec job_of(job::strategy s) {
  job::job_spec j;
  j.parallel.kind = s;
  j.hardware.gpus_per_node = 4;
  j.training.seq_len = 2048;
  j.training.micro_batch = 4;
  j.training.gradient_accumulation = 2;
  return j;
}

std::unique_ptr<alloc::allocator_model> allocator(bytes capacity) {
  alloc::caching_allocator_options o;
  o.capacity = capacity;
  o.device_total = capacity;
  return alloc::make_caching_allocator(o);
}

void expect_same(const replay_result& a, const replay_result& b, const std::string& label) {
  EXPECT_EQ(a.peak.allocated, b.peak.allocated) << label;
  EXPECT_EQ(a.peak.active, b.peak.active) << label;
  EXPECT_EQ(a.peak.reserved, b.peak.reserved) << label;
  EXPECT_EQ(a.allocated_peak_phase, b.allocated_peak_phase) << label;
  EXPECT_EQ(a.reserved_peak_phase, b.reserved_peak_phase) << label;
  EXPECT_EQ(a.at_peak, b.at_peak) << label;
  EXPECT_EQ(a.fragmentation, b.fragmentation) << label;
  EXPECT_EQ(a.init_allocated, b.init_allocated) << label;
  EXPECT_EQ(a.init_reserved, b.init_reserved) << label;
  ASSERT_EQ(a.oom.has_value(), b.oom.has_value()) << label;
  if (a.oom) {
    EXPECT_EQ(a.oom_phase, b.oom_phase) << label;
    EXPECT_EQ(a.oom->requested, b.oom->requested) << label;
    EXPECT_EQ(a.oom->allocated, b.oom->allocated) << label;
    EXPECT_EQ(a.oom->reserved, b.oom->reserved) << label;
    EXPECT_EQ(a.oom->largest_free, b.oom->largest_free) << label;
    EXPECT_EQ(a.oom->message, b.oom->message) << label;
  }
}

TEST(ReplayWhileBuilt, GivesTheWholeProgramsFiguresAndStopsAtTheFailure) {
  const auto model = testing::tiny_llama();
  for (auto s :
       {job::strategy::ddp, job::strategy::fsdp1, job::strategy::fsdp2, job::strategy::zero3}) {
    const auto j = job_of(s);
    const auto whole = schedule::build_program(model, j, 0);
    ASSERT_TRUE(whole);
    const bytes need = replay(*whole, *allocator(80_GiB)).peak.reserved;
    int stopped = 0;
    // From failing at the first allocation to fitting with room to spare.
    for (bytes capacity = 2_MiB; capacity < 2 * need; capacity += need / 23) {
      const std::string label =
          std::to_string(static_cast<int>(s)) + " at " + std::to_string(capacity);
      const auto expected = replay(*whole, *allocator(capacity));
      auto a = allocator(capacity);
      replay_while_built watcher(*a);
      const auto cut = schedule::build_program(model, j, 0, {}, watcher);
      ASSERT_TRUE(cut) << label;
      expect_same(watcher.finish(*cut), expected, label);
      if (!expected.oom) {
        EXPECT_TRUE(cut->complete) << label;
      }
      if (!cut->complete) {
        ++stopped;
        EXPECT_LT(cut->events.size(), whole->events.size()) << label;
      }
    }
    EXPECT_GT(stopped, 0) << static_cast<int>(s);
  }
}

// Rows that differ only after init take the allocator's state after the init replayed for an
// earlier row on this thread: the figures must stay those of replaying each whole program on a
// fresh allocator, whether the state came from the same capacity or not (the rows alternate
// between two capacities and two strategies, so some find their init kept and some do not).
TEST(ReplayWhileBuilt, RowsWithTheSameInitGiveTheirOwnFigures) {
  const auto model = testing::tiny_llama();
  int oom = 0;
  for (std::uint64_t micro_batch : {1u, 2u, 4u, 8u, 16u})
    for (auto s : {job::strategy::fsdp2, job::strategy::ddp})
      for (bytes capacity : {80_GiB, 3_GiB / 2}) {
        auto j = job_of(s);
        j.training.micro_batch = micro_batch;
        const std::string label = std::to_string(static_cast<int>(s)) + " micro-batch " +
                                  std::to_string(micro_batch) + " at " + std::to_string(capacity);
        const auto whole = schedule::build_program(model, j, 0);
        ASSERT_TRUE(whole) << label;
        auto fresh = allocator(capacity);
        const auto expected = replay(*whole, *fresh);
        auto a = allocator(capacity);
        replay_while_built watcher(*a);
        const auto cut = schedule::build_program(model, j, 0, {}, watcher);
        ASSERT_TRUE(cut) << label;
        expect_same(watcher.finish(*cut), expected, label);
        oom += expected.oom ? 1 : 0;
        if (expected.oom) continue;
        EXPECT_EQ(a->stats().reserved.peak, fresh->stats().reserved.peak) << label;
        EXPECT_EQ(a->stats().segments, fresh->stats().segments) << label;
        EXPECT_EQ(a->blocks().size(), fresh->blocks().size()) << label;
      }
  EXPECT_GT(oom, 0);
  EXPECT_LT(oom, 20);
}

// What-if-like rows on one thread: each job twice (two rounds), at two capacities so that some
// run out of memory. `row(round, job, capacity, label)` sees each, its sequence length set.
template <typename Row>
void rows_twice(std::uint64_t seq_len, Row row) {
  for (int round = 0; round < 2; ++round)
    for (std::uint64_t micro_batch : {16u, 2u, 8u})
      for (auto s : {job::strategy::fsdp2, job::strategy::ddp})
        for (bytes capacity : {3_GiB / 2, 80_GiB}) {
          auto j = job_of(s);
          j.training.micro_batch = micro_batch;
          j.training.seq_len = seq_len;
          row(round, j,  capacity,
              "round " + std::to_string(round) + ", " + std::to_string(static_cast<int>(s)) +
                  " micro-batch " + std::to_string(micro_batch) + " at " +
                  std::to_string(capacity));
        }
}

// A row whose whole program equals one replayed after the same init on this thread takes that
// replay's figures without replaying; one whose program equals a program cut at its failure
// stops where that one did. The figures and the cut must stay those of a fresh replay of each
// row, for rows that repeat, rows that match a kept program for a while and then part from it,
// and rows that match none.
TEST(ReplayWhileBuilt, RowsWithEqualProgramsGiveTheirOwnFigures) {
  const auto model = testing::tiny_llama();
  int oom = 0;
  int fits = 0;
  rows_twice(2048, [&](int, const job::job_spec& j, bytes capacity, const std::string& label) {
    const auto whole = schedule::build_program(model, j, 0);
    ASSERT_TRUE(whole) << label;
    const auto expected = replay(*whole, *allocator(capacity));
    // Where a replay that keeps nothing yet (a new thread's) cuts the program.
    std::size_t expected_events = 0;
    std::thread([&] {
      auto a = allocator(capacity);
      replay_while_built watcher(*a);
      expected_events = schedule::build_program(model, j, 0, {}, watcher)->events.size();
    }).join();
    auto a = allocator(capacity);
    replay_while_built watcher(*a);
    const auto cut = schedule::build_program(model, j, 0, {}, watcher);
    ASSERT_TRUE(cut) << label;
    expect_same(watcher.finish(*cut), expected, label);
    EXPECT_EQ(cut->events.size(), expected_events) << label;
    EXPECT_EQ(cut->complete, !expected.oom) << label;
    ++(expected.oom ? oom : fits);
  });
  EXPECT_GT(oom, 2);
  EXPECT_GT(fits, 2);
}

// finish_taking_events keeps the program's events for later rows without copying them: the
// figures are still those of a fresh replay of each row, whether a row found a kept program
// (the second round) or not, and a program the replay kept is left without events.
TEST(ReplayWhileBuilt, TakingTheEventsGivesTheSameFigures) {
  const auto model = testing::tiny_llama();
  int taken = 0;
  int row = 0;
  // Token counts no other test here plans: programs no other test keeps on this thread.
  rows_twice(1536, [&](int round, const job::job_spec& j, bytes capacity,
                       const std::string& label) {
    const auto whole = schedule::build_program(model, j, 0);
    ASSERT_TRUE(whole) << label;
    const auto expected = replay(*whole, *allocator(capacity));
    auto a = allocator(capacity);
    replay_while_built watcher(*a);
    auto cut = schedule::build_program(model, j, 0, {}, watcher);
    ASSERT_TRUE(cut) << label;
    // Every other row copies its events, so that kept programs of both kinds follow.
    if (row++ % 2 == 0) {
      ASSERT_FALSE(cut->events.empty()) << label;
      expect_same(watcher.finish_taking_events(*cut), expected, label);
      if (round == 0) {
        EXPECT_TRUE(cut->events.empty()) << label;
      }
      taken += cut->events.empty() ? 1 : 0;
    } else {
      expect_same(watcher.finish(*cut), expected, label);
    }
  });
  EXPECT_EQ(taken, 6);  // the first round's (the second finds them all kept)
}

}  // namespace
}  // namespace vramscope::predict
