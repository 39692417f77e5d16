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
  /// The cause this finding names, one of cause_classes() ("fragmentation", "other_process",
  /// ...); empty for a finding that names no cause (OPT001's table, PRED001's disagreement).
  std::string cause_class;
  /// How well the facts support this cause, 0 to 1 (doctor/likelihood.hpp says how each level
  /// is reached). diagnose() ranks findings by it: the first finding is the most likely cause.
  double likelihood = 0;
  std::vector<std::string> support;   // facts for this cause, each with where it was read
  std::vector<std::string> against;   // facts against it, which the ranking weighed
};

/// The causes a finding may name, in the order docs/rules.md describes them.
std::span<const std::string_view> cause_classes();

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

/// Runs every rule; findings ordered as a differential diagnosis: the findings that name a cause
/// by likelihood (most likely first, catalogue order among equals), then those that name none.
std::vector<finding> diagnose(const doctor_input& input);

}  // namespace vramscope::doctor
