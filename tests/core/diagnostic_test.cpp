#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>

#include <gtest/gtest.h>

namespace vramscope {
namespace {

TEST(Diagnostic, PrintsLocationContextAndCaret) {
  diagnostic d{"job.yaml", 12, 5, "unknown key \"optimiser\"", "    optimiser: adamw"};
  EXPECT_EQ(d.to_string(),
            "job.yaml:12:5: unknown key \"optimiser\"\n"
            "    optimiser: adamw\n"
            "    ^ near here");
}

// An input file's bytes reach the terminal through messages: escape sequences in them (here
// one that would retitle the window, a CR, and the C1 CSI U+009B) are shown, not obeyed. The
// caret still points under the character it names.
TEST(Diagnostic, ShowsControlCharactersFromInputsInsteadOfSendingThem) {
  diagnostic d{"job\x1b.yaml", 2, 9, "unknown key \"\x1b]0;pwned\x07x\"\nsecond line",
               "a\x1b[2Jb\r: \xc2\x9b" "1m"};
  EXPECT_EQ(d.to_string(),
            "job\\x1b.yaml:2:9: unknown key \"\\x1b]0;pwned\\x07x\"\nsecond line\n"
            "a\\x1b[2Jb\\x0d: \\u009b1m\n"
            "              ^ near here");
}

TEST(Diagnostic, OmitsUnknownParts) {
  EXPECT_EQ((diagnostic{"a.json", 0, 0, "no such file", ""}.to_string()), "a.json: no such file");
  EXPECT_EQ((diagnostic{"", 0, 0, "bad", ""}.to_string()), "bad");
  EXPECT_EQ((diagnostic{"x", 3, 0, "bad", ""}.to_string()), "x:3: bad");
}

TEST(Diagnostic, DidYouMeanFindsCloseWord) {
  EXPECT_EQ(did_you_mean("optimiser", {"optimizer", "model", "training"}), "optimizer");
  EXPECT_EQ(did_you_mean("zzzzzz", {"optimizer", "model"}), "");
}

TEST(Result, HoldsValueOrError) {
  result<int> good = 3;
  ASSERT_TRUE(good);
  EXPECT_EQ(*good, 3);
  EXPECT_THROW((void)good.error(), std::logic_error);
  result<int> bad = error_at("f", "broken");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "broken");
  EXPECT_THROW((void)bad.value(), std::logic_error);
}

}  // namespace
}  // namespace vramscope
