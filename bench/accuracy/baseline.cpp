#include "accuracy/baseline.hpp"

#include <vramscope/core/io.hpp>

#include <fmt/format.h>

namespace vramscope::bench {

namespace {

constexpr const char* schema = "vramscope-accuracy-baseline/1";

nlohmann::json group_json(const group_summary& g) {
  nlohmann::json levels = nlohmann::json::object();
  for (std::size_t i = 0; i < level_names.size(); ++i)
    levels[std::string(level_names[i])] = {
        {"n", g.levels[i].n}, {"median", g.levels[i].median}, {"p90", g.levels[i].p90}};
  return {{"cases", g.cases},
          {"oom_agree", g.oom_agree},
          {"oom_total", g.oom_total},
          {"levels", levels}};
}


result<group_summary> read_group(const nlohmann::json& doc, const std::string& name,
                                 const std::string& path) {
  if (!doc.contains(name) || !doc[name].is_object())
    return error_at(path, fmt::format("missing field \"{}\"", name));
  const auto& g = doc[name];
  group_summary out;
  auto cases = json_number<std::size_t>(g, "cases", name + ".", path);
  auto agree = json_number<std::size_t>(g, "oom_agree", name + ".", path);
  auto total = json_number<std::size_t>(g, "oom_total", name + ".", path);
  if (!cases) return cases.error();
  if (!agree) return agree.error();
  if (!total) return total.error();
  out.cases = *cases;
  out.oom_agree = *agree;
  out.oom_total = *total;
  for (std::size_t i = 0; i < level_names.size(); ++i) {
    const std::string where = fmt::format("{}.levels.{}.", name, level_names[i]);
    const nlohmann::json level = g.contains("levels") && g["levels"].is_object() &&
                                         g["levels"].contains(std::string(level_names[i]))
                                     ? g["levels"][std::string(level_names[i])]
                                     : nlohmann::json();
    auto n = json_number<std::size_t>(level, "n", where, path);
    auto median = json_number<double>(level, "median", where, path);
    auto p90 = json_number<double>(level, "p90", where, path);
    if (!n) return n.error();
    if (!median) return median.error();
    if (!p90) return p90.error();
    out.levels[i] = {*n, *median, *p90};
  }
  return out;
}

double agreement(const group_summary& g) {
  return g.oom_total == 0 ? 1.0
                          : static_cast<double>(g.oom_agree) / static_cast<double>(g.oom_total);
}

}  // namespace

nlohmann::json to_baseline_json(const summary& s) {
  return {{"schema", schema},
          {"note",
           "written by vramscope_accuracy --write-baseline; only the \"measured\" group "
           "is a statement about accuracy"},
          {"measured", group_json(s.measured)},
          {"not_measured", group_json(s.not_measured)}};
}

result<nlohmann::json> read_baseline_document(const std::string& path, std::string_view schema) {
  auto text = read_file(path);
  if (!text) return text.error();
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return error_at(path, "not a JSON object");
  if (!doc.contains("schema") || doc["schema"] != std::string(schema))
    return error_at(path, fmt::format("expected \"schema\": \"{}\"", schema));
  return doc;
}

result<summary> read_baseline(const std::string& path) {
  auto read = read_baseline_document(path, schema);
  if (!read) return read.error();
  const auto& doc = *read;
  auto measured = read_group(doc, "measured", path);
  if (!measured) return measured.error();
  auto placeholder = read_group(doc, "not_measured", path);
  if (!placeholder) return placeholder.error();
  return summary{*measured, *placeholder};
}

std::vector<std::string> regressions(const group_summary& before, const group_summary& now,
                                     const std::string& group) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < level_names.size(); ++i) {
    const auto& b = before.levels[i];
    const auto& n = now.levels[i];
    const auto name = level_names[i];
    if (n.n < b.n)
      out.push_back(
          fmt::format("{} {}: scored on {} cases, the baseline on {}", group, name, n.n, b.n));
    if (n.median > b.median + baseline_epsilon)
      out.push_back(fmt::format("{} {}: median |error| {:.4f} %, baseline {:.4f} %", group, name,
                                n.median * 100, b.median * 100));
    if (n.p90 > b.p90 + baseline_epsilon)
      out.push_back(fmt::format("{} {}: p90 |error| {:.4f} %, baseline {:.4f} %", group, name,
                                n.p90 * 100, b.p90 * 100));
  }
  if (agreement(now) + baseline_epsilon < agreement(before))
    out.push_back(fmt::format("{} OOM agreement: {} of {}, baseline {} of {}", group, now.oom_agree,
                              now.oom_total, before.oom_agree, before.oom_total));
  return out;
}

std::vector<std::string> improvements(const group_summary& before, const group_summary& now,
                                      const std::string& group) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < level_names.size(); ++i) {
    const auto& b = before.levels[i];
    const auto& n = now.levels[i];
    if (n.median + baseline_epsilon < b.median || n.p90 + baseline_epsilon < b.p90 || n.n > b.n)
      out.push_back(fmt::format("{} {}", group, level_names[i]));
  }
  return out;
}

}  // namespace vramscope::bench
