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
/// the per-GPU table (what nvidia-smi will show) and the verdict with headroom or shortfall;
/// the verdict comes last, followed by the margin's reason when it is tight and by
/// whole_step_line when the whole step's need is known.
std::string render_plan_text(const predict::prediction& p);

/// Up to how many ranks plan_json lists every rank and GPU ("ranks", "gpus") of a plan that kept
/// them as ranges; above it only "classes" and "ranges" stand for them.
inline constexpr int plan_json_listed_ranks = 4096;

/// The stable JSON shape of docs/formats/plan-json.md ("job", "fits", "ranks", "gpus",
/// "classes", "ranges"), every figure in bytes. Reads either form of the ranks
/// (predict/rank_runs.hpp); "ranks" and "gpus" are left out for a plan kept as ranges of more
/// than plan_json_listed_ranks ranks.
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

/// A self-contained HTML page (inline CSS, SVG and one small inline script, nothing fetched;
/// drawings scale down to the window's width): the verdict (in
/// its state's colour, with the margin's reason when tight and whole_step_line when known),
/// each GPU against its capacity with the processes on it and the safety margin shaded below
/// it, the whole step's need against the busiest GPU's capacity when known (each drawn figure
/// carries its bytes in a data- attribute), the breakdown of the busiest rank at
/// its peak, and the allocated / active / reserved curve of every simulated rank over the step
/// with its phases and the allocator's limit, side by side, on an axis of allocator events. The
/// script adds to each curve a cursor with the phase and the three levels at the pointer, and
/// zoom (wheel; drag to pan, double-click to reset); it reads the curve's points, embedded as
/// JSON beside each plot. Needs the timelines
/// (predict_options::timeline); without them the curves are left out.
std::string plan_html(const predict::prediction& p);

/// One line: "does not fit: rank 3 runs out of memory in backward:layers.7 (...)", "tight:
/// busiest GPU 0 at ... (... headroom, less than the 3.96 GiB safety margin)" or "fits: ...".
std::string verdict_line(const predict::prediction& p);
std::string verdict_line(const predict::verdict_facts& v);

/// "the whole step needs about N on GPU g, which has C (short by M): ..." for a prediction with
/// prediction::whole_step_need; "" otherwise.
std::string whole_step_line(const predict::prediction& p);

}  // namespace vramscope::report
