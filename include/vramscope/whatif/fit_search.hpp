#pragma once
// `fit --maximize KEY`: the largest value of one numeric job field that fits.
//
// For fields that only add memory as they grow (monotone_keys()) the search gallops from 1
// (1, 2, 4, ...) to the first value that does not fit, then bisects: about 2 log2(answer) plans.
// Memory is monotone in these fields because each scales tensors that are allocated in the same
// order whatever their size (activations with micro_batch and seq_len, adapters with lora.rank);
// tests/cli/fit_test.cpp checks it on a sweep. Any other integer field is scanned value by value
// from 1 to `up_to`, since a divisibility rule or a sharding degree may fit at 8 but not at 6.

#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>

#include <vramscope/whatif/what_if.hpp>

namespace vramscope::whatif {

/// The fields searched by galloping and bisection.
const std::vector<std::string>& monotone_keys();

/// "Fits" here means fits outside the safety margin (predict::fit_state::fits): the search
/// maximizes under the margin, so a value that is tight is a miss.
struct maximize_result {
  std::string key;
  bool bisected = false;                 // galloping + bisection; else a scan of 1..up_to
  std::int64_t up_to = 0;                // the largest value tried
  std::optional<std::int64_t> best_value;
  std::optional<row_outcome> best;       // the row at best_value
  std::optional<row_outcome> miss;       // the smallest value above best that does not fit or
                                         // is tight (or 1 when nothing fits), with `need` filled
  std::vector<row_outcome> tried;        // every valid value planned, in value order (the
                                         // miss with its need)
  std::size_t evaluated = 0;             // plans run, counting both of a miss
  std::string stopped;                   // why the search went no higher, when not a miss:
                                         // the first invalid value's message, or the limit
};

/// Requires: `key` names an integer field (bad input naming --maximize otherwise).
result<maximize_result> maximize(const what_if& engine, const std::string& key,
                                 std::int64_t up_to);

/// A combination the job rules refuse, and why.
struct refused_row {
  std::vector<std::string> settings;
  diagnostic why;
};

/// `fit --try`: the rows of a grid sorted out.
struct try_summary {
  std::size_t combinations = 0;
  std::vector<row_outcome> fitting;   // fit outside the margin; cheapest per token first:
                                      // recompute share, then network bytes per token, then
                                      // host memory, then the most headroom; grid order among
                                      // equals
  std::vector<row_outcome> tight;     // fit, but inside the safety margin; ranked as fitting
  std::vector<row_outcome> missing;   // planned, do not fit; in grid order
  std::vector<refused_row> invalid;   // combinations the job rules refuse, in grid order
  std::optional<row_outcome> closest; // when nothing fits: the miss with the least shortfall
};

/// Sorts evaluated rows into fitting (ranked), tight, missing and invalid. `grid[i]` holds the
/// settings of rows[i].
try_summary summarize(std::vector<result<row_outcome>> rows,
                      const std::vector<std::vector<std::string>>& grid);

/// When nothing fits, plans each miss with unlimited memory and picks the closest.
status fill_closest_miss(const what_if& engine, try_summary& s);

}  // namespace vramscope::whatif
