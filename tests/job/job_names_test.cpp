#include <vramscope/job/job_names.hpp>

#include <gtest/gtest.h>

namespace vramscope::job {
namespace {

TEST(JobNames, CanonicalNamesRoundTrip) {
  for (const auto& name : enum_names<strategy>())
    EXPECT_EQ(name_of(*parse_enum<strategy>(name)), name);
  for (const auto& name : enum_names<optimizer_kind>())
    EXPECT_EQ(name_of(*parse_enum<optimizer_kind>(name)), name);
  EXPECT_EQ(enum_names<sharding>(),
            (std::vector<std::string>{"full_shard", "shard_grad_op", "no_shard", "hybrid_shard"}));
  EXPECT_EQ(enum_names<checkpointing>(),
            (std::vector<std::string>{"none", "full", "selective", "op", "core_attention"}));
}

TEST(JobNames, ParsingForgivesCaseSeparatorsAndAliases) {
  EXPECT_EQ(parse_enum<strategy>("FSDP-2"), strategy::fsdp2);
  EXPECT_EQ(parse_enum<strategy>("fully_shard"), strategy::fsdp2);
  EXPECT_EQ(parse_enum<strategy>("Zero_3"), strategy::zero3);
  EXPECT_EQ(parse_enum<sharding>("FULL_SHARD"), sharding::full_shard);
  EXPECT_EQ(parse_enum<prefetch>("BACKWARD_PRE"), prefetch::pre);
  EXPECT_EQ(parse_enum<prefetch>("NO_PREFETCH"), prefetch::none);
  EXPECT_EQ(parse_enum<attention_impl>("flash_attention_2"), attention_impl::flash);
  EXPECT_EQ(parse_enum<optimizer_kind>("adamw8bit"), optimizer_kind::adamw_8bit);
  EXPECT_EQ(parse_enum<loss_impl>("liger"), loss_impl::liger_fused);
  EXPECT_EQ(parse_enum<checkpointing>("true"), checkpointing::full);
}

TEST(JobNames, RejectsUnknownAndAmbiguousNames) {
  EXPECT_FALSE(parse_enum<strategy>("fsdp"));
  EXPECT_FALSE(parse_enum<strategy>("zero"));
  EXPECT_FALSE(parse_enum<strategy>(""));
  EXPECT_FALSE(parse_enum<weight_load>("rank1"));
}

}  // namespace
}  // namespace vramscope::job
