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

/// Line `line` (1-based) of `text` without its line break; "" when out of range.
std::string line_at(std::string_view text, int line);

/// A location (message empty) at 1-based `line` and `column` of `text`.
diagnostic location(const std::string& source, std::string_view text, int line, int column);

/// A location at a yaml-cpp node (its marks are 0-based); `fallback` when the node has no mark.
diagnostic location(const std::string& source, std::string_view text, const YAML::Node& node,
                    const diagnostic& fallback);

/// Parses `text` as one YAML document; a syntax error is "yaml syntax error: ..." located at
/// its line and column.
result<YAML::Node> parse_yaml(const std::string& source, std::string_view text);

/// `where` with `message` filled in.
diagnostic at(diagnostic where, std::string message);

/// The location of `"key"` inside the JSON text, searching for each key of `path` in turn after
/// the previous one (nlohmann::json keeps no positions). Line 0 when not found.
diagnostic locate_json_key(const std::string& source, std::string_view text,
                           const std::vector<std::string>& path);

}  // namespace vramscope::job::detail
