#pragma once
// Hjson, the JSON dialect DeepSpeed reads its config file in. DeepSpeedConfig.__init__
// (deepspeed/runtime/config.py) loads a config path with
//   hjson.load(open(config, "r"), object_pairs_hook=dict_raise_error_on_duplicate_keys)
// since DeepSpeed pull request #2783 ("Add hjson support for user configs", merged 2023-02-02).
// So `#`, `//` and `/* */` comments, commas left out at line ends, trailing commas, quoteless
// keys and strings, '''multi-line''' strings and a root object without its braces all make a
// valid DeepSpeed config, and a key repeated in one object is an error (the hook raises
// "Duplicate key in DeepSpeed config").
//
// The grammar follows the Hjson syntax at hjson.github.io/syntax.html. Every strict JSON text
// reads to the same value as nlohmann::json::parse gives it (numbers and quoted strings are
// decoded by nlohmann itself), with one difference: a repeated key is an error, not the last
// value.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <vramscope/core/result.hpp>

namespace vramscope::job::detail {

struct hjson_document {
  nlohmann::json value;
  /// Where each object key is written (1-based line and column of its first character: the
  /// quote of a quoted key), by its path of keys from the root. Keys inside arrays are left out.
  std::map<std::vector<std::string>, std::pair<int, int>> keys;
};

/// Objects and arrays nested deeper than this are refused (the parser recurses).
inline constexpr int max_hjson_depth = 512;

/// Parses `text` as Hjson. A syntax error is "json syntax error: ..." at its line and column in
/// `source`, saying what was expected; a repeated key is an error at its second occurrence.
result<hjson_document> parse_hjson(std::string_view text, const std::string& source);

}  // namespace vramscope::job::detail
