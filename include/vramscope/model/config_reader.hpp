#pragma once
// Reading a Hugging Face style config.json into a tensor inventory. The reader knows, per
// model_type, which tensors the real checkpoint holds (names, shapes, order) and which
// defaults transformers applies when a field is absent, so that the totals equal the real
// checkpoints' parameter counts to the parameter. docs/models.md lists the families, their
// required fields and their defaults.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::model {

/// Largest value accepted for a width, vocabulary or count field (2^24). Bigger values are no
/// real model and would only make the inventory overflow.
inline constexpr std::uint64_t max_config_dimension = std::uint64_t{1} << 24;

/// Largest accepted num_hidden_layers (and similar depth fields).
inline constexpr std::uint64_t max_config_layers = 1024;

/// Most tensors an inventory may hold; a config asking for more is refused.
inline constexpr std::size_t max_inventory_tensors = 200'000;

/// The model_type values the reader understands, sorted: "gemma", "gemma2", ..., "siglip".
std::vector<std::string> supported_model_types();

/// Parses the text of a config.json. `source` names it in messages ("path/config.json").
/// The result's `name` is `source`; callers may rename it.
/// Fails, with a diagnostic naming `source` and where known the line, column and the
/// offending line, on: invalid JSON; a top level that is not an object; a missing or unknown
/// model_type (the message lists the supported ones); a missing required field (named with its
/// path, e.g. "text_config.hidden_size"); a field of the wrong type or out of range; numbers
/// that cannot describe a model (heads not dividing the width, more kv heads than heads, ...);
/// an inventory above max_inventory_tensors or 10^15 parameters.
/// Pure function of its arguments; thread-safe; never throws on any input.
result<model_spec> parse_config_json(std::string_view text, std::string source);

/// The top-level keys of a config and whether the reader looked at them: a config written by
/// hand (a job's inline `model:` map) can then be told that a key is misspelt.
struct config_keys {
  std::vector<std::string> read;    // keys the family reads (given or not), in reading order
  std::vector<std::string> unread;  // keys of the config the reader never looked at
};

/// parse_config_json that also fills `keys` (when the parse succeeds).
result<model_spec> parse_config_json(std::string_view text, std::string source, config_keys& keys);

/// Reads `path` (at most 16 MiB) and parses it with parse_config_json.
result<model_spec> read_config_json(const std::string& path);

}  // namespace vramscope::model
