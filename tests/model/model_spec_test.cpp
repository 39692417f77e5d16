#include <vramscope/model/model_spec.hpp>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vramscope::model
