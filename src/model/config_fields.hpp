#pragma once
// Reading fields of a config.json object with vramscope's error conventions. A field_reader
// reads one JSON object (the top level, or a nested text_config / vision_config); the first
// problem any reader of a config meets is kept in a shared first_error, and later reads return
// harmless values (0, false) so builders can read every field and check once.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/model/config_reader.hpp>

namespace vramscope::model::detail {

using json = nlohmann::ordered_json;

/// The file being read: its name and text (for line numbers in messages).
struct config_source {
  std::string name;
  std::string_view text;
};

/// The first diagnostic of a config, shared by every reader of that config.
struct first_error {
  std::optional<diagnostic> error;
  std::vector<std::string> read_keys;  // top-level keys any reader looked up, present or not
  void set(diagnostic d) {
    if (!error) error = std::move(d);
  }
};

/// Reads the fields of one JSON object. `strict` readers require size fields (top-level
/// configs); non-strict ones take transformers' class defaults (nested sub-configs, which the
/// real files leave mostly implicit). Lifetime: `source`, `object` and `errors` must outlive it.
class field_reader {
 public:
  field_reader(const config_source& source, const json& object, std::string path, bool strict,
               first_error& errors, std::size_t text_offset = 0);

  /// A size-defining positive integer: required when strict, else `hf_default` when absent.
  std::uint64_t size(std::string_view key, std::uint64_t hf_default,
                     std::uint64_t max = max_config_dimension);
  /// A positive integer that is always required.
  std::uint64_t required(std::string_view key, std::uint64_t max = max_config_dimension);
  /// A positive integer with a default used when the field is absent or null.
  std::uint64_t count(std::string_view key, std::uint64_t fallback,
                      std::uint64_t max = max_config_dimension);
  /// A positive integer, or nullopt when absent or null.
  std::optional<std::uint64_t> optional_count(std::string_view key,
                                              std::uint64_t max = max_config_dimension);
  /// A non-negative integer up to `limit` (a layer count that may be 0), with a default used
  /// when absent or null.
  std::uint64_t at_most(std::string_view key, std::uint64_t fallback, std::uint64_t limit);
  /// A list of layer indices (non-negative integers below `limit`); empty when absent or null.
  std::vector<std::uint64_t> indices(std::string_view key, std::uint64_t limit);
  /// A boolean with a default used when absent or null.
  bool flag(std::string_view key, bool fallback);
  /// A probability (a dropout rate) from 0 to 1, with a default used when absent or null.
  double probability(std::string_view key, double fallback);
  /// A positive number (a soft-capping bound), or nullopt when absent or null.
  std::optional<double> positive(std::string_view key);
  /// A string with a default used when absent or null.
  std::string text(std::string_view key, std::string fallback);
  /// A list of strings ("architectures"); empty when absent or null.
  std::vector<std::string> texts(std::string_view key);
  /// A nested object (sub-config). Absent or null: `fallback` (which must outlive the reader).
  /// The child is strict only if `strict` is passed.
  field_reader child(std::string_view key, const json& fallback, bool strict);

  /// Records `message` about field `key` (located at its line when it can be found).
  void fail(std::string_view key, std::string message);
  /// fail(key, message) unless `condition` holds.
  void check(bool condition, std::string_view key, const std::string& message);

  [[nodiscard]] bool failed() const { return errors_->error.has_value(); }
  [[nodiscard]] bool strict() const { return strict_; }
  [[nodiscard]] bool has(std::string_view key) const;      // present and not null
  [[nodiscard]] bool is_null(std::string_view key) const;  // present with value null
  /// "text_config.hidden_size" for key "hidden_size" in the text_config reader.
  [[nodiscard]] std::string path_of(std::string_view key) const;
  [[nodiscard]] const config_source& source() const { return *source_; }
  [[nodiscard]] first_error& errors() const { return *errors_; }

 private:
  const json* find(std::string_view key) const;    // nullptr when absent or null
  void note_read(std::string_view key) const;      // records a top-level key in read_keys
  std::size_t locate(std::string_view key) const;  // text offset of the key, npos if unknown
  std::optional<std::uint64_t> integer(std::string_view key, std::uint64_t max);

  const config_source* source_;
  const json* object_;
  std::string path_;
  bool strict_;
  first_error* errors_;
  std::size_t text_offset_;
  bool in_text_ = true;  // false for a sub-config made of defaults (absent from the file)
};

/// The MLP-width tensors autograd keeps for the activation function transformers' ACT2FN
/// calls `name` (stack_shape::activation_saved), or nullopt for a name not modelled.
std::optional<std::uint32_t> activation_saved(std::string_view name);

/// Reads activation function field `key` (default `fallback`) as activation_saved; an unknown
/// name is an error naming the field and the known ones.
std::uint32_t read_activation(field_reader& config, std::string_view key, std::string fallback);

/// A diagnostic at byte `offset` of `source.text`: line, column and the line's text.
diagnostic diagnostic_at(const config_source& source, std::size_t offset, std::string message);

}  // namespace vramscope::model::detail
