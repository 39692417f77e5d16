#include <vramscope/model/model_spec.hpp>

#include <gtest/gtest.h>

#include "support/tiny_model.hpp"

namespace vramscope::model {
namespace {

model_spec two_units() {
  model_spec spec;
  spec.units = {{"a", unit_kind::embedding, 0, 0}, {"b", unit_kind::block, 0, 0}};
  spec.tensors = {{"a.weight", {10, 4}, dtype::bf16, "a"},
                  {"b.weight", {4, 4}, dtype::f32, "b"},
                  {"b.bias", {4}, dtype::f32, "b"}};
  recompute_units(spec);
  return spec;
}

TEST(ModelSpec, TotalsAndUnits) {
  const auto spec = two_units();
  EXPECT_EQ(spec.parameters(), 60u);
  EXPECT_EQ(spec.size(), 40u * 2u + 20u * 4u);
  EXPECT_EQ(spec.units[0].parameters, 40u);
  EXPECT_EQ(spec.units[1].size, 80u);
  EXPECT_EQ(spec.largest_unit().name, "a");
}

TEST(ModelSpec, RecomputeRejectsUnknownUnits) {
  auto spec = two_units();
  spec.tensors[0].unit = "c";
  EXPECT_THROW(recompute_units(spec), std::logic_error);
}

TEST(ModelSpec, FormatsCountsShapesAndKinds) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(8030261248), "8,030,261,248");
  EXPECT_EQ(format_shape({}), "[]");
  EXPECT_EQ(format_shape({4096, 128256}), "[4096, 128256]");
  EXPECT_EQ(name_of(unit_kind::vision_block), "vision_block");
  EXPECT_EQ(name_of(unit_kind::projector), "projector");
}

TEST(ModelSpec, LargestUnitOfNothingIsABug) {
  model_spec empty;
  EXPECT_THROW((void)empty.largest_unit(), std::logic_error);
}

// LitGPT's GPT has a head of its own where a checkpoint ties it: the tied tiny model with its
// head made its own is the untied tiny model, tensor for tensor and unit for unit.
TEST(ModelSpec, WithOwnHeadGivesATiedModelTheHeadWeight) {
  const auto tied = testing::tiny_llama_tied();
  const auto own = with_own_head(tied);
  EXPECT_FALSE(own.text.tied_embeddings);
  EXPECT_EQ(own.parameters(), tied.parameters() + 32000u * 1024u);
  EXPECT_EQ(own, testing::tiny_llama());
  // An untied model, or one without the embedding's table, comes back as it is.
  EXPECT_EQ(with_own_head(testing::tiny_llama()), testing::tiny_llama());
  auto odd = tied;
  odd.text.hidden = 999;
  EXPECT_EQ(with_own_head(odd), odd);
}

}  // namespace
}  // namespace vramscope::model
