#pragma once
// Reports of a prediction: pure functions of the data, no I/O.

#include <string>

#include <nlohmann/json.hpp>

#include <vramscope/predict/prediction.hpp>

namespace vramscope::report {

/// The per-rank table (ranks that behave alike grouped), the breakdown of the busiest rank,
/// the per-GPU table (what nvidia-smi will show) and the verdict with headroom or shortfall.
std::string render_plan_text(const predict::prediction& p);

/// The stable JSON shape of DESIGN.md ("job", "fits", "ranks", "gpus"), every figure in bytes.
nlohmann::json plan_json(const predict::prediction& p);

/// "rank,event,phase,allocated,active,reserved" rows of every simulated rank's curve.
std::string timeline_csv(const predict::prediction& p);

/// One line: "does not fit: rank 3 runs out of memory in backward:layers.7 (short by 2.1 GiB)".
std::string verdict_line(const predict::prediction& p);

}  // namespace vramscope::report
