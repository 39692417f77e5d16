// compare --html and fit --html: memory against the varied settings, with the capacity line.
#include <vramscope/report/sweep_report.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "report/html_common.hpp"

namespace vramscope::report {

namespace {

using detail::escape;

constexpr std::size_t drawn_rows = 400;

std::string label_of(const sweep_row& r) {
  return r.label.empty() ? std::string("(the job as it is)") : r.label;
}

// The figure a row is drawn to: what it needs when it does not fit (when known), else its peak.
bytes drawn(const sweep_row& r) { return r.need.value_or(r.device); }

// Headroom of a row that fits, shortfall of one that does not (0 at or past the boundary).
bytes margin(const sweep_row& r, bytes capacity) {
  const bytes d = drawn(r);
  if (r.fits) return capacity > d ? capacity - d : 0;
  return d > capacity ? d - capacity : 0;
}

const char* row_class(const sweep_row& r) { return r.tight ? "tight" : r.fits ? "fits" : "nofit"; }
const char* row_colour(const sweep_row& r) {
  return r.tight ? "#f28e2b" : r.fits ? "#59a14f" : "#e15759";
}

void chart(std::string& out, const sweep_page& page) {
  const std::size_t n = std::min(page.rows.size(), drawn_rows);
  bytes scale = std::max<bytes>(page.capacity, 1);
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, drawn(page.rows[i]));
  std::size_t label_chars = 8;
  for (std::size_t i = 0; i < n; ++i)
    label_chars = std::max(label_chars, label_of(page.rows[i]).size());
  const int label = static_cast<int>(std::min<std::size_t>(label_chars, 70) * 7) + 12;
  const int width = std::max(240, 840 - label), bar = 16, gap = 6, top = 20;
  const int height = top + static_cast<int>(n) * (bar + gap) + 8;
  out += fmt::format(
      "<svg class=\"sweep\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"memory of each configuration\">\n",
      label + width + 340, height);
  const double cap = label + width * static_cast<double>(page.capacity) / static_cast<double>(scale);
  out += fmt::format("<text x=\"{:.1f}\" y=\"12\" text-anchor=\"middle\">capacity {}</text>\n", cap,
                     format_bytes(page.capacity));
  if (page.margin > 0) {  // the band below capacity where a fit is tight
    const double edge =
        label + width * static_cast<double>(page.capacity - std::min(page.margin, page.capacity)) /
                    static_cast<double>(scale);
    out += fmt::format(
        "<rect class=\"margin\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"#f28e2b\" fill-opacity=\"0.15\"><title>safety margin "
        "{}</title></rect>\n",
        edge, top - 4, cap - edge, height - top, format_bytes(page.margin));
  }
  int y = top;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = page.rows[i];
    const std::string text = label_of(r);
    const double w = width * static_cast<double>(drawn(r)) / static_cast<double>(scale);
    if (r.refused) {
      out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + bar - 4,
                         escape(text.size() > 70 ? text.substr(0, 67) + "..." : text));
      // The reason in full is in the table and in the tooltip.
      const std::string why = r.note.size() > 64 ? r.note.substr(0, 61) + "..." : r.note;
      out += fmt::format(
          "<text class=\"refused\" x=\"{}\" y=\"{}\" fill=\"#a4231b\">{}<title>{}"
          "</title></text>\n",
          label + 4, y + bar - 4, escape(why), escape(r.note));
      y += bar + gap;
      continue;
    }
    const std::string figure =
        r.tight  ? fmt::format("{}, tight: {} headroom", format_bytes(r.device),
                               format_bytes(margin(r, page.capacity)))
        : r.fits ? fmt::format("{}, {} headroom", format_bytes(r.device),
                               format_bytes(margin(r, page.capacity)))
        : r.need ? fmt::format("needs {}, short by {}", format_bytes(*r.need),
                               format_bytes(margin(r, page.capacity)))
                 : fmt::format("out of memory at {}", format_bytes(r.device));
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + bar - 4,
                       escape(text.size() > 70 ? text.substr(0, 67) + "..." : text));
    out += fmt::format(
        "<rect class=\"row {}\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
        "fill=\"{}\"><title>{}: {}</title></rect>\n",
        row_class(r), label, y, w, bar, row_colour(r), escape(text), escape(figure));
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}{}</text>\n", label + width + 8, y + bar - 4,
                       escape(figure), r.note.empty() ? "" : " · " + escape(r.note));
    y += bar + gap;
  }
  out += fmt::format("<line class=\"capacity\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" "
                     "stroke=\"#a4231b\" stroke-width=\"2\"/>\n</svg>\n",
                     cap, cap, top - 4, height - 4);
  out +=
      "<p class=\"legend\"><span><span class=\"swatch\" style=\"background:#59a14f\"></span>fits "
      "(its peak on the busiest GPU)</span><span><span class=\"swatch\" "
      "style=\"background:#f28e2b\"></span>tight (inside the shaded safety margin)</span>"
      "<span><span class=\"swatch\" style=\"background:#e15759\"></span>does not fit (what it "
      "would need)</span><span><span "
      "class=\"swatch\" style=\"background:#a4231b\"></span>capacity</span></p>\n";
  if (page.rows.size() > n)
    out += fmt::format("<p class=\"note\">The first {} of {} rows are drawn; the table lists all.</p>\n",
                       n, page.rows.size());
}

void table(std::string& out, const sweep_page& page) {
  out += "<h2>Rows</h2>\n<table class=\"rows\"><tr><th>settings</th><th>verdict</th>"
         "<th>planned device</th><th>needs</th><th>headroom / short by</th><th></th></tr>\n";
  for (const auto& r : page.rows) {
    if (r.refused) {
      out += fmt::format(
          "<tr><td>{}</td><td>refused</td><td>-</td><td>-</td><td>-</td><td>{}</td></tr>\n",
          escape(label_of(r)), escape(r.note));
      continue;
    }
    const std::string shown = r.fits   ? format_bytes(margin(r, page.capacity))
                              : r.need ? "-" + format_bytes(margin(r, page.capacity))
                                       : std::string("-");
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(label_of(r)),
        r.tight  ? "tight"
        : r.fits ? "fits"
                 : "does not fit",
        format_bytes(r.device), r.need ? format_bytes(*r.need) : "-", shown, escape(r.note));
  }
  out += "</table>\n<p class=\"note\">A row that does not fit stops at its out-of-memory error: "
         "its planned device memory is the state there, and \"needs\" is what it would take "
         "(planned again with unlimited memory).</p>\n";
}

}  // namespace

std::string sweep_html(const sweep_page& page) {
  std::string out = detail::page_start("vramscope " + page.command, page.heading);
  const bool any_tight =
      std::any_of(page.rows.begin(), page.rows.end(), [](const sweep_row& r) { return r.tight; });
  out += fmt::format("<p class=\"verdict {}\">{}</p>\n",
                     page.found  ? "fits"
                     : any_tight ? "tight"
                                 : "nofit",
                     escape(page.verdict));
  out += "<h2>Memory of the busiest GPU, per configuration</h2>\n";
  if (page.rows.empty())
    out += "<p class=\"note\">No configuration was planned.</p>\n";
  else
    chart(out, page);
  if (!page.notes.empty()) {
    out += "<ul>\n";
    for (const auto& n : page.notes) out += "<li>" + escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  table(out, page);
  out += fmt::format("<p class=\"note\">Written by vramscope {} --html.</p>\n</body></html>\n",
                     escape(page.command));
  return out;
}

}  // namespace vramscope::report
