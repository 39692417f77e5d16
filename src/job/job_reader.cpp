#include <vramscope/job/job_reader.hpp>

#include <vramscope/job/job_loading.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/job/overrides.hpp>
#include <vramscope/job/resolve.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <optional>

#include "job/assign.hpp"
#include "job/field_table.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace {

using detail::at;
using detail::raw_value;

std::string kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return fmt::format("\"{}\"", node.Scalar());
    default: return "nothing";
  }
}

// Sections whose value may also be a single scalar, and the field that scalar sets.
const std::map<std::string, std::string> shorthands{
    {"precision", "precision"}, {"optimizer", "optimizer"}, {"lora", "lora.enabled"}};

class reader {
 public:
  reader(std::string source, std::string_view text)
      : source_(std::move(source)), lines_(text) {
    job_.provenance.source = source_;
  }

  maybe_error read_root(const YAML::Node& root);
  job_spec&& take() { return std::move(job_); }

 private:
  diagnostic where(const YAML::Node& node, const diagnostic& fallback) const {
    return detail::location(source_, lines_, node, fallback);
  }
  diagnostic where(const YAML::Node& node) const {
    return where(node, diagnostic{source_, 0, 0, "", ""});
  }
  maybe_error check_key(const YAML::Node& key, std::map<std::string, int>& seen) const;
  maybe_error read_section(const std::string& name, const YAML::Node& key, const YAML::Node& value);
  maybe_error read_map(const std::string& section, const YAML::Node& map);
  maybe_error read_env(const YAML::Node& map);
  maybe_error read_model_map(const YAML::Node& key, const YAML::Node& map);
  maybe_error read_field(const std::string& path, const YAML::Node& key, const YAML::Node& value);

  std::string source_;
  detail::line_index lines_;  // every key is located: line_at on each would be quadratic
  job_spec job_;
};

// Keys must be plain scalars and appear once per map.
maybe_error reader::check_key(const YAML::Node& key, std::map<std::string, int>& seen) const {
  if (!key.IsScalar()) return at(where(key), fmt::format("expected a plain key, got {}", kind_of(key)));
  const auto [it, fresh] = seen.emplace(key.Scalar(), key.Mark().line + 1);
  if (!fresh)
    return at(where(key),
              fmt::format("duplicate key \"{}\" (first given on line {})", key.Scalar(), it->second));
  return std::nullopt;
}

maybe_error reader::read_root(const YAML::Node& root) {
  if (!root.IsMap())
    return at(where(root), fmt::format("expected a map of sections (model, hardware, parallel, "
                                       "...), got {}", kind_of(root)));
  std::map<std::string, int> seen;
  for (const auto& entry : root) {
    if (auto err = check_key(entry.first, seen)) return err;
    const std::string name = entry.first.Scalar();
    const auto& sections = detail::section_names();
    if (std::find(sections.begin(), sections.end(), name) == sections.end()) {
      const std::string near = detail::suggest_key(name, "");
      return at(where(entry.first),
                fmt::format("unknown section \"{}\"{}", name,
                            near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
    }
    if (auto err = read_section(name, entry.first, entry.second)) return err;
  }
  return std::nullopt;
}

maybe_error reader::read_section(const std::string& name, const YAML::Node& key,
                                 const YAML::Node& value) {
  if (name == "model" && value.IsMap()) return read_model_map(key, value);
  if (name == "model") return read_field("model", key, value);
  if (name == "env") return value.IsNull() ? std::nullopt : read_env(value);
  if (const auto s = shorthands.find(name); s != shorthands.end() && value.IsScalar())
    return read_field(s->second, key, value);
  if (name == "lora" && (value.IsNull() || value.IsMap())) {
    job_.lora.enabled = true;  // a lora section switches LoRA on unless it says enabled: false
    job_.provenance.set_at["lora"] = where(key);
  }
  if (value.IsNull()) return std::nullopt;
  if (!value.IsMap()) {
    const bool has_shorthand = shorthands.count(name) != 0;
    return at(where(value, where(key)),
              fmt::format("section \"{}\": expected a map{}, got {}", name,
                          has_shorthand ? " or a single value" : "", kind_of(value)));
  }
  return read_map(name, value);
}

maybe_error reader::read_map(const std::string& section, const YAML::Node& map) {
  std::map<std::string, int> seen;
  const std::vector<std::string> keys = detail::keys_of(section);
  for (const auto& entry : map) {
    if (auto err = check_key(entry.first, seen)) return err;
    const std::string key = entry.first.Scalar();
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      const std::string near = detail::suggest_key(key, section);
      return at(where(entry.first),
                fmt::format("unknown key \"{}\" in section \"{}\"{}", key, section,
                            near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
    }
    if (auto err = read_field(section + "." + key, entry.first, entry.second)) return err;
  }
  return std::nullopt;
}

// A YAML scalar as the JSON value config.json would hold: quoted text stays a string; plain
// text is a number, a boolean or null when it reads as one (YAML 1.2's core schema), else a string.
nlohmann::json json_of_scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text == "null" || text == "~" || text.empty()) return nullptr;
  if (text == "true" || text == "True") return true;
  if (text == "false" || text == "False") return false;
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded() && parsed.is_number()) return parsed;
  return text;
}

nlohmann::json json_of(const YAML::Node& node, int depth = 0) {
  if (depth > 16) return nullptr;  // deeper than any config.json; yaml-cpp aliases can recurse
  if (node.IsScalar()) return json_of_scalar(node);
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) out.push_back(json_of(item, depth + 1));
    return out;
  }
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& item : node) out[item.first.Scalar()] = json_of(item.second, depth + 1);
    return out;
  }
  return nullptr;
}

