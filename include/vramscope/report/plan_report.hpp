#pragma once
// Reports of a prediction: pure functions of the data, no I/O.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <vramscope/predict/prediction.hpp>

namespace vramscope::report {

/// The per-rank table (ranks that behave alike grouped), the breakdown of the busiest rank,
/// the per-GPU table (what nvidia-smi will show) and the verdict with headroom or shortfall.
std::string render_plan_text(const predict::prediction& p);

/// The stable JSON shape of docs/formats/plan-json.md ("job", "fits", "ranks", "gpus"), every
/// figure in bytes.
nlohmann::json plan_json(const predict::prediction& p);

/// "rank,event,phase,allocated,active,reserved" rows of every simulated rank's curve.
std::string timeline_csv(const predict::prediction& p);

/// The categories of a breakdown in report order, with their names: parameters, gradients,
/// optimizer, activations, communication, temporary, fragmentation, cuda_context, nccl,
/// other_processes, managed (paged).
std::vector<std::pair<std::string_view, bytes>> breakdown_rows(const predict::breakdown& b);

/// The job in one line: model, parameters, GPUs, strategy, precision, optimizer, training kind,
/// micro-batch; the first line of render_plan_text.
std::string plan_heading(const predict::prediction& p);

/// A self-contained HTML page (inline CSS and SVG, no script, nothing fetched): the verdict,
/// each GPU against its capacity with the processes on it, the breakdown of the busiest rank at
/// its peak, and the allocated / active / reserved curve of every simulated rank over the step
/// with its phases and the allocator's limit, side by side. Needs the timelines
/// (predict_options::timeline); without them the curves are left out.
std::string plan_html(const predict::prediction& p);

/// One line: "does not fit: rank 3 runs out of memory in backward:layers.7 (short by 2.1 GiB)".
std::string verdict_line(const predict::prediction& p);
std::string verdict_line(const predict::verdict_facts& v);

}  // namespace vramscope::report
