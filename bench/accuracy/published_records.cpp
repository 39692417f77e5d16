// Reading the published development set and the list of records the job spec cannot express.
#include <vramscope/core/io.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "accuracy/published.hpp"

namespace vramscope::bench {

namespace {

bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

diagnostic field_error(const published_record& r, const std::string& field,
                       const std::string& expected, const nlohmann::json& got) {
  return error_at(r.source,
                  fmt::format("field \"{}\": expected {}, got {}", field, expected, shown(got)),
                  r.line);
}

bool valid_id(const std::string& id) {
  if (id.size() < 3) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    if (i < 2 ? !std::isupper(c) : !std::isdigit(c)) return false;
  }
  return true;
}

// Published units: GB = 10^9 bytes, GiB = 2^30 (bench/published/README.md, "Rules of the
// translation").
std::optional<double> unit_bytes(const std::string& unit) {
  if (unit == "GB") return 1e9;
  if (unit == "GiB") return 1073741824.0;
  if (unit == "MB") return 1e6;
  if (unit == "MiB") return 1048576.0;
  return std::nullopt;
}

std::optional<diagnostic> read_value(const nlohmann::json& obj, published_record& r) {
  for (const char* key : {"memory_value", "memory_unit"})
    if (!obj.contains(key))
      return error_at(r.source, fmt::format("missing field \"{}\"", key), r.line);
  const auto& value = obj["memory_value"];
  const auto& unit = obj["memory_unit"];
  if (!value.is_number() || value.get<double>() <= 0)
    return field_error(r, "memory_value", "a number > 0 (the run did not run out of memory)",
                       value);
  const auto scale = unit.is_string() ? unit_bytes(unit.get<std::string>()) : std::nullopt;
  if (!scale) return field_error(r, "memory_unit", "GB, GiB, MB or MiB", unit);
  r.value = static_cast<bytes>(std::llround(value.get<double>() * *scale));
  return std::nullopt;
}

std::optional<diagnostic> read_fields(const nlohmann::json& obj, published_record& r) {
  for (const char* key : {"id", "quality", "oom", "memory_metric"})
    if (!obj.contains(key))
      return error_at(r.source, fmt::format("missing field \"{}\"", key), r.line);
  if (!obj["id"].is_string() || !valid_id(obj["id"].get<std::string>()))
    return field_error(r, "id", "two capital letters and digits", obj["id"]);
  r.id = obj["id"].get<std::string>();
  r.group = r.id.substr(0, 2);
  const auto& quality = obj["quality"];
  if (quality != "A" && quality != "B" && quality != "C")
    return field_error(r, "quality", "\"A\", \"B\" or \"C\"", quality);
  r.quality = quality.get<std::string>()[0];
  if (!obj["oom"].is_boolean()) return field_error(r, "oom", "true or false", obj["oom"]);
  r.oom = obj["oom"].get<bool>();
  const auto& metric = obj["memory_metric"];
  if (!metric.is_string() && !metric.is_null())
    return field_error(r, "memory_metric", "a string or null", metric);
  if (metric.is_string()) r.metric = metric.get<std::string>();
  r.level = level_of_metric(r.metric);
  if (obj.contains("seq_len_exact")) {
    const auto& exact = obj["seq_len_exact"];
    if (!exact.is_string() && !exact.is_null())
      return field_error(r, "seq_len_exact", "a string or null", exact);
    r.exact_length = exact.is_string() && exact.get<std::string>().rfind("exact", 0) == 0;
  }
  if (r.oom) return std::nullopt;
  return read_value(obj, r);
}

// "| LR01 | phi-1.5 | model family phi |" -> its cells, trimmed; empty when not a table row.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos || line[first] != '|') return cells;
  std::istringstream in(line.substr(first + 1));
  std::string cell;
  while (std::getline(in, cell, '|')) {
    const auto b = cell.find_first_not_of(" \t\r");
    const auto e = cell.find_last_not_of(" \t\r");
    cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!cells.empty() && cells.back().empty()) cells.pop_back();  // after the closing '|'
  return cells;
}

}  // namespace

std::optional<std::size_t> level_of_metric(std::string_view metric) {
  if (contains(metric, "not stated")) return std::nullopt;
  if (contains(metric, "active_bytes")) return 1;
  if (contains(metric, "max_memory_allocated")) return 0;
  if (contains(metric, "reserved")) return 2;
  if (contains(metric, "nvidia-smi")) return 3;
  return std::nullopt;
}

result<published_record> parse_published_record(std::string_view text, const std::string& source,
                                                int line) {
  nlohmann::json obj;
  try {  // nlohmann reports syntax errors only by exception; turned into a diagnostic here
    obj = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string reason = e.what();  // "[json.exception...] parse error at line 1, column 5: why"
    if (const auto at = reason.find("column "); at != std::string::npos)
      if (const auto colon = reason.find(": ", at); colon != std::string::npos)
        reason = reason.substr(colon + 2);
    return error_at(source, "invalid JSON: " + reason, line,
                    static_cast<int>(std::max<std::size_t>(e.byte, 1)));
  }
  if (!obj.is_object()) return error_at(source, "expected a JSON object per line", line);
  published_record r;
  r.source = source;
  r.line = line;
  if (auto err = read_fields(obj, r)) return *err;
  return r;
}

result<std::vector<published_record>> read_published_records(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::vector<published_record> out;
  std::set<std::string> seen;
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto r = parse_published_record(line, path, number);
    if (!r) return r.error();
    if (!seen.insert(r->id).second)
      return error_at(path, fmt::format("record {} is given twice", r->id), number);
    out.push_back(std::move(*r));
  }
  return out;
}

result<std::map<std::string, std::string>> read_unexpressed(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::map<std::string, std::string> out;
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto cells = cells_of(line);
    if (cells.empty() || !valid_id(cells.front())) continue;  // prose, header, separator
    if (cells.size() < 2 || cells.back().empty())
      return error_at(path, fmt::format("row of {} names no missing feature", cells.front()),
                      number, 0, line);
    if (!out.emplace(cells.front(), cells.back()).second)
      return error_at(path, fmt::format("record {} is listed twice", cells.front()), number, 0,
                      line);
  }
  return out;
}

}  // namespace vramscope::bench
