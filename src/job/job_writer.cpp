#include <vramscope/job/job_writer.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "job/field_table.hpp"

namespace vramscope::job {

namespace {

// A size as the YAML reader takes it back exactly: the largest binary unit that divides it.
std::string exact_size(bytes n) {
  if (n == 0) return "0";
  if (n % GiB == 0) return fmt::format("{}GiB", n / GiB);
  if (n % MiB == 0) return fmt::format("{}MiB", n / MiB);
  if (n % KiB == 0) return fmt::format("{}KiB", n / KiB);
  return fmt::format("{}", n);
}

bool is_plain(const std::string& s) {
  static constexpr std::array<std::string_view, 11> reserved{
      "true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", "none"};
  if (s.empty()) return false;
  const auto first = static_cast<unsigned char>(s[0]);
  if (std::isalpha(first) == 0 && first != '_' && first != '/') return false;
  const std::string low = lower_case(s);
  if (std::find(reserved.begin(), reserved.end(), low) != reserved.end()) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.' || c == '/';
  });
}

// "none" stays plain: it is a value of several enums, read back as the string it is.
std::string yaml_string(const std::string& s) {
  if (is_plain(s) || s == "none") return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string yaml_value(const nlohmann::json& v) {
  if (v.is_string()) return yaml_string(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const auto& item : v) out += (out.empty() ? "" : ", ") + yaml_value(item);
    return "[" + out + "]";
  }
  return v.dump();  // numbers, booleans, null; a map as JSON, which YAML reads as a flow map
}

}  // namespace

nlohmann::json to_json(const job_spec& job) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& f : detail::fields()) {
    if (!f.written) continue;
    const std::string section = detail::section_of(f.path);
    if (section.empty()) {
      out[f.path] = f.get(job);
    } else {
      out[section][f.path.substr(section.size() + 1)] = f.get(job);
    }
  }
  out["env"] = nlohmann::json::object();
  for (const auto& [name, value] : job.env) out["env"][name] = value;
  return out;
}

std::string to_yaml(const job_spec& job) {
  std::string out;
  std::string open_section;
  for (const auto& f : detail::fields()) {
    if (!f.written) continue;
    const std::string section = detail::section_of(f.path);
    const nlohmann::json value = f.get(job);
    if (value.is_object()) {  // an inline model: one config.json key a line
      out += f.path + ":\n";
      for (const auto& k : job.model_config)
        out += fmt::format("  {}: {}\n", yaml_string(k.key),
                           yaml_value(nlohmann::json::parse(k.json, nullptr, false)));
      continue;
    }
    const std::string text =
        f.is_size ? exact_size(value.get<bytes>()) : yaml_value(value);
    if (section.empty()) {
      out += fmt::format("{}: {}\n", f.path, text);
      continue;
    }
    if (section != open_section) out += section + ":\n";
    open_section = section;
    out += fmt::format("  {}: {}\n", f.path.substr(section.size() + 1), text);
  }
  if (job.env.empty()) return out + "env: {}\n";
  out += "env:\n";
  for (const auto& [name, value] : job.env) out += fmt::format("  {}: {}\n", name, yaml_string(value));
  return out;
}

}  // namespace vramscope::job
