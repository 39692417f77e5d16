#pragma once
// Locations in input text, for diagnostics: the offending line and a 1-based line and column.
// Shared by the YAML reader, the overrides and the importers. Private to the job module.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>

namespace YAML {
class Node;
}

namespace vramscope::job::detail {

/// Calls `visit(line, number)` for each line of `text`, numbered from 1 and without its '\n',
/// until `visit` returns false; a '\n' that ends the text starts no further line. The line walk
/// of the scans of raw text (format detection, header comments, shell lines, YAML documents).
template <class Visit>
void for_each_line(std::string_view text, Visit&& visit) {
  int number = 0;
  for (std::string_view rest = text; !rest.empty();) {
    const auto end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!visit(line, ++number)) return;
  }
}

/// Line `line` (1-based) of `text` without its line break; "" when out of range.
std::string line_at(std::string_view text, int line);

/// The start of every line of a text, found once, so that a reader locating each of many keys
/// spends constant time a key (line_at walks the text from its start on every call). The text
/// must outlive the index.
class line_index {
 public:
  explicit line_index(std::string_view text);
  /// Line `line` (1-based) without its line break; "" when out of range. As line_at.
  std::string line(int line) const;
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

/// A location (message empty) at 1-based `line` and `column` of `text`.
diagnostic location(const std::string& source, std::string_view text, int line, int column);

/// As above, through an index of the text's lines.
diagnostic location(const std::string& source, const line_index& lines, int line, int column);

/// A location at a yaml-cpp node (its marks are 0-based); `fallback` when the node has no mark.
diagnostic location(const std::string& source, std::string_view text, const YAML::Node& node,
                    const diagnostic& fallback);
diagnostic location(const std::string& source, const line_index& lines, const YAML::Node& node,
                    const diagnostic& fallback);

/// Parses `text` as one YAML document; a syntax error is "yaml syntax error: ..." located at
/// its line and column.
result<YAML::Node> parse_yaml(const std::string& source, std::string_view text);

/// `where` with `message` filled in.
diagnostic at(diagnostic where, std::string message);

}  // namespace vramscope::job::detail
