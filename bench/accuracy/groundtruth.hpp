#pragma once
// Ground-truth lines: the JSON lines bench/groundtruth/measure_torch.py and measure_jax.py
// write, one measured rank of one job per line (format in bench/README.md, "The measurement
// line"). The scorer reads only what it needs: the job as measured, the rank, the four peaks,
// whether the run ran out of memory, and the settings the harness says it applied.
// Thread-safe: no shared state.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

#include <nlohmann/json.hpp>

namespace vramscope::bench {

/// The four levels of docs/design.md, in the order every array below uses.
inline constexpr std::array<std::string_view, 4> level_names{"allocated", "active", "reserved",
                                                             "device"};

/// One line: a rank of a job and its measured peaks.
struct measurement {
  std::string source;    // file the line came from
  int line = 0;          // 1-based line number in `source`
  std::string name;      // the line's "case", or "source:line" when it has none
  bool measured = true;  // false: placeholder numbers, not a measurement
  int rank = 0;
  std::string process_group = "real";  // "fake" (fake process group), "none" (one process,
                                       // no group) or "real"
  nlohmann::json job;                  // the job spec as it ran (an object; JSON is YAML)
  nlohmann::json applied;              // harness.applied: {dotted path: value}, or null when absent
  std::array<std::optional<bytes>, 4> peak;  // by level_names; nullopt where not recorded
  std::optional<bool> oom;  // the run ran out of memory (peaks are those at the failure);
                            // nullopt: not recorded (settings-only lines)
  std::string oom_phase;
};

/// Parses one line. Required: "measured" (bool), "job" (object), "rank" (integer >= 0),
/// "peak" (object with the four levels, each a byte count >= 0 or null), "oom" (bool, or null
/// when not recorded; a measured line must say true or false).
/// Optional: "case" (string), "process_group" ("fake", "none", "real"), "oom_phase",
/// "harness": {"applied": {...}}. Messages name `source:line` and the field:
///   bench/data/x.jsonl:3: missing field "peak"
///   bench/data/x.jsonl:3: field "rank": expected an integer >= 0, got "one"
///   bench/data/x.jsonl:3:17: invalid JSON: syntax error while parsing value ...
result<measurement> parse_measurement(std::string_view text, const std::string& source, int line);

/// Every non-blank line of a JSONL file, in order. Fails on an unreadable file or on the first
/// bad line (parse_measurement's message).
result<std::vector<measurement>> read_groundtruth(const std::string& path);

}  // namespace vramscope::bench
