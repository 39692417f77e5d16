#include <vramscope/model/catalog.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
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
  if (item.contains("aliases")) {
    const auto& aliases = item["aliases"];
    if (!aliases.is_array())
      return error_at(where, "field \"aliases\" must be a list of names");
    for (const auto& a : aliases) {
      if (!a.is_string() || a.get<std::string>().empty())
        return error_at(where, "field \"aliases\" must be a list of names");
      p.aliases.push_back(a.get<std::string>());
    }
  }
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

// The built-in catalog, parsed once per process on first use (a static's initialisation is
// thread-safe): every model load looks names up in it, and parsing it was a fifth of the
// instructions of `vramscope plan` of the 8B example when each lookup parsed it again.
const result<std::vector<preset>>& built_in_presets() {
  static const result<std::vector<preset>> list =
      parse_catalog(detail::embedded_catalog(), built_in_catalog);
  return list;
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
  const auto family = presets_of_family(name);
  // Never a did-you-mean by spelling: "gemma-2b" is not "gemma-2-2b". The family's presets are
  // listed instead, and the user picks one or gives the model's config.json.
  if (!family.empty())
    return error_at(name, fmt::format("no preset for this model; presets of its family: {}",
                                      fmt::join(family, ", ")));
  std::string message =
      fmt::format("not a preset, file or folder; presets: {}", fmt::join(names, ", "));
  // A misspelt family ("lama-3.1-8b") may be guessed, as long as the guess is the same size and
  // version: its key differs only in the leading letters.
  const std::string guess = did_you_mean(name, names);
  const auto tail = [](const std::string& key) {
    std::size_t n = 0;
    while (n < key.size() && std::isalpha(static_cast<unsigned char>(key[n])) != 0) ++n;
    return key.substr(n);
  };
  if (!guess.empty() && tail(model_name_key(guess)) == tail(model_name_key(name)))
    message += fmt::format(" (did you mean \"{}\"?)", guess);
  return error_at(name, std::move(message));
}

// The digits that start `t` and the rest ("17b" -> 17, "b"); an empty count when none.
std::pair<std::string, std::string> count_and_unit(const std::string& t) {
  std::size_t n = 0;
  while (n < t.size() && std::isdigit(static_cast<unsigned char>(t[n])) != 0) ++n;
  return {t.substr(0, n), t.substr(n)};
}

// A size of active parameters times routed experts written as one: "17bx16e". Llama 4's are
// spelt 17B-16E (the Hub), llama4_scout_17b_16e, 17Bx16E (torchtitan's flavour) and
// llama4_17bx16 (a torchtune branch's builder); all give "17bx16e".
std::vector<std::string> experts_as_one(std::vector<std::string> tokens) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto [size, unit] = count_and_unit(tokens[i]);
    if (!size.empty() && unit.starts_with("bx")) {  // "17bx16" or "17bx16e"
      const auto [experts, tail] = count_and_unit(unit.substr(2));
      if (!experts.empty() && (tail.empty() || tail == "e")) {
        out.push_back(size + "bx" + experts + "e");
        continue;
      }
    }
    if (!size.empty() && unit == "b" && i + 1 < tokens.size()) {  // "17b" then "16e"
      const auto [experts, tail] = count_and_unit(tokens[i + 1]);
      if (!experts.empty() && tail == "e") {
        out.push_back(size + "bx" + experts + "e");
        ++i;
        continue;
      }
    }
    out.push_back(tokens[i]);
  }
  return out;
}

