#include <vramscope/model/config_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include <vramscope/core/io.hpp>

#include "model/families.hpp"

namespace vramscope::model {

namespace detail {

namespace {

constexpr std::array<family, 30> family_table{{
    {"bert", &build_bert},
    {"clip", &build_clip},
    {"clip_text_model", &build_clip},
    {"clip_vision_model", &build_clip},
    {"deepseek_v2", &build_deepseek},
    {"deepseek_v3", &build_deepseek},
    {"falcon", &build_falcon},
    {"gemma", &build_decoder_family},
    {"gemma2", &build_decoder_family},
    {"gemma3", &build_gemma3},
    {"gemma3_text", &build_decoder_family},
    {"gpt2", &build_gpt2},
    {"gpt_neox", &build_gpt_neox},
    {"llama", &build_decoder_family},
    {"llama4", &build_llama4},
    {"llama4_text", &build_decoder_family},
    {"mistral", &build_decoder_family},
    {"mixtral", &build_decoder_family},
    {"paligemma", &build_paligemma},
    {"phi", &build_phi},
    {"phi3", &build_decoder_family},
    {"pi0", &build_pi0},
    {"qwen2", &build_decoder_family},
    {"qwen2_moe", &build_decoder_family},
    {"qwen3", &build_decoder_family},
    {"qwen3_moe", &build_decoder_family},
    {"siglip", &build_siglip},
    {"siglip_vision_model", &build_siglip},
    {"stablelm", &build_stablelm},
    {"t5", &build_t5},
}};

// nlohmann's messages read "[json.exception.parse_error.101] parse error at line 1, column 9:
// syntax error while parsing value - ..."; the position is reported by us, so keep the rest.
std::string json_reason(const std::string& what) {
  const std::size_t column = what.find("column ");
  const std::size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

const family* find_family(std::string_view type) {
  for (const auto& f : family_table)
    if (f.model_type == type) return &f;
  return nullptr;
}

std::optional<std::string> read_model_type(field_reader& config) {
  if (!config.has("model_type")) {
    // Pointed at the object that lacks it, so the message has a position like every other.
    const std::size_t object = config.source().text.find('{');
    config.errors().set(diagnostic_at(config.source(), object == std::string_view::npos ? 0 : object,
                                      "missing required field \"model_type\" (a string such as "
                                      "\"llama\"): not a Hugging Face config.json?"));
    return std::nullopt;
  }
  std::string type = config.text("model_type", "");
  if (config.failed()) return std::nullopt;
  if (find_family(type)) return type;
  std::string message = fmt::format("unknown model_type \"{}\"; supported: {}", type,
                                    fmt::join(supported_model_types(), ", "));
  const std::string guess = did_you_mean(type, supported_model_types());
  if (!guess.empty()) message += fmt::format(" (did you mean \"{}\"?)", guess);
  config.fail("model_type", std::move(message));
  return std::nullopt;
}

}  // namespace

std::span<const family> families() { return family_table; }

std::string read_architecture(field_reader& config, std::string_view type,
                              std::initializer_list<std::string_view> known,
                              std::string_view fallback) {
  const auto named = config.texts("architectures");
  if (named.empty()) return std::string(fallback);
  if (std::find(known.begin(), known.end(), named.front()) != known.end()) return named.front();
  config.fail("architectures",
              fmt::format("field \"architectures\" names {}, which vramscope does not read for "
                          "model_type \"{}\" (its heads are not modelled); it reads {}",
                          named.front(), type, fmt::join(known, ", ")));
  return std::string(fallback);
}

dtype read_dtype(field_reader& config) {
  static const json empty = json::object();
  const char* key = config.has("torch_dtype") ? "torch_dtype" : "dtype";
  std::string name = config.text(key, "");
  if (name.empty()) {
    field_reader text = config.child("text_config", empty, false);
    key = "torch_dtype";
    name = text.text(key, "float32");
    if (auto t = parse_dtype(name)) return *t;
    text.fail(key, fmt::format("field \"{}\" is \"{}\", not a dtype (expected float32, "
                               "bfloat16, float16, ...)",
                               text.path_of(key), name));
    return dtype::f32;
  }
  if (auto t = parse_dtype(name)) return *t;
  config.fail(key, fmt::format("field \"{}\" is \"{}\", not a dtype (expected float32, "
                               "bfloat16, float16, ...)",
                               key, name));
  return dtype::f32;
}

}  // namespace detail

std::vector<std::string> supported_model_types() {
  std::vector<std::string> types;
  for (const auto& f : detail::families()) types.emplace_back(f.model_type);
  return types;
}

result<model_spec> parse_config_json(std::string_view text, std::string source) {
  config_keys ignored;
  return parse_config_json(text, std::move(source), ignored);
}

result<model_spec> parse_config_json(std::string_view text, std::string source, config_keys& keys) {
  using detail::json;
  const detail::config_source src{source, text};
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return detail::diagnostic_at(src, at, "invalid JSON: " + detail::json_reason(e.what()));
  } catch (const json::exception& e) {
    return error_at(source, std::string("invalid JSON: ") + e.what());
  }
  if (!root.is_object())
    return error_at(
        source, fmt::format("expected a JSON object at the top level, got {}", root.type_name()));
  detail::first_error errors;
  detail::field_reader config(src, root, "", true, errors);
  // DeepSeek's own inference config (no model_type; "dim", "n_layers" and a kv latent) is a
  // DeepSeek-V3 by another spelling.
  const bool deepseek_inference = !config.has("model_type") && config.has("dim") &&
                                  config.has("n_layers") && config.has("kv_lora_rank");
  const auto type = deepseek_inference ? std::optional<std::string>("deepseek_v3")
                                       : detail::read_model_type(config);
  const dtype type_of_weights = detail::read_dtype(config);
  if (errors.error) return *errors.error;
  detail::inventory_builder out(type_of_weights);
  detail::find_family(*type)->build(config, out, *type);
  if (errors.error) return *errors.error;
  auto spec = out.finish(source);
  if (!spec) return spec;
  spec->name = source;
  spec->model_type = *type;
  keys.read = errors.read_keys;
  for (const auto& item : root.items())
    if (std::find(keys.read.begin(), keys.read.end(), item.key()) == keys.read.end())
      keys.unread.push_back(item.key());
  if (deepseek_inference)
    spec->notes.push_back(error_at(source, "DeepSeek's inference config format (no model_type): "
                                           "read as deepseek_v3"));
  return spec;
}

result<model_spec> read_config_json(const std::string& path) {
  auto text = read_file(path, 16_MiB);
  if (!text) return text.error();
  return parse_config_json(*text, path);
}

}  // namespace vramscope::model
