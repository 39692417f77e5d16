#pragma once
// How one value of the job spec is read from text and written back. A codec turns the text a
// user wrote (a YAML scalar, the right side of --set, a list) into a typed value, or explains
// what was expected; it also gives the value's canonical JSON form for the writers.
// Private to the job module.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/dtype.hpp>
#include <vramscope/core/units.hpp>
#include <vramscope/job/job_spec.hpp>

#include <nlohmann/json.hpp>

namespace vramscope::job::detail {

/// A value as written: one scalar, or a list of scalars (YAML sequence; "a,b" from --set).
struct raw_value {
  std::string text;                // the scalar, or the list items joined by ","
  std::vector<std::string> items;  // list items when is_list
  bool is_list = false;
};

/// Reads and writes values of type T. `parse` returns "" on success, otherwise the problem
/// ("expected an integer, got \"four\""); it leaves `out` untouched on failure.
template <typename T>
struct codec {
  std::string expects;  // "an integer", "true or false", ... used in type errors
  std::string allowed;  // for `vramscope keys`: expects with its range ("an integer, 1 to 64")
  std::vector<std::string> choices;  // the closed set of values, for completions; else empty
  std::function<std::string(const raw_value&, T&)> parse;
  std::function<nlohmann::json(const T&)> show;
};

codec<int> int_codec(int min, int max);
codec<std::uint64_t> count_codec(std::uint64_t min, std::uint64_t max);  // accepts 5e8
codec<double> real_codec(double min_exclusive, double max);
/// A number as real_codec reads it, or `unset_word` (unset: the framework's own default
/// applies; "default" unless the field's unset value has a name of its own).
codec<std::optional<double>> optional_real_codec(double min_exclusive, double max,
                                                 std::string unset_word = "default");
/// A probability (a dropout rate): a number from 0 to 1.
codec<double> probability_codec();
codec<bool> bool_codec();
/// true, false, or `default` (unset: derived from the rest of the job).
codec<std::optional<bool>> optional_bool_codec();
codec<std::string> string_codec(bool allow_empty = false);  // empty: "not given"
codec<std::string> choice_codec(std::vector<std::string> allowed);
codec<std::string> version_codec(bool allow_empty = false);  // empty: "not given"
codec<bytes> size_codec(bytes min = 0);
/// hardware.margin: "default" (5 % and at least 1 GiB), a share of usable memory ("10%", at
/// most 50 %) or a size ("2GiB"; "0" for none).
codec<safety_margin> margin_codec();
codec<dtype> dtype_codec(std::vector<dtype> allowed);
codec<std::optional<dtype>> optional_dtype_codec(std::vector<dtype> allowed);
codec<std::vector<std::string>> list_codec(bool allow_empty = false);  // "": []
codec<int> reshard_codec();             // true | false | N >= 2
codec<int> compute_capability_codec();  // "9.0" <-> 90

/// Enumerations, through job_names.hpp.
template <typename Enum>
codec<Enum> enum_codec();

/// Scalar parsers shared with the importers. Each returns "" or the problem.
std::string parse_bool_text(std::string_view text, bool& out);
std::string parse_count_text(std::string_view text, std::uint64_t min, std::uint64_t max,
                             std::uint64_t& out);

/// parse_bytes, guarded against inputs it cannot take ("." or a very long number): false for
/// anything that is not a size.
bool parse_size_text(std::string_view text, bytes& out);


/// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace vramscope::job::detail
