#pragma once
// The renderings of a PyTorch memory snapshot's analysis: the text of `vramscope snapshot` and
// the self-contained page of `snapshot --html` (inline CSS and SVG, no script, nothing fetched).

#include <cstddef>
#include <ostream>
#include <string>

#include <vramscope/observe/torch_snapshot.hpp>

namespace vramscope::report {

/// Per device: the timeline of allocated and reserved memory with the peak marked, the `top`
/// largest allocations live at the peak with their call stacks, and the segment map of the
/// final state (allocated, waiting for stream events and free in each segment).
std::string snapshot_html(const observe::snapshot_summary& summary, std::size_t top);

/// The text report of `vramscope snapshot`: per device, the peaks and when they happened, the
/// categories at the allocated peak, the `top` largest allocations and call sites, and the final
/// state (segments, fragmentation, out-of-memory events).
void render_snapshot_text(std::ostream& out, const observe::snapshot_summary& summary, std::size_t top);

}  // namespace vramscope::report
