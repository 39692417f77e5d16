#pragma once
// The axes of a what-if grid, as `compare --vary` and `fit --try` take them:
//
//   KEY=v1,v2,...        listed values (any value --set accepts)
//   KEY=1..64            every integer from 1 to 64
//   KEY=pow2:1..128      the powers of two from 1 to 128
//
// Items may be mixed ("micro_batch=1..4,8,pow2:16..64"). Messages name the option the axis came
// from, e.g. `--try: "1..x" is not a range (expected A..B or pow2:A..B with integers A <= B)`.
// Thread-safe: no shared state.

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>

namespace vramscope::cli {

struct axis {
  std::string key;                  // dotted job-spec path, "training.micro_batch"
  std::vector<std::string> values;  // in the order given, ranges expanded
};

/// The most values one range may expand to; a larger range is bad input, not a hang.
inline constexpr std::size_t max_range_values = 100000;

/// Parses one "KEY=items" given to `option` ("--vary", "--try").
result<axis> parse_axis(const std::string& text, const std::string& option);

/// Parses every axis and refuses a key given twice (`option`: "parallel.tp" given twice).
result<std::vector<axis>> parse_axes(const std::vector<std::string>& texts,
                                     const std::string& option);

/// Every combination as "key=value" settings, first axis slowest. Empty axes give one empty row.
std::vector<std::vector<std::string>> combinations(const std::vector<axis>& axes);

}  // namespace vramscope::cli
