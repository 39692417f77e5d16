// The DeepSpeed configs of tests/data/realworld/deepspeed/ (sources in SOURCES.md there).
#include <vramscope/import/importers.hpp>

#include <gtest/gtest.h>

namespace vramscope::job {
namespace {

std::string corpus(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/realworld/deepspeed/" + name;
}

TEST(RealworldDeepSpeed, LlamaFactoryZero3AllAuto) {
  auto plain = import_config(corpus("llamafactory_ds_z3_config.json"));
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_EQ(plain->job.parallel.kind, strategy::zero3);
  EXPECT_EQ(plain->job.precision.params, dtype::f32);
  EXPECT_EQ(plain->job.training.micro_batch, 8u);
  EXPECT_EQ(plain->hidden_size_autos.size(), 2u);
  trainer_args bf16;
  bf16.bf16 = true;
  auto on = import_config(corpus("llamafactory_ds_z3_config.json"), bf16);
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(on->job.precision.params, dtype::bf16);
  EXPECT_EQ(on->job.precision.master, dtype::f32);
}

TEST(RealworldDeepSpeed, LlamaFactoryZero2Offload) {
  trainer_args fp16;
  fp16.fp16 = true;
  auto imported = import_config(corpus("llamafactory_ds_z2_offload_config.json"), fp16);
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::zero2);
  EXPECT_TRUE(imported->job.parallel.offload_optimizer);
  EXPECT_EQ(imported->job.parallel.reduce_bucket_size, 500'000'000u);
  EXPECT_EQ(imported->job.precision.params, dtype::f16);
  EXPECT_TRUE(imported->hidden_size_autos.empty());
}

}  // namespace
}  // namespace vramscope::job
