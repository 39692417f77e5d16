#pragma once
// vramscope_accuracy: scores vramscope's predictions against ground-truth JSON lines.
//
//   vramscope_accuracy FILE.jsonl... [--baseline FILE] [--write-baseline FILE]
//                      [--gate-not-measured]
//   vramscope_accuracy --published DIR --unexpressed LIST.md [--baseline FILE]
//                      [--write-baseline FILE]
//
// Prints every case (measured vs predicted per level, relative error, OOM) and per level the
// median and 90th-percentile absolute relative error, kept apart for measured and placeholder
// lines. With --baseline, a measured level whose median or p90 got worse, that is scored on
// fewer cases, or a lower OOM agreement fails the run (placeholder lines too with
// --gate-not-measured). --write-baseline writes the current figures atomically.
//
// With --published, scores the published yardstick instead (published.hpp): DIR/records.jsonl
// and one job DIR/<id>.yaml per expressible record, the others listed in LIST.md; prints each
// record's error on its own metric, median and p90 |error| and OOM agreement per group, and
// gates on (or writes) a baseline of schema vramscope-published-baseline/1.
//
// Exit status: 0 ok; 1 worse than the baseline, or the harness and the planner resolved a
// job differently (MISMATCH lines); 2 bad input (file:line and the field); 3 internal error.

#include <ostream>
#include <string>
#include <vector>

namespace vramscope::bench {

/// Runs the scorer with `args` (without the program name). Writes the report to `out` and
/// diagnostics to `err`; returns the exit status above. Throws only on bugs.
int run_accuracy(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vramscope::bench