bool is_version_tail(const std::string& token) {
  static constexpr std::string_view tails[] = {"instruct", "base", "chat", "hf", "it"};
  if (std::find(std::begin(tails), std::end(tails), token) != std::end(tails)) return true;
  // A release date such as Qwen's "2507" (July 2025): four digits and nothing else.
  return token.size() == 4 && std::all_of(token.begin(), token.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// The name part of a Hugging Face id ("Qwen/Qwen3-4B" -> "Qwen3-4B"); the whole name otherwise.
std::string_view after_org(std::string_view name) {
  const auto slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// The leading letters of a name's key: its family ("qwen" of "qwen2_5_3b").
std::string family_of(std::string_view name) {
  const std::string key = model_name_key(after_org(name));
  std::size_t n = 0;
  while (n < key.size() && std::isalpha(static_cast<unsigned char>(key[n])) != 0) ++n;
  return key.substr(0, n);
}

struct preset_text {
  std::string text;
  std::string source;  // the file it came from, for messages
};

// $VRAMSCOPE_DATA_DIR/models/<name>.json first, then the built-in copy. `name` is the
// catalog's name for the preset asked for (preset_named), or the name asked for.
result<preset_text> find_preset(const std::string& name) {
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

std::string model_name_key(std::string_view name) {
  std::vector<std::string> tokens{""};
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.' || c == ' ' || c == '/') {
      if (!tokens.back().empty()) tokens.emplace_back();
      continue;
    }
    tokens.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (tokens.back().empty()) tokens.pop_back();
  while (tokens.size() > 1 && is_version_tail(tokens.back())) tokens.pop_back();
  // "moe" beside an active-parameter size ("qwen3_moe_30b_a3b", torchtune's builder of
  // Qwen3-30B-A3B) marks what the "a3b" already says: the same model as "qwen3-30b-a3b".
  const auto active_size = [](const std::string& t) {
    return t.size() >= 3 && t.front() == 'a' && t.back() == 'b' &&
           std::isdigit(static_cast<unsigned char>(t[1])) != 0;
  };
  if (std::any_of(tokens.begin(), tokens.end(), active_size))
    tokens.erase(std::remove_if(tokens.begin() + 1, tokens.end(), [](const std::string& t) { return t == "moe"; }),
                 tokens.end());
  tokens = experts_as_one(std::move(tokens));
  std::string key;
  for (const auto& t : tokens) key += t;
  return key;
}

std::vector<std::string> presets_of_family(std::string_view name) {
  std::vector<std::string> out;
  const std::string family = family_of(name);
  auto list = presets();
  if (family.empty() || !list) return out;
  for (const auto& p : *list)
    if (family_of(p.name) == family) out.push_back(p.name);
  return out;
}

namespace {

// The catalog as presets() gives it, without a copy of the built-in list when VRAMSCOPE_DATA_DIR
// adds no catalog.json.
struct catalog_view {
  std::optional<std::vector<preset>> merged;  // the built-in list with the additions
  [[nodiscard]] const std::vector<preset>& list() const {
    return merged ? *merged : *built_in_presets();
  }
};

result<catalog_view> catalog() {
  const auto& built_in = built_in_presets();
  if (!built_in) return built_in.error();
  auto dir = user_models_dir();
  if (!dir) return dir.error();
  catalog_view view;
  std::error_code ec;
  if (*dir && fs::is_regular_file(**dir / "catalog.json", ec)) {
    const std::string path = (**dir / "catalog.json").string();
    auto text = read_file(path, 16_MiB);
    if (!text) return text.error();
    auto more = parse_catalog(*text, path);
    if (!more) return more.error();
    view.merged = *built_in;
    merge(*view.merged, std::move(*more));
  }
  return view;
}

}  // namespace

result<std::vector<preset>> presets() {
  auto view = catalog();
  if (!view) return view.error();
  return view->list();
}

std::optional<std::string> preset_named(const std::string& name) {
  // A built-in preset's own name needs no catalog: the embedded files are the catalog's entries
  // under their names (embedded_presets.hpp), and a VRAMSCOPE_DATA_DIR catalog.json only adds
  // entries or replaces one of the same name, so the name stays a preset's. `plan` of a preset
  // then parses no catalog at all.
  for (const auto& f : detail::embedded_presets())
    if (f.name == name) return name;
  auto view = catalog();
  if (!view) return std::nullopt;
  const auto* list = &view->list();
  for (const auto& p : *list)
    if (p.name == name) return p.name;
  const std::string key = lower_case(name);
  for (const auto& p : *list)
    if (lower_case(p.name) == key) return p.name;
  // Ids of the form "org/name": the catalog's other origins are not Hugging Face ids.
  if (name.find('/') != std::string::npos) {
    for (const auto& p : *list) {
      if (lower_case(p.hf_id) == key) return p.name;
      for (const auto& alias : p.hf_aliases)
        if (lower_case(alias) == key) return p.name;
    }
  }
  // Any other spelling: the name (without its org) reduced to its key, compared with the keys of
  // the presets' names, Hugging Face ids and aliases (framework builder and flavor names).
  const std::string wanted = model_name_key(after_org(name));
  if (wanted.empty()) return std::nullopt;
  for (const auto& p : *list) {
    if (model_name_key(p.name) == wanted) return p.name;
    for (const auto& alias : p.aliases)
      if (model_name_key(alias) == wanted) return p.name;
    if (p.hf_id.find('/') != std::string::npos && p.hf_id.find(' ') == std::string::npos &&
        model_name_key(after_org(p.hf_id)) == wanted)
      return p.name;
    for (const auto& id : p.hf_aliases)
      if (model_name_key(after_org(id)) == wanted) return p.name;
  }
  return std::nullopt;
}

std::optional<std::string> framework_preset(std::string_view framework, const std::string& name) {
  if (framework == "torchtitan") {
    // "llama3 8B" -> "llama3.1 8B" first; the flavors Llama 3.1 has no size of (1B, 3B, forks'
    // own) resolve as written.
    const auto space = name.find(' ');
    if (space != std::string::npos && lower_case(name.substr(0, space)) == "llama3")
      if (auto preset = preset_named("llama3.1" + name.substr(space))) return preset;
  }
  return preset_named(name);
}

std::vector<std::string> preset_config_keys(std::string_view model_type) {
  std::vector<std::string> keys;
  for (const auto& f : detail::embedded_presets()) {
    const auto config = nlohmann::json::parse(f.text, nullptr, false);
    if (!config.is_object() || config.value("model_type", std::string()) != model_type) continue;
    for (const auto& item : config.items())
      if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) keys.push_back(item.key());
  }
  return keys;
}

result<std::string> preset_config(const std::string& name) {
  auto found = find_preset(preset_named(name).value_or(name));
  if (!found) return found.error();
  return std::move(found->text);
}

result<model_spec> load_preset(const std::string& name) {
  const std::string named = preset_named(name).value_or(name);
  auto found = find_preset(named);
  if (!found) return found.error();
  auto spec = parse_config_json(found->text, found->source);
  if (spec) spec->name = named;
  return spec;
}

}  // namespace vramscope::model
