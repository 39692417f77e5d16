#pragma once
// Scoring: plan the job of every ground-truth line with predict::plan and compare, level by
// level, what was measured with what was predicted for the same rank.
//
// What is compared:
//   allocated, active, reserved  the rank's predicted peaks (predict::rank_prediction::peak)
//   device                       a "real" line: the rank's predicted device figure (everything
//                                on its GPU); a "fake" or "none" line: reserved + CUDA context
//                                of the rank's own process, since a rank measured alone with
//                                the fake process group has no NCCL buffers and shares its GPU
//                                with nobody (bench/README.md)
//   OOM                          predicted: the rank's simulation ran out of memory, or its
//                                comparable device figure exceeds hardware.gpu_memory
// Relative error = (predicted - measured) / measured; the statistics use its absolute value.
// Lines that ran out of memory count for OOM agreement only (their peaks stop at the failure);
// lines without an OOM record ("oom": null, settings-only lines) do not count for it.

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/model/model_spec.hpp>

#include <nlohmann/json.hpp>

#include "accuracy/groundtruth.hpp"

namespace vramscope::bench {

struct level_result {
  std::optional<bytes> measured, predicted;
  std::optional<double> error;  // (predicted - measured) / measured; nullopt when not scored
};

struct case_result {
  measurement line;
  std::array<level_result, 4> levels;  // by level_names
  bool predicted_oom = false;
  std::string peak_phase;  // the predicted phase of the allocated peak
  /// Settings the harness ran with that differ from the planner's resolution of the same job
  /// ("parallel.dp_shard: harness ran 4, planner resolved 8"). A case with any is not scored.
  std::vector<std::string> mismatches;
};

/// Plans ground-truth lines, loading each model once. Not thread-safe.
class scorer {
 public:
  /// Fails when the line's job is not a valid job spec, its model cannot be loaded, the plan
  /// fails or the rank does not exist; messages start with "source:line: ".
  result<case_result> score(const measurement& line);

 private:
  result<const model::model_spec*> model_of(const std::string& name, const measurement& line);
  std::map<std::string, model::model_spec> models_;
};

/// The harness's settings against the planner's resolved job (job::to_json form): every
/// dotted path of `applied` must hold an equal value (names compared after
/// job::normalize_name, numbers by value). Returns one message per difference.
std::vector<std::string> compare_applied(const nlohmann::json& applied,
                                         const nlohmann::json& resolved);

struct level_stats {
  std::size_t n = 0;  // cases scored at this level
  double median = 0;  // of |relative error|
  double p90 = 0;
};

struct group_summary {
  std::size_t cases = 0;                // lines in the group
  std::array<level_stats, 4> levels{};  // by level_names
  std::size_t oom_agree = 0, oom_total = 0;
};

/// Statistics kept apart for measured lines and placeholder ("measured": false) lines.
struct summary {
  group_summary measured, not_measured;
};

summary summarize(const std::vector<case_result>& cases);

/// The q-quantile (0 <= q <= 1) with linear interpolation between order statistics
/// (position q * (n - 1)). Requires: non-empty values.
double quantile(std::vector<double> values, double q);

}  // namespace vramscope::bench
