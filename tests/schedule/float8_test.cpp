// torchao float8 training (precision.float8, parallel.float8_all_gather): which weights become
// Float8Linear, the float8 copies around each matmul, and FSDP2's float8 all-gather, checked on
// the tiny llama (hidden 1024, MLP 4096, kv 256, 512 tokens) with sizes worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "schedule/layout.hpp"
#include "schedule/schedule_support.hpp"

namespace vramscope::schedule {
namespace {

// One block's weights: q and o 1024 x 1024, k and v 256 x 1024, gate, up and down 4096 x 1024.
constexpr bytes block_linear = 2 * 1024 * 1024 + 2 * 256 * 1024 + 3 * 4096 * 1024;  // 15,204,352
constexpr bytes block_norms = 2 * 1024;
constexpr bytes tokens = 512;

job::job_spec float8_job(bool all_gather) {
  auto j = job_of(job::strategy::fsdp2, 8);
  j.precision.float8 = job::float8_recipe::tensorwise;
  j.parallel.float8_all_gather = all_gather;
  return j;
}

bool allocates(const program& p, bytes size, category cat) {
  return std::any_of(p.events.begin(), p.events.end(), [&](const auto& e) {
    return e.kind == event_kind::alloc && e.size == size && e.cat == cat;
  });
}

TEST(Float8, LinearWeightsOfTheBlocksAreConverted) {
  const auto m = testing::tiny_llama();
  auto j = float8_job(false);
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  for (const auto& u : lay.units) {
    ASSERT_EQ(u.float8.size(), u.trainable.size()) << u.name;
    const auto converted = std::count(u.float8.begin(), u.float8.end(), true);
    if (u.kind == model::unit_kind::block) {
      // input_layernorm, q, k, v, o, post_attention_layernorm, gate, up, down
      EXPECT_EQ(u.float8, (std::vector<bool>{false, true, true, true, true, false, true, true, true}));
      EXPECT_EQ(u.float8_linears.size(), 7u);
    } else {
      EXPECT_EQ(converted, 0) << u.name << ": the embedding, the norm and the head stay";
    }
  }
  // Off: nothing converted.
  j.precision.float8 = job::float8_recipe::none;
  for (const auto& u : make_layout(m, j, make_rank_info(j, 0)).units) {
    EXPECT_TRUE(u.float8_linears.empty());
    EXPECT_EQ(std::count(u.float8.begin(), u.float8.end(), true), 0);
  }
}

TEST(Float8, TensorParallelSplitsInputsOfRowLayersAndOutputsOfTheOthers) {
  const auto m = testing::tiny_llama();
  auto j = float8_job(false);
  j.parallel.tp = 2;
  const auto lay = make_layout(m, j, make_rank_info(j, 0));
  const auto& block = lay.units[1];
  ASSERT_EQ(block.float8_linears.size(), 7u);
  const auto& q = block.float8_linears[0];
  EXPECT_EQ(q.in, 1024u);
  EXPECT_EQ(q.out, 512u);
  const auto& o = block.float8_linears[3];
  EXPECT_EQ(o.in, 512u);
  EXPECT_EQ(o.out, 1024u);
  const auto& down = block.float8_linears[6];
  EXPECT_EQ(down.in, 2048u);
  EXPECT_EQ(down.out, 1024u);
  EXPECT_EQ(down.numel, 1024u * 2048u);
  // Dimensions that are not multiples of 16 keep nn.Linear (torch._scaled_mm cannot take them).
  const auto odd = testing::tiny_llama(32000, 1000, 4000, 2, 10, 5);
  auto j2 = float8_job(false);
  for (const auto& u : make_layout(odd, j2, make_rank_info(j2, 0)).units)
    EXPECT_TRUE(u.float8_linears.empty()) << u.name;
}

// FSDP2 all-gathers each block into one flat output on the copy-in stream. Without the float8
// all-gather it holds every weight in bf16; with it the Float8Linear weights take one byte.
TEST(Float8, Fsdp2AllGathersFloat8WeightsInOneByte) {
  const bytes bf16_output = 2 * (block_linear + block_norms);  // 30,412,800
  const bytes f8_output = block_linear + 2 * block_norms;      // 15,208,448
  const auto plain = build(float8_job(false));
  EXPECT_TRUE(allocates(plain, bf16_output, category::communication));
  EXPECT_FALSE(allocates(plain, f8_output, category::communication));
  const auto f8 = build(float8_job(true));
  EXPECT_TRUE(allocates(f8, f8_output, category::communication));
  EXPECT_FALSE(allocates(f8, bf16_output, category::communication));
  // The copy-in buffer holds this rank's shard cast from the fp32 master: to bf16, or to float8
  // for the Float8Linear weights. Each unsharded weight is one byte an element.
  EXPECT_TRUE(allocates(plain, bf16_output / 8, category::communication));
  EXPECT_TRUE(allocates(f8, f8_output / 8, category::communication));
  EXPECT_TRUE(allocates(f8, 4096u * 1024u, category::parameters));
  EXPECT_TRUE(allocates(plain, 2u * 4096u * 1024u, category::parameters));
  // A job that stores bf16 casts nothing without float8 (no copy-in buffer); with it the shard
  // is cast to float8 first.
  auto stored_bf16 = float8_job(false);
  stored_bf16.precision.master = dtype::bf16;
  EXPECT_FALSE(allocates(build(stored_bf16), bf16_output / 8, category::communication));
  stored_bf16.parallel.float8_all_gather = true;
  EXPECT_TRUE(allocates(build(stored_bf16), f8_output / 8, category::communication));
  const exact_replay a(plain), b(f8);
  EXPECT_TRUE(a.well_formed && b.well_formed);
  EXPECT_LT(b.training_peak_of(category::parameters), a.training_peak_of(category::parameters));
}

// Forward casts the input and the weight of the running matmul; backward casts the output
// gradient twice, the input once more and the weight again. The widest layer sets the size:
// down (input 4096) in forward, gate / up (output 4096) in backward.
TEST(Float8, MatmulsHoldFloat8CopiesOfTheirOperands) {
  const bytes w = 4096 * 1024;
  const auto cast = build(float8_job(false));
  EXPECT_TRUE(allocates(cast, tokens * 4096 + w, category::temporary));                   // 6,291,456
  EXPECT_TRUE(allocates(cast, 2 * tokens * 4096 + tokens * 1024 + w, category::temporary));  // 8,912,896
  // Weights all-gathered in float8 need no cast.
  const auto gathered = build(float8_job(true));
  EXPECT_TRUE(allocates(gathered, tokens * 4096, category::temporary));
  EXPECT_TRUE(allocates(gathered, 2 * tokens * 4096 + tokens * 1024, category::temporary));
  EXPECT_FALSE(allocates(gathered, tokens * 4096 + w, category::temporary));
  // rowwise_with_gw_hp keeps the weight gradient's matmul in high precision.
  auto j = float8_job(false);
  j.precision.float8 = job::float8_recipe::rowwise_with_gw_hp;
  EXPECT_TRUE(allocates(build(j), tokens * 4096 + w, category::temporary));
  EXPECT_FALSE(allocates(build(j), 2 * tokens * 4096 + tokens * 1024 + w, category::temporary));
}

// Megatron-LM's Transformer Engine linears keep a float8 workspace of each weight from a step's
// first micro-batch on: the forward layout and the backward's, one byte a value each on Hopper
// (one layout on Blackwell with per-tensor scales), with MXFP8's scale per 32 values. Made once,
// kept; none when the parameters are float8 themselves (--fp8-param-gather).
TEST(Float8, TransformerEngineKeepsAFloat8WorkspaceOfEachWeight) {
  auto j = job_of(job::strategy::megatron, 8);
  j.parallel.distributed_optimizer = true;
  j.training.gradient_accumulation = 2;
  const auto workspaces = [](const program& p) {
    return std::count_if(p.events.begin(), p.events.end(), [](const auto& e) {
      return e.kind == event_kind::alloc && e.cat == category::parameters &&
             (e.size == 2 * block_linear || e.size == block_linear ||
              e.size == 2 * (block_linear + block_linear / 32));
    });
  };
  EXPECT_EQ(workspaces(build(j)), 0);
  j.precision.float8 = job::float8_recipe::tensorwise;
  j.hardware.compute_capability = 90;
  const auto hopper = build(j);
  EXPECT_TRUE(allocates(hopper, 2 * block_linear, category::parameters));
  EXPECT_EQ(workspaces(hopper), 4) << "one a block (4), on the first of 2 micro-batches only";
  j.hardware.compute_capability = 100;
  EXPECT_TRUE(allocates(build(j), block_linear, category::parameters));
  j.precision.float8 = job::float8_recipe::mxfp8;
  EXPECT_TRUE(allocates(build(j), 2 * (block_linear + block_linear / 32), category::parameters));
  j.parallel.float8_all_gather = true;
  EXPECT_EQ(workspaces(build(j)), 0);
  // No torchao casts: the weight is read from the workspace; backward quantizes the output
  // gradient in both layouts, the widest (gate / up, 4096 a token) setting the size.
  j.parallel.float8_all_gather = false;
  j.precision.float8 = job::float8_recipe::tensorwise;
  const auto te = build(j);
  EXPECT_TRUE(allocates(te, 2 * tokens * 4096, category::temporary));
  EXPECT_FALSE(allocates(te, tokens * 4096 + 4096 * 1024, category::temporary));
}

TEST(Float8, OffChangesNothing) {
  auto j = job_of(job::strategy::fsdp2, 8);
  const auto before = build(j);
  j.precision.float8 = job::float8_recipe::none;
  j.parallel.float8_all_gather = false;
  const auto after = build(j);
  ASSERT_EQ(before.events.size(), after.events.size());
  for (std::size_t i = 0; i < before.events.size(); ++i) EXPECT_EQ(before.events[i].size, after.events[i].size);
}

}  // namespace
}  // namespace vramscope::schedule
