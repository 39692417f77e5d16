#pragma once
// Reports of the doctor's findings and of its rule catalogue: pure functions of the data.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <vramscope/doctor/finding.hpp>

namespace vramscope::report {

/// One block per finding: "[warning] NCCL001 title", evidence, cause, fix, saving.
std::string render_findings_text(const std::vector<doctor::finding>& findings);

/// {"findings": [{"rule", "title", "severity", "evidence", "cause", "fix", "saving",
/// "saving_basis"}]}; saving is bytes or null.
nlohmann::json findings_json(const std::vector<doctor::finding>& findings);

/// `explain --html`: a self-contained page (inline CSS, no script, nothing fetched). Each finding
/// as a card with its severity, evidence, cause, fix and saving; a bar per saving, so the fixes
/// compare at a glance; `inputs` lists what was read. Findings in the order given.
std::string findings_html(const std::vector<doctor::finding>& findings,
                          const std::vector<std::string>& inputs);

/// The catalogue for `explain --rules`: id, title and what triggers each rule.
std::string render_rules_text();

}  // namespace vramscope::report
