#include "schedule/layout.hpp"

#include <gtest/gtest.h>

#include "support/tiny_model.hpp"

namespace vramscope::schedule {
namespace {

job::job_spec base_job() {
  job::job_spec j;
  j.hardware.gpus_per_node = 8;
  j.parallel.kind = job::strategy::fsdp2;
  return j;
}

TEST(Layout, FullFineTuneTrainsEveryParameter) {
  const auto m = testing::tiny_llama();
  const auto j = base_job();
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  EXPECT_EQ(lay.numel, m.parameters());
  EXPECT_EQ(lay.trainable_numel, m.parameters());
}

TEST(Layout, TensorParallelSplitsMatricesNotNorms) {
  const auto m = testing::tiny_llama();
  auto j = base_job();
  j.parallel.tp = 4;
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  const auto& block = lay.units[1];
  // 7 matrices split four ways, 2 norms of 1024 replicated.
  std::uint64_t matrices = 0;
  for (const auto& t : m.tensors)
    if (t.unit == "layers.0" && t.shape.size() == 2) matrices += t.numel();
  EXPECT_EQ(block.numel, matrices / 4 + 2 * 1024);
}

TEST(Layout, LoraTrainsOnlyAdapters) {
  const auto m = testing::tiny_llama();
  auto j = base_job();
  j.lora.enabled = true;
  j.lora.rank = 8;
  j.lora.targets = {"q_proj", "v_proj"};
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  // Per layer: q (1024x1024) and v (256x1024): 8*(1024+1024) + 8*(256+1024).
  EXPECT_EQ(lay.trainable_numel, 4u * (8u * 2048u + 8u * 1280u));
  EXPECT_EQ(lay.dtypes.stored, 4);  // adapters kept in fp32
}

TEST(Layout, QuantisedBaseIsAboutHalfAByte) {
  const auto m = testing::tiny_llama();
  auto j = base_job();
  j.lora.enabled = true;
  j.lora.base_quantization = dtype::nf4;
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  bytes frozen = 0;
  for (const auto& u : lay.units) frozen += u.frozen_bytes;
  EXPECT_GT(frozen, m.parameters() / 2);
  EXPECT_LT(frozen, m.parameters() / 2 + m.parameters() / 32);
}

TEST(Layout, StateDtypesFollowStrategy) {
  auto j = base_job();
  j.precision.params = dtype::bf16;
  j.precision.master = dtype::f32;
  auto d = make_state_dtypes(j);
  EXPECT_EQ(d.compute, 2);
  EXPECT_EQ(d.stored, 4);  // FSDP keeps fp32 shards under mixed precision
  j.parallel.kind = job::strategy::ddp;
  d = make_state_dtypes(j);
  EXPECT_EQ(d.stored, 2);
  EXPECT_EQ(d.master, 4);  // a separate fp32 master copy
  j.precision.autocast = true;
  d = make_state_dtypes(j);
  EXPECT_EQ(d.stored, 4);
  EXPECT_EQ(d.master, 0);
}

}  // namespace
}  // namespace vramscope::schedule
