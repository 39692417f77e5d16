#include "schedule/optimizer_state.hpp"

#include <gtest/gtest.h>

#include <vramscope/schedule/schedule.hpp>

#include "support/tiny_model.hpp"

namespace vramscope::schedule {
namespace {

using job::optimizer_kind;

bytes managed_bytes(optimizer_kind kind, std::uint64_t numel) {
  bytes total = 0;
  for (const auto& b : optimizer_state_buffers(kind, numel, 4))
    if (b.managed) total += b.size;
  return total;
}

TEST(OptimizerState, TorchOptimizersUseTheStateDtype) {
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::adamw, 1000, 4), 8000u);
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::adamw, 1000, 2), 4000u);
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::sgd, 1000, 4), 0u);
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::sgd_momentum, 1000, 4), 4000u);
  EXPECT_EQ(optimizer_state_buffers(optimizer_kind::adam, 1000, 4).size(), 2u);
}

TEST(OptimizerState, EightBitStateBelowMin8BitSizeIsFp32) {
  // Under 4096 elements bitsandbytes keeps fp32 moments, whatever the state dtype given.
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::adamw_8bit, 1024, 2), 2 * 1024u * 4);
  // From 4096: two uint8 moments and one fp32 absmax per 256 elements each.
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::adamw_8bit, 4096, 2), 2 * 4096u + 2 * 16u * 4);
  EXPECT_EQ(managed_bytes(optimizer_kind::adamw_8bit, 1'000'000), 0u);
}

TEST(OptimizerState, PagedStateIsManagedFromOneHundredThousandElements) {
  EXPECT_EQ(managed_bytes(optimizer_kind::paged_adamw, 99'999), 0u);
  EXPECT_EQ(managed_bytes(optimizer_kind::paged_adamw, 100'000), 2 * 100'000u * 4);
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::paged_adamw, 100'000, 2), 2 * 100'000u * 4);
  // 8-bit: the uint8 moments are paged, the absmax vectors are torch tensors.
  EXPECT_EQ(managed_bytes(optimizer_kind::paged_adamw_8bit, 256'000), 2 * 256'000u);
  EXPECT_EQ(optimizer_state_bytes(optimizer_kind::paged_adamw_8bit, 256'000, 4),
            2 * 256'000u + 2 * 1000u * 4);
}

TEST(OptimizerState, PagedStateLeavesTheAllocatorForTheProgramsManagedBytes) {
  const auto m = testing::tiny_llama(32000, 1024, 4096, 2);
  job::job_spec j;
  j.hardware.gpus_per_node = 1;
  j.parallel.kind = job::strategy::single;
  j.training.steps = 1;
  auto optimizer_bytes = [](const program& p) {
    bytes live = 0;
    for (const auto& e : p.events)
      if (e.kind == event_kind::alloc && e.cat == category::optimizer) live += e.size;
    return live;
  };
  const auto plain = build_program(m, j, 0);
  j.optimizer.kind = optimizer_kind::paged_adamw;
  const auto paged = build_program(m, j, 0);
  ASSERT_TRUE(plain && paged);
  EXPECT_EQ(plain->managed, 0u);
  // Every matrix of tiny_llama has >= 1e5 elements: its moments are managed; norms are not.
  std::uint64_t big = 0;
  for (const auto& t : m.tensors)
    if (t.numel() >= bnb_paging_min_numel) big += t.numel();
  EXPECT_EQ(paged->managed, 2 * big * 4);
  EXPECT_EQ(optimizer_bytes(*plain) - optimizer_bytes(*paged), 2 * big * 4);
}

}  // namespace
}  // namespace vramscope::schedule
