#include "accuracy/published_report.hpp"

#include <vramscope/core/io.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "accuracy/baseline.hpp"
#include "accuracy/groundtruth.hpp"

namespace vramscope::bench {

namespace {

constexpr const char* schema = "vramscope-published-baseline/1";

std::string figure(std::optional<bytes> b) { return b ? format_bytes(*b) : "-"; }

std::string render_case(const published_case& c) {
  const auto& r = c.record;
  const std::string level = r.level ? std::string(level_names[*r.level]) : "(not stated)";
  const std::string error = c.error ? fmt::format("{:+.1f} %", *c.error * 100) : "-";
  const std::string oom =
      fmt::format("{}/{}{}", r.oom ? "oom" : "ran", c.predicted_oom ? "oom" : "fits",
                  r.oom == c.predicted_oom ? "" : " DISAGREE");
  return fmt::format("{:<5} {}  {:<12} {:>11} {:>11} {:>9}  {:<17} {}\n", r.id, r.quality, level,
                     figure(r.value), figure(c.predicted), error, oom, c.peak_phase);
}

std::string render_group(const published_group& g) {
  const std::string median = g.n ? fmt::format("{:.1f} %", g.median * 100) : "-";
  const std::string p90 = g.n ? fmt::format("{:.1f} %", g.p90 * 100) : "-";
  const std::string bias = g.n ? fmt::format("{:+.1f} %", g.bias * 100) : "-";
  return fmt::format("{:<5} {:>7} {:>9} {:>4} {:>9} {:>9} {:>9} {:>5} of {}\n", g.name,
                     g.records, g.expressed, g.n, median, p90, bias, g.oom_agree, g.oom_total);
}

const published_group* find_group(const std::vector<published_group>& groups,
                                  const std::string& name) {
  const auto it =
      std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.name == name; });
  return it == groups.end() ? nullptr : &*it;
}

double agreement(const published_group& g) {
  return g.oom_total == 0 ? 1.0
                          : static_cast<double>(g.oom_agree) / static_cast<double>(g.oom_total);
}


result<published_group> read_group(const nlohmann::json& g, const std::string& name,
                                   const std::string& path) {
  published_group out{name};
  const std::string where = "groups." + name;
  const std::array<std::pair<const char*, std::size_t*>, 5> counts{{{"records", &out.records},
                                                                    {"expressed", &out.expressed},
                                                                    {"n", &out.n},
                                                                    {"oom_agree", &out.oom_agree},
                                                                    {"oom_total", &out.oom_total}}};
  for (const auto& [key, field] : counts) {
    auto v = json_number<std::size_t>(g, key, where + ".", path);
    if (!v) return v.error();
    *field = *v;
  }
  const std::array<std::pair<const char*, double*>, 2> errors{
      {{"median", &out.median}, {"p90", &out.p90}}};
  for (const auto& [key, field] : errors) {
    auto v = json_number<double>(g, key, where + ".", path);
    if (!v) return v.error();
    *field = *v;
  }
  return out;
}

}  // namespace

std::string render_published(const published_set& set, const std::vector<published_group>& groups) {
  std::string out =
      fmt::format("{:<5} {}  {:<12} {:>11} {:>11} {:>9}  {:<17} {}\n", "id", "q", "level",
                  "published", "predicted", "error", "oom pub/pred", "predicted allocated peak");
  for (const auto& c : set.cases) out += render_case(c);
  out += fmt::format("\n{:<5} {:>7} {:>9} {:>4} {:>9} {:>9} {:>9} {:>10}\n", "group",
                     "records", "expressed", "n", "median", "p90", "bias", "OOM agree");
  for (const auto& g : groups) out += render_group(g);
  out += fmt::format(
      "(records: quality A/B; n: scored for |relative error| on the record's own metric; bias: "
      "the mean signed error, + over-predicted; "
      "{} quality C records are never scored; exact: the records whose sequence length is the "
      "real tensor length, not a cap)\n",
      set.quality_c);
  out += fmt::format("\nnot expressible ({} records):\n", set.unexpressed.size());
  for (const auto& [r, feature] : set.unexpressed) out += fmt::format("  {}  {}\n", r.id, feature);
  return out;
}

nlohmann::json to_published_baseline_json(const std::vector<published_group>& groups) {
  nlohmann::json doc = {{"schema", schema},
                        {"note", "written by vramscope_accuracy --published --write-baseline"},
                        {"groups", nlohmann::json::object()}};
  for (const auto& g : groups)
    doc["groups"][g.name] = {{"records", g.records},
                             {"expressed", g.expressed},
                             {"n", g.n},
                             {"median", g.median},
                             {"p90", g.p90},
                             {"oom_agree", g.oom_agree},
                             {"oom_total", g.oom_total}};
  return doc;
}

result<std::vector<published_group>> read_published_baseline(const std::string& path) {
  auto read = read_baseline_document(path, schema);
  if (!read) return read.error();
  const auto& doc = *read;
  if (!doc.contains("groups") || !doc["groups"].is_object())
    return error_at(path, "missing field \"groups\"");
  std::vector<published_group> out;
  for (const auto& [name, g] : doc["groups"].items()) {
    auto group = read_group(g, name, path);
    if (!group) return group.error();
    out.push_back(*group);
  }
  return out;
}

std::vector<std::string> published_regressions(const std::vector<published_group>& before,
                                               const std::vector<published_group>& now) {
  std::vector<std::string> out;
  for (const auto& b : before) {
    const auto* n = find_group(now, b.name);
    if (n == nullptr) {
      out.push_back(fmt::format("group {} is gone", b.name));
      continue;
    }
    if (n->expressed < b.expressed)
      out.push_back(fmt::format("{}: {} records expressed, the baseline {}", b.name, n->expressed,
                                b.expressed));
    if (n->n < b.n)
      out.push_back(fmt::format("{}: scored on {} records, the baseline on {}", b.name, n->n, b.n));
    if (n->median > b.median + baseline_epsilon)
      out.push_back(fmt::format("{}: median |error| {:.4f} %, baseline {:.4f} %", b.name,
                                n->median * 100, b.median * 100));
    if (n->p90 > b.p90 + baseline_epsilon)
      out.push_back(fmt::format("{}: p90 |error| {:.4f} %, baseline {:.4f} %", b.name, n->p90 * 100,
                                b.p90 * 100));
    if (agreement(*n) + baseline_epsilon < agreement(b))
      out.push_back(fmt::format("{}: OOM agreement {} of {}, baseline {} of {}", b.name,
                                n->oom_agree, n->oom_total, b.oom_agree, b.oom_total));
  }
  return out;
}

std::vector<std::string> published_improvements(const std::vector<published_group>& before,
                                                const std::vector<published_group>& now) {
  std::vector<std::string> out;
  for (const auto& b : before) {
    const auto* n = find_group(now, b.name);
    if (n == nullptr) continue;
    if (n->median + baseline_epsilon < b.median || n->p90 + baseline_epsilon < b.p90 ||
        n->n > b.n || n->expressed > b.expressed || agreement(*n) > agreement(b) + baseline_epsilon)
      out.push_back(b.name);
  }
  return out;
}

}  // namespace vramscope::bench
