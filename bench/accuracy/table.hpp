#pragma once
// The scorer's text output: one block per case (each level measured vs predicted with its
// relative error, then OOM), and the statistics per group. Placeholder lines
// ("measured": false) are marked on every case and announced before and after the tables.
// Pure functions of their arguments.

#include <string>
#include <vector>

#include "accuracy/scoring.hpp"

namespace vramscope::bench {

/// The per-case table.
std::string render_cases(const std::vector<case_result>& cases);

/// Median and p90 |relative error| per level and OOM agreement, for each non-empty group.
std::string render_summary(const summary& s);

/// The warning printed when placeholder lines were scored; empty when there were none.
std::string not_measured_banner(const summary& s);

}  // namespace vramscope::bench
