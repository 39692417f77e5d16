#pragma once
// The accuracy baseline: per level the median and 90th-percentile absolute relative error and
// the number of cases scored, plus OOM agreement, for measured lines and for placeholder lines
// separately. Committed as bench/data/baseline.json; a change to the planner must not make any
// measured figure worse (docs/design.md, "How accuracy is established").
//
// File format (schema "vramscope-accuracy-baseline/1"):
//   {"schema": ..., "note": ...,
//    "measured":     {"cases": N, "oom_agree": A, "oom_total": T,
//                     "levels": {"allocated": {"n": k, "median": x, "p90": y}, ...}},
//    "not_measured": {same shape}}

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string_view>
#include <type_traits>

#include "accuracy/scoring.hpp"

namespace vramscope::bench {

/// Errors compared within this tolerance are equal (they are computed from integers, so two
/// runs of the same data give the same doubles; the tolerance only absorbs printing).
inline constexpr double baseline_epsilon = 1e-9;

nlohmann::json to_baseline_json(const summary& s);

/// Reads a baseline file. Fails naming the file and the missing or mistyped field.
result<summary> read_baseline(const std::string& path);

/// What got worse from `before` to `now` in one group, one message per finding: a level whose
/// median or p90 grew by more than baseline_epsilon, a level scored on fewer cases than
/// before, a lower OOM agreement rate. Empty when nothing got worse. `group` prefixes messages.
std::vector<std::string> regressions(const group_summary& before, const group_summary& now,
                                     const std::string& group);

/// Levels of `now` that improved on `before` (for a hint to refresh the baseline).
std::vector<std::string> improvements(const group_summary& before, const group_summary& now,
                                      const std::string& group);

/// Reads a baseline file: a JSON object whose "schema" is `schema`. Errors name `path`.
result<nlohmann::json> read_baseline_document(const std::string& path, std::string_view schema);

/// The number at `obj[key]` (a count for integral T), or an error naming `path` and the field
/// as `where` + key ("measured.cases"): missing field, or not a number / not a count.
template <typename T>
result<T> json_number(const nlohmann::json& obj, const std::string& key, const std::string& where,
                       const std::string& path) {
  if (!obj.is_object() || !obj.contains(key))
    return error_at(path, fmt::format("missing field \"{}{}\"", where, key));
  const auto& v = obj[key];
  if constexpr (std::is_same_v<T, double>) {
    if (!v.is_number())
      return error_at(path, fmt::format("field \"{}{}\": expected a number", where, key));
  } else {
    if (!v.is_number_unsigned())
      return error_at(path, fmt::format("field \"{}{}\": expected a count", where, key));
  }
  return v.get<T>();
}

}  // namespace vramscope::bench
