// `vramscope compare`: ranges, duplicate keys, messages that name --vary, and rows that do not
// fit showing what they need.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"

namespace vramscope::cli {
namespace {

using vramscope::testing::invoke;

const std::string example = std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/llama-3.1-8b-fsdp2.yaml";

TEST(Compare, RangeGivesOneRowPerValue) {
  const auto r = invoke({"compare", example, "--vary", "training.micro_batch=1..3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2]["settings"][0], "training.micro_batch=3");
}

TEST(Compare, DuplicateVaryKeyIsRefused) {
  const auto r = invoke({"compare", example, "--vary", "parallel.tp=1", "--vary", "parallel.tp=2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope compare: --vary: \"parallel.tp\" given twice (list its values in "
                   "one --vary parallel.tp=...)\n");
}

TEST(Compare, UnknownVaryKeyBlamesVary) {
  const auto r = invoke({"compare", example, "--vary", "micro_batch=1,2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("vramscope compare: --vary:", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("--set"), std::string::npos) << r.err;
}

TEST(Compare, RowThatDoesNotFitShowsWhatItNeeds) {
  const auto r = invoke({"compare", example, "--vary", "training.micro_batch=1,64", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0]["fits"].get<bool>());
  const auto& big = rows[1];
  EXPECT_FALSE(big["fits"].get<bool>());
  // 64 sequences of 8k tokens need far more than the 80 GiB the OOM state shows.
  EXPECT_GT(big["need"].get<std::int64_t>(), big["device_at_oom"].get<std::int64_t>());
  EXPECT_EQ(big["device"], big["need"]);
  EXPECT_GT(big["shortfall"].get<std::int64_t>(), 0);
  const auto text = invoke({"compare", example, "--vary", "training.micro_batch=1,64"});
  EXPECT_NE(text.out.find("no, short by "), std::string::npos) << text.out;
}

}  // namespace
}  // namespace vramscope::cli
