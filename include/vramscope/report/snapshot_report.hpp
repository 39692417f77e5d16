#pragma once
// `snapshot --html`: a self-contained page (inline CSS and SVG, no script, nothing fetched) of a
// PyTorch memory snapshot's analysis.

#include <cstddef>
#include <string>

#include <vramscope/observe/torch_snapshot.hpp>

namespace vramscope::report {

/// Per device: the timeline of allocated and reserved memory with the peak marked, the `top`
/// largest allocations live at the peak with their call stacks, and the segment map of the
/// final state (allocated, waiting for stream events and free in each segment).
std::string snapshot_html(const observe::snapshot_summary& summary, std::size_t top);

}  // namespace vramscope::report
