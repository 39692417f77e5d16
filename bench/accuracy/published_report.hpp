#pragma once
// Output and baseline of the published yardstick (published.hpp): the per-record table, the
// figures per group, the records that cannot be expressed, and the committed baseline the
// figures must not get worse than.
//
// Baseline file (schema "vramscope-published-baseline/1"):
//   {"schema": ..., "note": ...,
//    "groups": {"LR": {"records": R, "expressed": E, "n": k, "median": x, "p90": y,
//                      "oom_agree": A, "oom_total": T}, ..., "all": {...}}}

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>

#include <nlohmann/json.hpp>

#include "accuracy/published.hpp"

namespace vramscope::bench {

/// One line per scored record, the group figures, then the records not expressed with their
/// missing feature. Pure function of its arguments.
std::string render_published(const published_set& set, const std::vector<published_group>& groups);

nlohmann::json to_published_baseline_json(const std::vector<published_group>& groups);

/// Reads a baseline file. Fails naming the file and the missing or mistyped field.
result<std::vector<published_group>> read_published_baseline(const std::string& path);

/// What got worse from `before` to `now`, one message per finding: a group with fewer records
/// expressed or scored, a larger median or p90 |error| (beyond baseline_epsilon), a lower OOM
/// agreement rate, or a group of the baseline that is gone. Empty when nothing got worse.
std::vector<std::string> published_regressions(const std::vector<published_group>& before,
                                               const std::vector<published_group>& now);

/// Groups whose figures improved on `before` (for a hint to refresh the baseline).
std::vector<std::string> published_improvements(const std::vector<published_group>& before,
                                                const std::vector<published_group>& now);

}  // namespace vramscope::bench