// `model:` as a map of config.json keys (docs/job-spec.md, "model"). The keys are checked when
// the model is read (job_loading.cpp), where the family knows which ones it reads.
maybe_error reader::read_model_map(const YAML::Node& key, const YAML::Node& map) {
  std::map<std::string, int> seen;
  job_.model_config.clear();
  std::string name, type;
  for (const auto& entry : map) {
    if (auto err = check_key(entry.first, seen)) return err;
    const nlohmann::json value = json_of(entry.second);
    // Invalid UTF-8 becomes U+FFFD, as JSON (and config.json) cannot hold it.
    const auto replace = nlohmann::json::error_handler_t::replace;
    const std::string key =
        nlohmann::json::parse(nlohmann::json(entry.first.Scalar()).dump(-1, ' ', false, replace))
            .get<std::string>();
    job_.model_config.push_back({key, value.dump(-1, ' ', false, replace), where(entry.first)});
    if (entry.first.Scalar() == "_name_or_path" && value.is_string()) name = value.get<std::string>();
    if (entry.first.Scalar() == "model_type" && value.is_string()) type = value.get<std::string>();
  }
  if (job_.model_config.empty())
    return at(where(key), "model: expected a preset name, a path, or a map of config.json keys, "
                          "got an empty map");
  job_.model = !name.empty() ? name : fmt::format("inline {} config", type.empty() ? "model" : type);
  job_.provenance.set_at["model"] = where(key);
  return std::nullopt;
}

maybe_error reader::read_env(const YAML::Node& map) {
  if (!map.IsMap())
    return at(where(map), fmt::format("section \"env\": expected a map of variable names to "
                                      "values, got {}", kind_of(map)));
  std::map<std::string, int> seen;
  for (const auto& entry : map) {
    if (auto err = check_key(entry.first, seen)) return err;
    const std::string name = entry.first.Scalar();
    if (!detail::is_env_name(name))
      return at(where(entry.first),
                fmt::format("env: \"{}\" is not a valid environment variable name", name));
    if (!entry.second.IsScalar())
      return at(where(entry.second, where(entry.first)),
                fmt::format("env.{}: expected a string, got {}", name, kind_of(entry.second)));
    if (auto err = read_field("env." + name, entry.first, entry.second)) return err;
  }
  return std::nullopt;
}

maybe_error reader::read_field(const std::string& path, const YAML::Node& key,
                               const YAML::Node& value) {
  const diagnostic key_at = where(key);
  const diagnostic value_at = value.IsNull() ? key_at : where(value, key_at);
  const detail::field* f = detail::find_field(path);
  const std::string expects = f != nullptr ? f->expects : "a string";
  raw_value raw;
  if (value.IsScalar()) {
    raw.text = value.Scalar();
  } else if (value.IsSequence() && f != nullptr && f->is_list) {
    raw.is_list = true;
    for (const auto& item : value) {
      if (!item.IsScalar())
        return at(where(item, value_at),
                  fmt::format("{}: expected {}, got a list containing {}", path, expects,
                              kind_of(item)));
      raw.items.push_back(item.Scalar());
    }
    raw.text = detail::join(raw.items, ",");
  } else {
    return at(value_at, fmt::format("{}: expected {}, got {}", path, expects, kind_of(value)));
  }
  return detail::assign(job_, path, raw, value_at);
}

// The line where a second YAML document starts ("---" after content, or content after "..."),
// or 0. yaml-cpp's LoadAll can loop without end on some malformed input, so documents are
// counted here and only the first is parsed, with YAML::Load.
int second_document_line(std::string_view text) {
  bool content = false;
  bool ended = false;
  for (int number = 1; !text.empty(); ++number) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool marker = line.substr(0, 3) == "---" && (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    const bool finish = line.substr(0, 3) == "..." && (line.size() == 3 || line[3] == ' ');
    const auto first = line.find_first_not_of(" \t");
    const bool blank = first == std::string_view::npos || line[first] == '#';
    if ((marker && content) || (ended && !blank && !finish)) return number;
    if (finish) ended = true;
    if (!blank && !marker && !finish) content = true;
  }
  return 0;
}

}  // namespace

result<job_spec> read_job_yaml(std::string_view text, std::string source) {
  if (const int line = second_document_line(text); line > 0)
    return detail::at(detail::location(source, text, line, 1), "expected one YAML document");
  auto parsed = detail::parse_yaml(source, text);
  if (!parsed) return parsed.error();
  const YAML::Node& root = *parsed;
  if (root.IsNull())
    return error_at(source, "empty job spec: expected a map of sections (model, hardware, "
                            "parallel, ...)");
  reader r(source, text);
  if (auto err = r.read_root(root)) return *err;
  return r.take();
}

result<job_spec> parse_job_yaml(std::string_view text, std::string source, warnings* notes) {
  auto job = read_job_yaml(text, std::move(source));
  if (!job) return job;
  if (auto resolved = resolve_job(*job, notes); !resolved) return resolved.error();
  return job;
}

result<job_spec> load_job(const std::string& path, const std::vector<std::string>& overrides,
                          warnings* notes) {
  auto job = read_job_unresolved(path, overrides);
  if (!job) return job;
  if (auto resolved = resolve_job(*job, notes); !resolved) return resolved.error();
  return job;
}

}  // namespace vramscope::job
