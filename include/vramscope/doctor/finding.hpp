#pragma once
// The doctor reads a job (optional), its prediction, and what the user observed, and returns
// findings: the evidence it used, the cause in plain words, the fix as the user would write it,
// and what the fix saves (computed by re-planning the job with the fix applied when a job is
// given, otherwise read off the observation).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/observe/observation.hpp>
#include <vramscope/predict/prediction.hpp>

namespace vramscope::doctor {

enum class severity { info, warning, error };
std::string_view name_of(severity s);

struct finding {
  std::string rule;                   // rule id, e.g. "JAX001"
  std::string title;                  // one line; empty: the catalogue's title for the rule
  severity level = severity::warning;
  std::vector<std::string> evidence;  // numbers with units and where they came from
  std::string cause;
  std::string fix;                    // config field, environment variable or code line
  std::optional<std::int64_t> saving; // bytes on the busiest GPU (positive = less memory)
  std::string saving_basis;           // how the saving was computed
};

/// What the rules may read. Pointers may be null when the user gave no such input.
struct doctor_input {
  const job::job_spec* job = nullptr;
  const model::model_spec* model = nullptr;
  const predict::prediction* prediction = nullptr;
  const observe::observation* observed = nullptr;
  /// For a prediction that does not fit: what the job's whole step needs on the busiest GPU
  /// (doctor/replan.hpp, unbounded_need), which every fix is priced against. diagnose() plans it
  /// once for all the rules; where it is empty, a rule's re-plan plans it itself.
  std::optional<bytes> need;
};

using rule_fn = std::vector<finding> (*)(const doctor_input&);

struct rule {
  std::string_view id;
  std::string_view title;
  std::string_view when;  // what triggers it, for `explain --rules`
  rule_fn check;
};

/// The rule catalogue, in the order findings are reported.
std::span<const rule> all_rules();

/// Runs every rule; findings ordered by severity (errors first), then catalogue order.
std::vector<finding> diagnose(const doctor_input& input);

}  // namespace vramscope::doctor
