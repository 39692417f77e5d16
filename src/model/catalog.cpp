#include <vramscope/model/catalog.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include <vramscope/core/io.hpp>
#include <vramscope/model/config_reader.hpp>

#include "model/embedded_presets.hpp"

namespace vramscope::model {

namespace {

namespace fs = std::filesystem;
using catalog_json = nlohmann::ordered_json;

constexpr const char* built_in_catalog = "data/models/catalog.json (built in)";

// One preset entry; `where` names it in messages ("catalog.json: presets[3]").
result<preset> parse_preset(const catalog_json& item, const std::string& where) {
  const auto text = [&](const char* key) -> std::optional<std::string> {
    if (!item.contains(key) || !item[key].is_string()) return std::nullopt;
    return item[key].get<std::string>();
  };
  if (!item.is_object()) return error_at(where, "expected an object");
  preset p;
  for (const auto& [key, field] : {std::pair{"name", &p.name}, std::pair{"hf_id", &p.hf_id},
                                   std::pair{"parameters_source", &p.parameters_source},
                                   std::pair{"description", &p.description}}) {
    auto value = text(key);
    if (!value) return error_at(where, fmt::format("missing string field \"{}\"", key));
    *field = std::move(*value);
  }
  if (!item.contains("published_parameters") || !item["published_parameters"].is_number_unsigned())
    return error_at(where, "missing field \"published_parameters\" (an integer)");
  p.published_parameters = item["published_parameters"].get<std::uint64_t>();
  if (item.contains("hf_aliases")) {
    const auto& aliases = item["hf_aliases"];
    if (!aliases.is_array())
      return error_at(where, "field \"hf_aliases\" must be a list of Hugging Face ids");
    for (const auto& a : aliases) {
      if (!a.is_string() || a.get<std::string>().find('/') == std::string::npos)
        return error_at(where, "field \"hf_aliases\" must be a list of Hugging Face ids (\"org/name\")");
      p.hf_aliases.push_back(a.get<std::string>());
    }
  }
  return p;
}

result<std::vector<preset>> parse_catalog(std::string_view text, const std::string& source) {
  catalog_json root;
  try {
    root = catalog_json::parse(text.begin(), text.end());
  } catch (const catalog_json::exception& e) {
    return error_at(source, std::string("invalid JSON: ") + e.what());
  }
  if (!root.is_object() || !root.contains("presets") || !root["presets"].is_array())
    return error_at(source, "expected an object with a \"presets\" list");
  std::vector<preset> out;
  for (std::size_t i = 0; i < root["presets"].size(); ++i) {
    auto p = parse_preset(root["presets"][i], fmt::format("{}: presets[{}]", source, i));
    if (!p) return p.error();
    out.push_back(std::move(*p));
  }
  return out;
}

// $VRAMSCOPE_DATA_DIR/models when the variable is set; an error when it is not a folder.
result<std::optional<fs::path>> user_models_dir() {
  const char* dir = std::getenv("VRAMSCOPE_DATA_DIR");
  if (!dir || !*dir) return std::optional<fs::path>{};
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return error_at(fmt::format("VRAMSCOPE_DATA_DIR={}", dir), "not a folder");
  return std::optional<fs::path>{fs::path(dir) / "models"};
}

void merge(std::vector<preset>& into, std::vector<preset> more) {
  for (auto& p : more) {
    auto same =
        std::find_if(into.begin(), into.end(), [&](const preset& q) { return q.name == p.name; });
    if (same != into.end())
      *same = std::move(p);
    else
      into.push_back(std::move(p));
  }
}

std::vector<std::string> names_of(const std::vector<preset>& list) {
  std::vector<std::string> names;
  for (const auto& p : list) names.push_back(p.name);
  return names;
}

diagnostic unknown_preset(const std::string& name) {
  auto list = presets();
  std::vector<std::string> names = list ? names_of(*list) : std::vector<std::string>{};
  std::string message =
      fmt::format("not a preset, file or folder; presets: {}", fmt::join(names, ", "));
  const std::string guess = did_you_mean(name, names);
  if (!guess.empty()) message += fmt::format(" (did you mean \"{}\"?)", guess);
  return error_at(name, std::move(message));
}

struct preset_text {
  std::string text;
  std::string source;  // the file it came from, for messages
};

// $VRAMSCOPE_DATA_DIR/models/<name>.json first, then the built-in copy.
result<preset_text> find_preset(const std::string& asked) {
  const std::string name = preset_named(asked).value_or(asked);
  auto dir = user_models_dir();
  if (!dir) return dir.error();
  std::error_code ec;
  const bool plain = !name.empty() && name.find_first_of("/\\") == std::string::npos;
  if (*dir && plain && fs::is_regular_file(**dir / (name + ".json"), ec)) {
    const std::string path = (**dir / (name + ".json")).string();
    auto text = read_file(path, 16_MiB);
    if (!text) return text.error();
    return preset_text{std::move(*text), path};
  }
  for (const auto& f : detail::embedded_presets())
    if (f.name == name)
      return preset_text{std::string(f.text), fmt::format("data/models/{}.json", name)};
  return unknown_preset(name);
}

}  // namespace

result<std::vector<preset>> presets() {
  auto list = parse_catalog(detail::embedded_catalog(), built_in_catalog);
  if (!list) return list;
  auto dir = user_models_dir();
  if (!dir) return dir.error();
  std::error_code ec;
  if (*dir && fs::is_regular_file(**dir / "catalog.json", ec)) {
    const std::string path = (**dir / "catalog.json").string();
    auto text = read_file(path, 16_MiB);
    if (!text) return text.error();
    auto more = parse_catalog(*text, path);
    if (!more) return more;
    merge(*list, std::move(*more));
  }
  return list;
}

std::optional<std::string> preset_named(const std::string& name) {
  auto list = presets();
  if (!list) return std::nullopt;
  for (const auto& p : *list)
    if (p.name == name) return p.name;
  const std::string key = lower_case(name);
  for (const auto& p : *list)
    if (lower_case(p.name) == key) return p.name;
  // Only ids of the form "org/name": the catalog's other origins are not Hugging Face ids.
  if (name.find('/') == std::string::npos) return std::nullopt;
  for (const auto& p : *list) {
    if (lower_case(p.hf_id) == key) return p.name;
    for (const auto& alias : p.hf_aliases)
      if (lower_case(alias) == key) return p.name;
  }
  return std::nullopt;
}

result<std::string> preset_config(const std::string& name) {
  auto found = find_preset(name);
  if (!found) return found.error();
  return std::move(found->text);
}

result<model_spec> load_preset(const std::string& name) {
  auto found = find_preset(name);
  if (!found) return found.error();
  auto spec = parse_config_json(found->text, found->source);
  if (spec) spec->name = preset_named(name).value_or(name);
  return spec;
}

}  // namespace vramscope::model
