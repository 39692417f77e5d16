#include <vramscope/report/findings_report.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "report/html_common.hpp"

namespace vramscope::report {

namespace {

constexpr const char* no_findings = "no findings: nothing in the inputs matches a known problem";

// "254.0 MiB less on the busiest GPU (re-planned with ...)". Requires: f.saving.
std::string saving_phrase(const doctor::finding& f) {
  const std::int64_t s = *f.saving;
  const std::string amount = s >= 0 ? format_bytes(static_cast<bytes>(s)) + " less"
                                    : format_bytes(static_cast<bytes>(-s)) + " more";
  return fmt::format("{} on the busiest GPU ({})", amount, f.saving_basis);
}

// "likely" for a likelihood, as doctor/likelihood.hpp names its levels.
std::string_view likelihood_word(double l) {
  if (l >= 0.9) return "decisive";
  if (l >= 0.8) return "strong";
  if (l >= 0.65) return "likely";
  if (l >= 0.45) return "possible";
  return "unlikely";
}

}  // namespace

std::string render_findings_text(const std::vector<doctor::finding>& findings) {
  if (findings.empty()) return std::string(no_findings) + "\n";
  std::string out;
  std::size_t rank = 0;
  for (const auto& f : findings) {
    if (!f.cause_class.empty())
      out += fmt::format("{}. [{}] {} {} ({}: {})\n", ++rank, doctor::name_of(f.level), f.rule, f.title,
                         f.cause_class, likelihood_word(f.likelihood));
    else
      out += fmt::format("[{}] {} {}\n", doctor::name_of(f.level), f.rule, f.title);
    for (const auto& e : f.evidence) out += "  evidence: " + e + "\n";
    for (const auto& e : f.support) out += "  for: " + e + "\n";
    for (const auto& e : f.against) out += "  against: " + e + "\n";
    if (!f.cause.empty()) out += "  cause: " + f.cause + "\n";
    if (!f.fix.empty()) out += "  fix: " + f.fix + "\n";
    if (f.saving) out += "  saving: " + saving_phrase(f) + "\n";
    out += "\n";
  }
  return out;
}

nlohmann::json findings_json(const std::vector<doctor::finding>& findings) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : findings) {
    nlohmann::json j = {{"rule", f.rule},         {"title", f.title},
                        {"severity", doctor::name_of(f.level)}, {"evidence", f.evidence},
                        {"cause", f.cause},       {"fix", f.fix},
                        {"saving", nullptr},      {"saving_basis", f.saving_basis}};
    if (f.saving) j["saving"] = *f.saving;
    j["cause_class"] = f.cause_class.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.cause_class);
    j["likelihood"] = f.likelihood;
    j["support"] = f.support;
    j["against"] = f.against;
    list.push_back(std::move(j));
  }
  return {{"findings", list}};
}

std::string findings_html(const std::vector<doctor::finding>& findings,
                          const std::vector<std::string>& inputs) {
  using detail::escape;
  std::string read;
  for (const auto& i : inputs) read += (read.empty() ? "read: " : ", ") + i;
  std::string out = detail::page_start(
      "vramscope explain", read,
      ".finding{border-left:6px solid #bab0ac;padding:6px 14px;margin:14px 0;background:#fafafa}"
      ".finding.error{border-color:#e15759}.finding.warning{border-color:#f28e2b}"
      ".finding.info{border-color:#4e79a7}.finding h2{margin:4px 0}"
      ".label{color:#555;font-weight:600;margin-right:6px}");
  std::size_t errors = 0;
  for (const auto& f : findings) errors += f.level == doctor::severity::error ? 1 : 0;
  out += fmt::format("<p class=\"verdict {}\">{}</p>\n", errors ? "nofit" : "fits",
                     findings.empty() ? std::string(no_findings)
                                      : fmt::format("{} finding{}, {} error{}", findings.size(),
                                                    findings.size() == 1 ? "" : "s", errors,
                                                    errors == 1 ? "" : "s"));
  // The savings side by side: how much each fix gives back on the busiest GPU.
  std::int64_t largest = 0;
  for (const auto& f : findings) largest = std::max(largest, f.saving.value_or(0));
  if (largest > 0) {
    out += "<h2>What each fix saves on the busiest GPU</h2>\n";
    std::size_t n = 0;
    for (const auto& f : findings) n += f.saving.value_or(0) > 0 ? 1u : 0u;
    const int width = 600, bar = 18, gap = 6, label = 110;
    out += fmt::format("<svg class=\"savings\" width=\"{}\" height=\"{}\" role=\"img\" "
                       "aria-label=\"savings\">\n", label + width + 120, static_cast<int>(n) * (bar + gap) + 4);
    int y = 2;
    for (const auto& f : findings) {
      if (f.saving.value_or(0) <= 0) continue;
      const double w = width * static_cast<double>(*f.saving) / static_cast<double>(largest);
      out += fmt::format("<text x=\"0\" y=\"{}\">{}</text><rect class=\"saving\" x=\"{}\" y=\"{}\" "
                         "width=\"{:.1f}\" height=\"{}\" fill=\"#59a14f\"><title>{}</title></rect>"
                         "<text x=\"{:.1f}\" y=\"{}\">{}</text>\n",
                         y + bar - 5, escape(f.rule), label, y, w, bar, escape(f.title),
                         label + w + 6, y + bar - 5, format_bytes(static_cast<bytes>(*f.saving)));
      y += bar + gap;
    }
    out += "</svg>\n";
  }
  for (const auto& f : findings) {
    const std::string_view level = doctor::name_of(f.level);
    out += fmt::format("<section class=\"finding {}\"><h2>{} {} <span class=\"note\">({})</span></h2>\n",
                       level, escape(f.rule), escape(f.title), level);
    if (!f.evidence.empty()) {
      out += "<p class=\"label\">evidence</p><ul>\n";
      for (const auto& e : f.evidence) out += "<li>" + escape(e) + "</li>\n";
      out += "</ul>\n";
    }
    if (!f.cause.empty()) out += "<p><span class=\"label\">cause</span>" + escape(f.cause) + "</p>\n";
    if (!f.fix.empty()) out += "<p><span class=\"label\">fix</span><code>" + escape(f.fix) + "</code></p>\n";
    if (f.saving) out += "<p><span class=\"label\">saving</span>" + escape(saving_phrase(f)) + "</p>\n";
    out += "</section>\n";
  }
  out += "<p class=\"note\">Written by vramscope explain --html.</p>\n</body></html>\n";
  return out;
}

std::string render_rules_text() {
  std::string out;
  for (const auto& r : doctor::all_rules())
    out += fmt::format("{:<8} {}\n         when: {}\n", r.id, r.title, r.when);
  return out;
}

}  // namespace vramscope::report
