#pragma once
// The built-in preset catalog: one real config.json per preset under data/models/, plus
// data/models/catalog.json with each preset's Hugging Face id, published parameter count and
// a description. The files are compiled into the binary, so presets work from any directory;
// when the environment variable VRAMSCOPE_DATA_DIR is set, $VRAMSCOPE_DATA_DIR/models/ is
// consulted first (a config or catalog entry there replaces the built-in one of that name,
// and new names are added).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::model {

/// One catalog entry.
struct preset {
  std::string name;                        // lower-case: "llama-3.1-8b"
  std::string hf_id;                       // "meta-llama/Llama-3.1-8B"; the origin for non-HF ones
  std::vector<std::string> hf_aliases;     // other ids with the same architecture (Instruct, ...)
  std::uint64_t published_parameters = 0;  // the count the checkpoint's publisher gives
  std::string parameters_source;           // where that count comes from
  std::string description;                 // one line
};

/// The catalog in file order (built-in entries first, then additions from VRAMSCOPE_DATA_DIR).
/// Fails when catalog.json is malformed (a built-in one never is: a test reads it) or when
/// VRAMSCOPE_DATA_DIR names something that is not a folder.
result<std::vector<preset>> presets();

/// The preset that `name` names, in any letter case: a preset name ("Llama-3.1-8B") or a
/// preset's Hugging Face id ("meta-llama/Llama-3.1-8B"). Returns the preset's own name, or
/// nothing when no preset has that name or id.
std::optional<std::string> preset_named(const std::string& name);

/// The config.json text of preset `name` (any name preset_named accepts). Fails with a message listing the presets (and a
/// did-you-mean) when there is no such preset.
result<std::string> preset_config(const std::string& name);

/// Loads preset `name` (any name preset_named accepts): parses its config; the result's
/// `name` is the preset's own name.
result<model_spec> load_preset(const std::string& name);

}  // namespace vramscope::model
