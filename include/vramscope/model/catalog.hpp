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
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::model {

/// One catalog entry.
struct preset {
  std::string name;                        // lower-case: "llama-3.1-8b"
  std::string hf_id;                       // "meta-llama/Llama-3.1-8B"; the origin for non-HF ones
  std::vector<std::string> hf_aliases;     // other ids with the same architecture (Instruct, ...)
  std::vector<std::string> aliases;        // framework names of it ("llama3_3_70b", "llama3 70B")
  std::uint64_t published_parameters = 0;  // the count the checkpoint's publisher gives
  std::string parameters_source;           // where that count comes from
  std::string description;                 // one line
};

/// The catalog in file order (built-in entries first, then additions from VRAMSCOPE_DATA_DIR).
/// Fails when catalog.json is malformed (a built-in one never is: a test reads it) or when
/// VRAMSCOPE_DATA_DIR names something that is not a folder.
result<std::vector<preset>> presets();

/// A model name reduced to what tells models apart: lower case, the separators - _ . / and
/// spaces dropped, and trailing release words dropped ("Instruct", "Base", "chat", "hf", "it",
/// a four-digit date such as "2507"). "llama3_3_70b", "Llama-3.3-70B-Instruct" and
/// "llama3.3 70B" all give "llama3370b"; "gemma-2-2b" gives "gemma22b" and "gemma-2b" "gemma2b".
/// A size times an expert count is one part, whichever way it is spelt: "17B-16E", "17b_16e",
/// "17Bx16E" and "17bx16" all give "17bx16e".
std::string model_name_key(std::string_view name);

/// The presets of the family `name` belongs to (the leading letters of its key: "gemma2_27b"
/// -> the gemma presets), for a message when `name` itself has no preset. Never a guess at
/// which one it is: a different size is a different model.
std::vector<std::string> presets_of_family(std::string_view name);

/// The preset that `name` names: a preset name in any letter case ("Llama-3.1-8B"), a preset's
/// Hugging Face id ("meta-llama/Llama-3.1-8B"), or any spelling whose model_name_key is the key
/// of a preset's name, of one of its aliases (framework builder and flavor names such as
/// torchtune's "llama3_3_70b" or torchtitan's "llama4 17bx16e") or of a Hugging Face id's name
/// part ("Qwen/Qwen3-4B-Instruct-2507" -> qwen3-4b). Returns the preset's own name, or nothing.
std::optional<std::string> preset_named(const std::string& name);

/// The preset a framework's model name means: torchtune's builder names and torchtitan's
/// "<name> <flavor>" resolve through preset_named, except where the framework's family word means
/// another release than it does elsewhere. torchtitan's model `llama3` is Llama 3.1 (its README:
/// "supports training Llama 3.1 (8B, 70B, 405B)", the tokenizer it downloads is
/// meta-llama/Llama-3.1-8B's), where torchtune's llama3_8b is Llama 3 (models/llama3/
/// _model_builders.py: max_seq_len 8192, no RoPE scaling; llama3_1_8b is 3.1's). `framework` is
/// "torchtune" or "torchtitan"; any other resolves as preset_named.
std::optional<std::string> framework_preset(std::string_view framework, const std::string& name);

/// The top-level keys of the built-in presets' config.json files whose model_type is
/// `model_type`: keys the family's published configs carry, read or not (dropout rates, token
/// ids). A key among them is a real key of that family, never a misspelling of another.
std::vector<std::string> preset_config_keys(std::string_view model_type);

/// The config.json text of preset `name` (any name preset_named accepts). Fails with a message listing the presets (and a
/// did-you-mean) when there is no such preset.
result<std::string> preset_config(const std::string& name);

/// Loads preset `name` (any name preset_named accepts): parses its config; the result's
/// `name` is the preset's own name.
result<model_spec> load_preset(const std::string& name);

}  // namespace vramscope::model
