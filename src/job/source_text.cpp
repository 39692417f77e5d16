#include "job/source_text.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

namespace vramscope::job::detail {

std::string line_at(std::string_view text, int line) {
  if (line < 1) return "";
  std::size_t start = 0;
  for (int i = 1; i < line; ++i) {
    const auto next = text.find('\n', start);
    if (next == std::string_view::npos) return "";
    start = next + 1;
  }
  std::string_view rest = text.substr(start);
  rest = rest.substr(0, rest.find('\n'));
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  return std::string(rest);
}

line_index::line_index(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
    starts_.push_back(i + 1);
}

std::string line_index::line(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > starts_.size()) return "";
  const std::size_t start = starts_[static_cast<std::size_t>(line) - 1];
  std::string_view rest = text_.substr(std::min(start, text_.size()));
  rest = rest.substr(0, rest.find('\n'));
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  return std::string(rest);
}

namespace {

// A position past the last line (a parser reaching the end of input) is shown at the end of
// the last line that has text, so the message keeps a context line.
template <typename Lines>
diagnostic locate(const std::string& source, const Lines& line_of, int line, int column) {
  std::string context = line_of(line);
  if (context.empty() && line > 1) {
    int previous = line - 1;
    while (previous > 1 && line_of(previous).empty()) --previous;
    if (std::string last = line_of(previous); !last.empty())
      return diagnostic{source, previous, static_cast<int>(last.size()) + 1, "", last};
  }
  return diagnostic{source, line, column, "", context};
}

}  // namespace

diagnostic location(const std::string& source, std::string_view text, int line, int column) {
  return locate(source, [&](int n) { return line_at(text, n); }, line, column);
}

diagnostic location(const std::string& source, const line_index& lines, int line, int column) {
  return locate(source, [&](int n) { return lines.line(n); }, line, column);
}

diagnostic location(const std::string& source, std::string_view text, const YAML::Node& node,
                    const diagnostic& fallback) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return fallback;
  return location(source, text, mark.line + 1, mark.column + 1);
}

diagnostic location(const std::string& source, const line_index& lines, const YAML::Node& node,
                    const diagnostic& fallback) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return fallback;
  return location(source, lines, mark.line + 1, mark.column + 1);
}

diagnostic at(diagnostic where, std::string message) {
  where.message = std::move(message);
  return where;
}

namespace {

// The line of a second document's start (`---` at the start of a line after the first
// document's content), 0 when the text is one document. yaml-cpp's Load reads the first document
// and drops the rest, where the YAML loaders the frameworks use (Python's yaml.safe_load,
// OmegaConf.load) stop on the stream: "expected a single document in the stream, but found
// another document" (PyYAML composer.py, get_single_node).
int second_document_line(std::string_view text) {
  bool content = false;
  int second = 0;
  for_each_line(text, [&](std::string_view line, int number) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool marker =
        line.starts_with("---") && (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    if (marker && content) {
      second = number;
      return false;
    }
    const auto first = line.find_first_not_of(" \t");
    if (marker) {
      // `--- value`: the document's content starts on its marker's line.
      const auto rest = line.find_first_not_of(" \t", 3);
      content = rest != std::string_view::npos && line[rest] != '#';
    } else if (first != std::string_view::npos && line[first] != '#' &&
               !(first == 0 && line[0] == '%')) {
      content = true;
    }
    return true;
  });
  return second;
}

// The file's first content line when it is stray text before a mapping: a line at column 0 with
// no ':' (no key), not a comment, list item, document marker or flow collection, followed without
// a blank line by the lines down to `error_line`, where the parser failed on a mapping value.
// 0 otherwise.
int stray_first_line(std::string_view text, int error_line) {
  int first = 0;
  bool joined = true;  // every line from `first` to error_line - 1 is content
  for_each_line(text, [&](std::string_view line, int number) {
    if (number >= error_line) return false;
    const auto at = line.find_first_not_of(" \t\r");
    const bool blank = at == std::string_view::npos || line[at] == '#';
    if (first == 0) {
      if (blank) return true;
      const char c = line[at];
      if (at != 0 || line.find(':') != std::string_view::npos || c == '-' || c == '[' || c == '{' ||
          c == '%' || c == '"' || c == '\'' || c == '&' || c == '!' || c == '|' || c == '>')
        return false;
      first = number;
      return true;
    }
    if (blank) joined = false;
    return true;
  });
  return first > 0 && first < error_line && joined ? first : 0;
}

}  // namespace

result<YAML::Node> parse_yaml(const std::string& source, std::string_view text) {
  if (const int line = second_document_line(text); line > 0)
    return at(location(source, text, line, 1),
              "yaml syntax error: a second YAML document starts here, and the file is read as "
              "one (Python's yaml.safe_load and OmegaConf.load stop: \"expected a single "
              "document in the stream\")");
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    // yaml-cpp's "illegal map value" is PyYAML's "mapping values are not allowed here".
    if (const int stray =
            e.msg == "illegal map value" ? stray_first_line(text, e.mark.line + 1) : 0;
        stray > 0)
      return at(location(source, text, stray, 1),
                fmt::format("yaml syntax error: line {} is no \"key: value\" pair (a pasted "
                            "command or title?), so YAML reads it and the lines after it as one "
                            "text, which cannot take the mapping value at line {} (\"mapping "
                            "values are not allowed here\", as Python's yaml.safe_load says); "
                            "remove it to plan the file",
                            stray, e.mark.line + 1));
    return at(location(source, text, e.mark.line + 1, e.mark.column + 1),
              "yaml syntax error: " + e.msg);
  }
}

}  // namespace vramscope::job::detail
