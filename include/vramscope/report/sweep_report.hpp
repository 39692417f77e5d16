#pragma once
// The HTML page of `compare --html` and `fit --html`: the memory each configuration needs
// against the GPU's capacity. A pure function of the rows, no I/O.

#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/units.hpp>

namespace vramscope::report {

struct sweep_row {
  std::string label;                  // the row's settings, "key=value key=value"
  bool fits = false;                  // plan's verdict
  bool tight = false;                 // fits, but inside the page's margin
  bytes device = 0;                   // busiest GPU as planned (at the OOM when it fails)
  std::optional<bytes> need;          // what a row that does not fit needs (unlimited memory);
                                      // empty for a row that fits
  std::string note;                   // optional: "largest that fits", "cheapest", a cost ...
  bool refused = false;               // the job rules refuse it: not drawn, `note` says why
};

struct sweep_page {
  std::string command;                // "compare" or "fit"
  std::string heading;                // the job in one line
  std::string verdict;                // one line: what the search found
  bool found = true;                  // the verdict's colour: something fits
  bytes capacity = 0;                 // usable memory of one GPU
  bytes margin = 0;                   // the safety margin below capacity (job::margin_bytes)
  std::vector<sweep_row> rows;        // in the order to draw
  std::vector<std::string> notes;     // under the chart
};

/// A self-contained HTML page (inline CSS and SVG, no script, nothing fetched): one bar per row,
/// green when it fits, amber when tight and red when not (drawn to what it needs), the capacity
/// as a line with the margin below it shaded, and the rows as a table. Draws the first 400
/// rows; the table lists them all.
std::string sweep_html(const sweep_page& page);

}  // namespace vramscope::report
