// load_model: decides what a name or path is and combines config and weights.
#include <vramscope/model/model_spec.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include <vramscope/model/catalog.hpp>
#include <vramscope/model/config_reader.hpp>
#include <vramscope/model/safetensors.hpp>

#include "model/checkpoint_inventory.hpp"

namespace vramscope::model {

namespace {

namespace fs = std::filesystem;

bool has_safetensors(const fs::path& folder) {
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(folder, ec))
    if (item.path().extension() == ".safetensors") return true;
  return false;
}

result<model_spec> config_and_weights(const std::string& config_path,
                                      const std::string& weights_path, const std::string& name) {
  auto spec = read_config_json(config_path);
  if (!spec) return spec;
  auto weights = read_safetensors_checkpoint(weights_path);
  if (!weights) return weights.error();
  if (auto same = detail::reconcile(*spec, config_path, *weights); !same) return same.error();
  spec->name = name;
  return spec;
}

result<model_spec> load_folder(const std::string& folder) {
  const fs::path config = fs::path(folder) / "config.json";
  std::error_code ec;
  const bool has_config = fs::is_regular_file(config, ec);
  const bool has_weights = has_safetensors(folder);
  if (has_config && has_weights) return config_and_weights(config.string(), folder, folder);
  if (has_config) {
    auto spec = read_config_json(config.string());
    if (spec) spec->name = folder;
    return spec;
  }
  if (has_weights) {
    auto weights = read_safetensors_checkpoint(folder);
    if (!weights) return weights.error();
    return detail::inventory_from_checkpoint(*weights, folder);
  }
  return error_at(folder, "holds neither config.json nor *.safetensors files");
}

result<model_spec> load_file(const std::string& path) {
  const fs::path p(path);
  if (p.extension() == ".safetensors" || p.filename().string().ends_with(".index.json")) {
    auto weights = read_safetensors_checkpoint(path);
    if (!weights) return weights.error();
    return detail::inventory_from_checkpoint(*weights, path);
  }
  return read_config_json(path);
}

}  // namespace

result<model_spec> load_model(const std::string& name_or_path) {
  std::error_code ec;
  const bool exists = fs::exists(name_or_path, ec);
  const bool path_like = name_or_path.find('/') != std::string::npos;
  if (!exists && !path_like) return load_preset(name_or_path);
  if (!exists) {
    // "meta-llama/Llama-3.1-8B": a Hugging Face id that is not a local folder names its preset.
    if (auto preset = preset_named(name_or_path)) return load_preset(*preset);
    return error_at(name_or_path,
                    "no such file or folder, and no preset has this Hugging Face id (nothing is "
                    "downloaded: give the checkpoint's folder or its config.json)");
  }
  if (fs::is_directory(name_or_path, ec)) return load_folder(name_or_path);
  return load_file(name_or_path);
}

}  // namespace vramscope::model
