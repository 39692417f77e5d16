#include "accuracy/table.hpp"

#include <fmt/format.h>

namespace vramscope::bench {

namespace {

std::string figure(std::optional<bytes> b) { return b ? format_bytes(*b) : "-"; }

std::string error_text(const level_result& level, std::optional<bool> oom) {
  if (level.error) return fmt::format("{:+.1f} %", *level.error * 100);
  if (oom == true) return "(at OOM)";
  return level.measured ? "not scored" : "not recorded";
}

std::string render_case(const case_result& c) {
  std::string out =
      fmt::format("{}  rank {}  [{}]{}\n", c.line.name, c.line.rank, c.line.process_group,
                  c.line.measured ? "" : "  NOT MEASURED (placeholder numbers)");
  out += fmt::format("  {:<10} {:>12} {:>12} {:>12}\n", "level", "measured", "predicted", "error");
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    const auto& level = c.levels[i];
    out += fmt::format("  {:<10} {:>12} {:>12} {:>12}\n", level_names[i], figure(level.measured),
                       figure(level.predicted), error_text(level, c.line.oom));
  }
  const std::string verdict = !c.mismatches.empty() || !c.line.oom ? "not scored"
                              : c.predicted_oom == *c.line.oom     ? "agree"
                                                                   : "DISAGREE";
  out += fmt::format("  {:<10} {:>12} {:>12} {:>12}\n", "oom",
                     !c.line.oom   ? "-"
                     : *c.line.oom ? "yes"
                                   : "no",
                     c.predicted_oom ? "yes" : "no", verdict);
  if (c.line.oom == true && !c.line.oom_phase.empty())
    out += fmt::format("  measured out of memory in {}\n", c.line.oom_phase);
  if (!c.peak_phase.empty()) out += fmt::format("  predicted allocated peak in {}\n", c.peak_phase);
  for (const auto& m : c.mismatches) out += "  MISMATCH " + m + "\n";
  return out;
}

std::string render_group(const group_summary& g, const std::string& title) {
  std::string out = fmt::format("{} ({} lines)\n", title, g.cases);
  out += fmt::format("  {:<10} {:>5} {:>14} {:>14}\n", "level", "n", "median |err|", "p90 |err|");
  for (std::size_t i = 0; i < g.levels.size(); ++i) {
    const auto& l = g.levels[i];
    if (l.n == 0) {
      out += fmt::format("  {:<10} {:>5} {:>14} {:>14}\n", level_names[i], 0, "-", "-");
      continue;
    }
    out += fmt::format("  {:<10} {:>5} {:>12.2f} % {:>12.2f} %\n", level_names[i], l.n,
                       l.median * 100, l.p90 * 100);
  }
  out += fmt::format("  OOM agreement: {} of {}\n", g.oom_agree, g.oom_total);
  return out;
}

}  // namespace

std::string render_cases(const std::vector<case_result>& cases) {
  std::string out;
  for (const auto& c : cases) out += render_case(c) + "\n";
  return out;
}

std::string render_summary(const summary& s) {
  std::string out;
  if (s.measured.cases > 0 || s.not_measured.cases == 0)
    out += render_group(s.measured, "MEASURED");
  if (s.not_measured.cases > 0)
    out += render_group(s.not_measured,
                        "NOT MEASURED: placeholder numbers, says nothing about accuracy");
  return out;
}

std::string not_measured_banner(const summary& s) {
  if (s.not_measured.cases == 0) return "";
  const std::size_t total = s.measured.cases + s.not_measured.cases;
  return fmt::format(
      "!!! {} of {} lines are NOT MEASUREMENTS (\"measured\": false). Their numbers are\n"
      "!!! placeholders that exercise the scorer; their errors say nothing about accuracy.\n",
      s.not_measured.cases, total);
}

}  // namespace vramscope::bench
