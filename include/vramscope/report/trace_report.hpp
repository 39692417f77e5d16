#pragma once
// Renderings of a trace folder (trace::read_trace_folder): the peaks per GPU and per process,
// grouped by machine when the folder holds several. `vramscope trace` prints them after its
// command ends; `explain --trace` prints the text before its findings.

#include <string>

#include <nlohmann/json.hpp>

#include <vramscope/trace/trace_reader.hpp>

namespace vramscope::report {

/// "vramscope trace: N files in DIR: E events" and one block per GPU (its processes below it,
/// largest peak first), then untraced processes and warnings. Ends with a newline.
std::string render_trace_text(const trace::trace_summary& s, const std::string& dir);

/// {"events", "samples", "dropped", "hosts", "gpus": [{"gpu", "host"?, "index"?, "name", "total"?,
/// "peak", "processes": [{"pid", "rank"?, "host"?, "peak", "final", "sampled"}]}]}.
nlohmann::json trace_json(const trace::trace_summary& s);

}  // namespace vramscope::report
