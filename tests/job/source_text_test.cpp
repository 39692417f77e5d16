#include "job/source_text.hpp"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <string>

namespace vramscope::job::detail {
namespace {

// The index gives what line_at gives, for every line, the ends and CRLF included.
TEST(LineIndex, AgreesWithLineAt) {
  for (const std::string text : {"", "a", "a\n", "a\nbb\r\n\nccc", "\n\n", "x\r\ny\r\n"}) {
    const line_index lines(text);
    for (int n = -1; n <= 6; ++n) EXPECT_EQ(lines.line(n), line_at(text, n)) << n << " " << text;
    for (int n = 1; n <= 5; ++n) {
      const auto a = location("f", text, n, 2), b = location("f", lines, n, 2);
      EXPECT_EQ(a.to_string(), b.to_string()) << n;
    }
  }
}

// Every key of a job is located; with line_at that walked the text from its start for each,
// 100,000 keys took minutes. The index makes it one pass: this reads 200,000 lines' positions.
TEST(LineIndex, LocatesManyLinesInOnePass) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "key" + std::to_string(i) + ": 1\n";
  const line_index lines(text);
  std::size_t total = 0;
  for (int n = 1; n <= 200000; ++n) total += lines.line(n).size();
  EXPECT_EQ(lines.line(200000), "key199999: 1");
  EXPECT_GT(total, 200000u * 8);
}

// The frameworks' YAML loaders (yaml.safe_load, OmegaConf.load) take one document and stop on a
// second; yaml-cpp's Load would read the first and drop the rest. A leading `---` (and comments
// before it) still make one document.
TEST(ParseYaml, ASecondDocumentIsASyntaxErrorAtItsStart) {
  auto two = parse_yaml("c.yaml", "a: 1\nb: 2\n\n---\n# notes\nc: 3\n");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().line, 4);
  EXPECT_NE(two.error().message.find("a second YAML document starts here"), std::string::npos)
      << two.error().message;
  auto empty_after = parse_yaml("c.yaml", "a: 1\n--- \n");
  ASSERT_FALSE(empty_after);
  EXPECT_EQ(empty_after.error().line, 2);
  for (const std::string one : {"---\na: 1\n", "# header\n---\na: 1\n", "%YAML 1.1\n---\na: 1\n",
                                "a: |\n  ---\n  text\n", "a: '---'\n", "a: 1\n---x: 2\n"}) {
    auto parsed = parse_yaml("c.yaml", one);
    EXPECT_TRUE(parsed) << one;
  }
}

}  // namespace
}  // namespace vramscope::job::detail
