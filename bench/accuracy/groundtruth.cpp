#include "accuracy/groundtruth.hpp"

#include <vramscope/core/io.hpp>

#include <fmt/format.h>

#include <sstream>

namespace vramscope::bench {

namespace {

constexpr std::size_t max_context = 120;  // longer lines are quoted around the error only

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

diagnostic field_error(const std::string& source, int line, const std::string& field,
                       const std::string& expected, const nlohmann::json& got) {
  return error_at(
      source, fmt::format("field \"{}\": expected {}, got {}", field, expected, shown(got)), line);
}

// nlohmann's text reads "[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error ..."; the location is ours to print, the rest is the reason.
diagnostic json_error(std::string_view text, const nlohmann::json::parse_error& e,
                      const std::string& source, int line) {
  std::string reason = e.what();
  if (const auto at = reason.find("column "); at != std::string::npos)
    if (const auto colon = reason.find(": ", at); colon != std::string::npos)
      reason = reason.substr(colon + 2);
  const auto column = static_cast<int>(std::max<std::size_t>(e.byte, 1));
  if (text.size() <= max_context)
    return error_at(source, "invalid JSON: " + reason, line, column, std::string(text));
  const std::size_t from = e.byte > 30 ? e.byte - 30 : 0;
  return error_at(source,
                  fmt::format("invalid JSON at column {}: {} (near \"{}\")", column, reason,
                              std::string(text.substr(from, 40))),
                  line);
}

result<bool> get_bool(const nlohmann::json& obj, const char* key, const std::string& source,
                      int line) {
  if (!obj.contains(key)) return error_at(source, fmt::format("missing field \"{}\"", key), line);
  if (!obj[key].is_boolean()) return field_error(source, line, key, "true or false", obj[key]);
  return obj[key].get<bool>();
}

std::optional<diagnostic> read_peak(const nlohmann::json& obj, measurement& m) {
  if (!obj.contains("peak")) return error_at(m.source, "missing field \"peak\"", m.line);
  const auto& peak = obj["peak"];
  if (!peak.is_object()) return field_error(m.source, m.line, "peak", "an object", peak);
  for (std::size_t i = 0; i < level_names.size(); ++i) {
    const std::string key(level_names[i]);
    if (!peak.contains(key))
      return error_at(m.source, fmt::format("missing field \"peak.{}\"", key), m.line);
    const auto& v = peak[key];
    if (v.is_null()) continue;
    if (!v.is_number_unsigned())
      return field_error(m.source, m.line, "peak." + key, "a byte count >= 0 or null", v);
    m.peak[i] = v.get<bytes>();
  }
  return std::nullopt;
}

std::optional<diagnostic> read_optional(const nlohmann::json& obj, measurement& m) {
  if (obj.contains("case")) {
    if (!obj["case"].is_string())
      return field_error(m.source, m.line, "case", "a string", obj["case"]);
    m.name = obj["case"].get<std::string>();
  }
  if (obj.contains("process_group")) {
    const auto& pg = obj["process_group"];
    if (!pg.is_string() || (pg != "fake" && pg != "none" && pg != "real"))
      return field_error(m.source, m.line, "process_group", "\"fake\", \"none\" or \"real\"", pg);
    m.process_group = pg.get<std::string>();
  }
  if (obj.contains("oom_phase") && obj["oom_phase"].is_string())
    m.oom_phase = obj["oom_phase"].get<std::string>();
  if (obj.contains("harness") && obj["harness"].is_object() && obj["harness"].contains("applied")) {
    const auto& applied = obj["harness"]["applied"];
    if (!applied.is_object())
      return field_error(m.source, m.line, "harness.applied", "an object", applied);
    m.applied = applied;
  }
  return std::nullopt;
}

}  // namespace

result<measurement> parse_measurement(std::string_view text, const std::string& source, int line) {
  nlohmann::json obj;
  try {  // nlohmann reports syntax errors only by exception; turned into a diagnostic here
    obj = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return json_error(text, e, source, line);
  }
  if (!obj.is_object()) return error_at(source, "expected a JSON object per line", line);
  measurement m;
  m.source = source;
  m.line = line;
  m.name = fmt::format("{}:{}", source, line);
  auto measured = get_bool(obj, "measured", source, line);
  if (!measured) return measured.error();
  m.measured = *measured;
  if (!obj.contains("job")) return error_at(source, "missing field \"job\"", line);
  if (!obj["job"].is_object()) return field_error(source, line, "job", "an object", obj["job"]);
  m.job = obj["job"];
  if (!obj.contains("rank")) return error_at(source, "missing field \"rank\"", line);
  if (!obj["rank"].is_number_unsigned() || obj["rank"].get<std::uint64_t>() > 1'000'000)
    return field_error(source, line, "rank", "an integer >= 0", obj["rank"]);
  m.rank = obj["rank"].get<int>();
  if (auto err = read_peak(obj, m)) return *err;
  if (!m.measured && obj.contains("oom") && obj["oom"].is_null()) {
    m.oom = std::nullopt;
  } else {
    auto oom = get_bool(obj, "oom", source, line);
    if (!oom) return oom.error();
    m.oom = *oom;
  }
  if (auto err = read_optional(obj, m)) return *err;
  return m;
}

result<std::vector<measurement>> read_groundtruth(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::vector<measurement> out;
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto m = parse_measurement(line, path, number);
    if (!m) return m.error();
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace vramscope::bench
