#include <vramscope/report/findings_report.hpp>

#include <fmt/format.h>

namespace vramscope::report {

namespace {

std::string saving_text(const doctor::finding& f) {
  if (!f.saving) return "";
  const std::int64_t s = *f.saving;
  const std::string amount = s >= 0 ? format_bytes(static_cast<bytes>(s)) + " less"
                                    : format_bytes(static_cast<bytes>(-s)) + " more";
  return fmt::format("  saving: {} on the busiest GPU ({})\n", amount, f.saving_basis);
}

}  // namespace

std::string render_findings_text(const std::vector<doctor::finding>& findings) {
  if (findings.empty()) return "no findings: nothing in the inputs matches a known problem\n";
  std::string out;
  for (const auto& f : findings) {
    out += fmt::format("[{}] {} {}\n", doctor::name_of(f.level), f.rule, f.title);
    for (const auto& e : f.evidence) out += "  evidence: " + e + "\n";
    if (!f.cause.empty()) out += "  cause: " + f.cause + "\n";
    if (!f.fix.empty()) out += "  fix: " + f.fix + "\n";
    out += saving_text(f) + "\n";
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
    list.push_back(std::move(j));
  }
  return {{"findings", list}};
}

std::string render_rules_text() {
  std::string out;
  for (const auto& r : doctor::all_rules())
    out += fmt::format("{:<8} {}\n         when: {}\n", r.id, r.title, r.when);
  return out;
}

}  // namespace vramscope::report
