// `vramscope compare`: ranges, duplicate keys, messages that name --vary, and rows that do not
// fit showing what they need.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/cli.hpp"

namespace vramscope::cli {
namespace {

using vramscope::testing::invoke;

const std::string example = std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/llama-3.1-8b-fsdp2.yaml";

using namespace vramscope::testing::html;

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

TEST(CompareHtml, DrawsEveryRowAgainstTheCapacity) {
  const std::string html = scratch_html("vramscope_compare_test.html");
  std::filesystem::remove(html);
  const auto r = invoke({"compare", example, "--vary", "training.micro_batch=1..5", "--html", html});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string page = read_page(html);
  expect_self_contained(page);
  EXPECT_NE(page.find("<p class=\"verdict fits\">3 of 5 rows fit</p>"), std::string::npos) << page;
  EXPECT_EQ(count_of(page, "<rect class=\"row fits\""), 3u);
  EXPECT_EQ(count_of(page, "<rect class=\"row nofit\""), 2u);
  EXPECT_EQ(count_of(page, "<line class=\"capacity\""), 1u);
  EXPECT_NE(page.find("capacity 79.18 GiB"), std::string::npos);
  // A row that does not fit is drawn to what it needs, as the table says.
  EXPECT_NE(page.find("training.micro_batch=4: needs 83.28 GiB, short by 4.10 GiB"),
            std::string::npos);
  std::filesystem::remove(html);
}

TEST(CompareHtml, UnwritablePathIsBadInputNamingIt) {
  const auto r = invoke({"compare", example, "--vary", "training.micro_batch=1", "--html",
                         "/nonexistent/dir/compare.html"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("vramscope compare: /nonexistent/dir/compare.html"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace vramscope::cli
