#include <vramscope/import/importers.hpp>

#include <vramscope/core/io.hpp>

#include "import/shell_launch.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string_view>

namespace vramscope::job {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// "[model]" or "[training]  # comment": a torchtitan table header.
bool is_torchtitan_table(std::string_view line) {
  line = trim(line.substr(0, line.find('#')));
  for (std::string_view name : {"model", "training", "parallelism", "activation_checkpoint",
                                "optimizer", "job"})
    if (line.size() == name.size() + 2 && line.front() == '[' && line.back() == ']' &&
        line.substr(1, name.size()) == name)
      return true;
  return false;
}

// "distributed_type: FSDP" at the start of a line: an accelerate top-level key.
bool is_accelerate_key(std::string_view line) {
  for (std::string_view key : {"distributed_type", "compute_environment"})
    if (line.substr(0, key.size()) == key && trim(line.substr(key.size())).substr(0, 1) == ":")
      return true;
  return false;
}

// "  _component_: torchtune.models.llama3_1.lora_llama3_1_8b": a torchtune component.
bool is_torchtune_component(std::string_view line) {
  line = trim(line.substr(0, line.find('#')));
  const std::string_view key = "_component_:";
  if (line.substr(0, key.size()) != key) return false;
  std::string_view value = trim(line.substr(key.size()));
  if (!value.empty() && (value.front() == '"' || value.front() == '\'')) value.remove_prefix(1);
  return value.substr(0, 10) == "torchtune.";
}

}  // namespace

config_format detect_format(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    // JSON is YAML too: accelerate's config (read with yaml.safe_load) may be written in JSON
    // syntax. The keys decide: accelerate's ClusterConfig writes distributed_type and
    // compute_environment (commands/config/config_args.py), which DeepSpeed's config has not.
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_object() && (json.contains("distributed_type") ||
                             json.contains("compute_environment")))
      return config_format::accelerate;
    return config_format::deepspeed;
  }
  bool accelerate = false;
  for (std::string_view rest = text; !rest.empty();) {
    const auto end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (is_torchtitan_table(line)) return config_format::torchtitan;
    if (is_torchtune_component(line)) return config_format::torchtune;
    accelerate = accelerate || is_accelerate_key(line);
  }
  if (accelerate) return config_format::accelerate;
  return detail::looks_like_megatron(text) ? config_format::megatron : config_format::unknown;
}

result<imported_job> import_config_text(std::string_view text, const std::string& source,
                                        const std::string& base_dir, const trainer_args& trainer) {
  switch (detect_format(text)) {
    case config_format::accelerate: return import_accelerate(text, source, base_dir, trainer);
    case config_format::deepspeed: return import_deepspeed(text, source, trainer);
    case config_format::torchtitan: return import_torchtitan(text, source);
    case config_format::torchtune: return import_torchtune(text, source);
    case config_format::megatron: return import_megatron(text, source);
    case config_format::unknown: break;
  }
  return error_at(source, "not an accelerate YAML, DeepSpeed JSON, torchtitan TOML, torchtune YAML "
                          "config or Megatron-LM arguments");
}

result<imported_job> import_config(const std::string& path, const trainer_args& trainer) {
  auto text = read_file(path, 16_MiB);
  if (!text) return text.error();
  return import_config_text(*text, path, std::filesystem::path(path).parent_path().string(),
                            trainer);
}

}  // namespace vramscope::job
