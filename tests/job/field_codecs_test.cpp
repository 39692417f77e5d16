#include "job/field_codecs.hpp"

#include <gtest/gtest.h>

namespace vramscope::job::detail {
namespace {

raw_value text(const std::string& s) { return raw_value{s, {}, false}; }

TEST(FieldCodecs, IntegersCheckTypeAndRange) {
  const auto c = int_codec(1, 8);
  int v = 0;
  EXPECT_EQ(c.parse(text("4"), v), "");
  EXPECT_EQ(v, 4);
  EXPECT_EQ(c.parse(text("4.0"), v), "expected an integer, got \"4.0\"");
  EXPECT_EQ(c.parse(text("9"), v), "9 is out of range (expected 1 to 8)");
  EXPECT_EQ(c.parse(text("-1"), v), "-1 is out of range (expected 1 to 8)");
  EXPECT_EQ(c.parse(text("99999999999999999999"), v),
            "99999999999999999999 is out of range (expected 1 to 8)");
  EXPECT_EQ(v, 4);  // untouched on failure
}

TEST(FieldCodecs, CountsAcceptExponentFormWhenWhole) {
  std::uint64_t v = 0;
  EXPECT_EQ(parse_count_text("5e8", 1, 1'000'000'000'000, v), "");
  EXPECT_EQ(v, 500'000'000u);
  EXPECT_EQ(parse_count_text("500000000.0", 1, 1'000'000'000'000, v), "");
  EXPECT_EQ(parse_count_text("1.5", 1, 10, v), "expected a whole number, got \"1.5\"");
  EXPECT_EQ(parse_count_text("auto", 1, 10, v), "expected a whole number, got \"auto\"");
  EXPECT_EQ(parse_count_text("1e300", 1, 10, v), "1e300 is out of range (expected 1 to 10)");
}

TEST(FieldCodecs, BoolsSizesVersions) {
  bool b = false;
  EXPECT_EQ(parse_bool_text("Yes", b), "");
  EXPECT_TRUE(b);
  EXPECT_EQ(parse_bool_text("nope", b), "expected true or false, got \"nope\"");
  bytes size = 0;
  EXPECT_TRUE(parse_size_text("1.5GiB", size));
  EXPECT_EQ(size, 1536 * MiB);
  EXPECT_FALSE(parse_size_text(".", size));
  EXPECT_FALSE(parse_size_text(std::string(400, '9'), size));
  EXPECT_FALSE(parse_size_text("GiB", size));
  std::string version;
  const auto v = version_codec();
  EXPECT_EQ(v.parse(text("2.6.0.dev20241112"), version), "");
  EXPECT_EQ(v.parse(text("latest"), version), "expected a version such as \"2.6\", got \"latest\"");
  EXPECT_EQ(v.parse(text("2"), version), "expected a version such as \"2.6\", got \"2\"");
}

TEST(FieldCodecs, ReshardAndComputeCapabilityShowWhatTheyRead) {
  const auto r = reshard_codec();
  int n = -1;
  EXPECT_EQ(r.parse(text("false"), n), "");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(r.show(n), nlohmann::json(false));
  EXPECT_EQ(r.parse(text("8"), n), "");
  EXPECT_EQ(r.show(n), nlohmann::json(8));
  EXPECT_EQ(r.parse(text("some"), n), "expected true, false or a group size N >= 2, got \"some\"");
  const auto cc = compute_capability_codec();
  int value = 0;
  for (const char* s : {"9.0", "sm_90", "sm90", "90"}) {
    EXPECT_EQ(cc.parse(text(s), value), "") << s;
    EXPECT_EQ(value, 90) << s;
  }
  EXPECT_EQ(cc.show(86), nlohmann::json("8.6"));
  EXPECT_EQ(cc.parse(text("9.0.1"), value),
            "expected a compute capability such as \"9.0\" or \"sm_90\", got \"9.0.1\"");
}

TEST(FieldCodecs, ListsFromSequencesOrCommas) {
  const auto c = list_codec();
  std::vector<std::string> out;
  EXPECT_EQ(c.parse(text("q_proj, v_proj"), out), "");
  EXPECT_EQ(out, (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_EQ(c.parse(raw_value{"a,b", {"a", "b"}, true}, out), "");
  EXPECT_EQ(c.parse(text("a,,b"), out),
            "expected a list of names, got an empty name in \"a,,b\"");
}

TEST(FieldCodecs, DtypesAreLimitedToTheAllowedSet) {
  const auto c = dtype_codec({dtype::f32, dtype::bf16});
  dtype t = dtype::f32;
  EXPECT_EQ(c.parse(text("bfloat16"), t), "");
  EXPECT_EQ(t, dtype::bf16);
  EXPECT_EQ(c.parse(text("fp16"), t), "invalid value \"fp16\" (expected one of: fp32, bf16)");
  const auto q = optional_dtype_codec({dtype::nf4});
  std::optional<dtype> o = dtype::nf4;
  EXPECT_EQ(q.parse(text("none"), o), "");
  EXPECT_FALSE(o);
}

}  // namespace
}  // namespace vramscope::job::detail
