// The page of `snapshot --html`: per device, the memory timeline (at most
// snapshot_options::timeline_points stretches, each drawn at its maximum, so a trace of millions of
// entries stays a few hundred points), the largest allocations live at the peak with their call
// stacks, and the final state's segments with what is allocated, waiting and free in each.
#include <vramscope/report/snapshot_report.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "report/html_common.hpp"
#include "report/snapshot_frames.hpp"

namespace vramscope::report {

namespace {

using detail::escape;
using observe::device_snapshot;

constexpr const char* allocated_colour = "#4e79a7";
constexpr const char* reserved_colour = "#f28e2b";
constexpr const char* pending_colour = "#edc948";
constexpr const char* free_colour = "#d3d3d3";

// Allocated and reserved over the trace, with the allocated peak marked.
std::string timeline_svg(const device_snapshot& d) {
  if (d.timeline.empty()) return "<p class=\"note\">No trace entries were recorded: no timeline.</p>\n";
  const int width = 900, height = 260, left = 70, bottom = 24, top = 10;
  bytes highest = 1;
  for (const auto& p : d.timeline) highest = std::max({highest, p.allocated, p.reserved});
  const double entries = static_cast<double>(std::max<std::uint64_t>(1, d.trace_entries));
  const auto x = [&](std::uint64_t entry) { return left + (width - left) * static_cast<double>(entry) / entries; };
  const auto y = [&](bytes b) {
    return top + (height - top - bottom) * (1.0 - static_cast<double>(b) / static_cast<double>(highest));
  };
  std::string allocated, reserved;
  for (const auto& p : d.timeline) {
    allocated += fmt::format("{:.1f},{:.1f} ", x(p.first_entry), y(p.allocated));
    reserved += fmt::format("{:.1f},{:.1f} ", x(p.first_entry), y(p.reserved));
  }
  std::string out = fmt::format("<svg class=\"timeline\" width=\"{}\" height=\"{}\" role=\"img\" "
                                "aria-label=\"memory timeline\">\n", width + 10, height);
  for (int i = 0; i <= 4; ++i) {  // four gridlines with their levels
    const bytes level = highest / 4 * static_cast<bytes>(i);
    out += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e5e5e5\"/>"
                       "<text x=\"0\" y=\"{:.1f}\">{}</text>\n",
                       left, width, y(level), y(level), y(level) + 4, format_bytes(level));
  }
  out += fmt::format("<polyline class=\"reserved\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                     reserved_colour, reserved);
  out += fmt::format("<polyline class=\"allocated\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                     allocated_colour, allocated);
  if (d.peak_allocated.trace_index) {
    const double px = x(*d.peak_allocated.trace_index);
    out += fmt::format("<line class=\"peak\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#e15759\" "
                       "stroke-dasharray=\"4 3\"><title>allocated peak {}</title></line>"
                       "<text x=\"{:.1f}\" y=\"{}\" fill=\"#e15759\">peak {}</text>\n",
                       px, px, top, height - bottom, format_bytes(d.peak_allocated.value),
                       std::min<double>(px + 4, width - 120), top + 12, format_bytes(d.peak_allocated.value));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\">trace entry 0</text><text x=\"{}\" y=\"{}\" "
                     "text-anchor=\"end\">{}</text>\n",
                     left, height - 6, width, height - 6, format_count(d.trace_entries));
  out += "</svg>\n";
  out += fmt::format("<p class=\"legend\"><span><i class=\"swatch\" style=\"background:{}\"></i>allocated</span>"
                     "<span><i class=\"swatch\" style=\"background:{}\"></i>reserved</span>"
                     "<span class=\"note\">{} points, each the maximum of {} entries</span></p>\n",
                     allocated_colour, reserved_colour, d.timeline.size(),
                     format_count((d.trace_entries + d.timeline.size() - 1) / std::max<std::size_t>(1, d.timeline.size())));
  return out;
}

std::string allocations_table(const device_snapshot& d, std::size_t top) {
  std::string out = "<table class=\"allocations\"><tr><th>#</th><th>size</th><th>category</th>"
                    "<th style=\"text-align:left\">call stack (innermost first)</th></tr>\n";
  std::size_t i = 0;
  for (const auto& a : d.top_allocations) {
    if (i++ == top) break;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"frames\">{}{}</td></tr>\n", i,
                       format_bytes(a.size), observe::name_of(a.category), escape(detail::frames_line(a.frames, a.frames.size(), " \u2190 ")),
                       a.trace_index ? "" : " <span class=\"note\">[before recording]</span>");
  }
  out += "</table>\n";
  return out;
}

// One bar per segment, its width proportional to its size: allocated, waiting for stream
// events and free, in address order.
std::string segment_map(const device_snapshot& d) {
  if (d.segments.empty()) return "<p class=\"note\">The snapshot holds no segments.</p>\n";
  const auto& f = d.final_state;
  std::string out = fmt::format(
      "<p>{} segments, {} reserved: {} allocated, {} waiting for stream events, {} free, of which {} "
      "in segments that also hold live blocks (not releasable); largest free block {}.</p>\n",
      format_count(f.segments), format_bytes(f.reserved), format_bytes(f.allocated),
      format_bytes(f.active_pending_free), format_bytes(f.inactive), format_bytes(f.inactive_split),
      format_bytes(f.largest_inactive_block));
  const int width = 900, bar = 14, gap = 3, shown = 400;
  bytes largest = 1;
  for (const auto& s : d.segments) largest = std::max(largest, s.size);
  const double scale = width / static_cast<double>(largest);  // pixels per byte, for every segment
  const std::size_t n = std::min<std::size_t>(d.segments.size(), shown);
  out += fmt::format("<svg class=\"segments\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"segments\">\n",
                     width + 90, static_cast<int>(n) * (bar + gap) + 4);
  int y = 2;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = d.segments[i];
    double x = 0;
    const std::string title = fmt::format("0x{:x}: {} ({} blocks{}), {} allocated, {} waiting, {} free, largest "
                                          "free {}", s.address, format_bytes(s.size), s.blocks,
                                          s.expandable ? ", expandable" : "", format_bytes(s.allocated),
                                          format_bytes(s.pending_free), format_bytes(s.free),
                                          format_bytes(s.largest_free));
    out += fmt::format("<g class=\"segment\"><title>{}</title>", escape(title));
    for (const auto& [part, colour] : {std::pair{s.allocated, allocated_colour}, std::pair{s.pending_free, pending_colour},
                                      std::pair{s.free, free_colour}}) {
      if (part == 0) continue;
      const double w = scale * static_cast<double>(part);
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", x, y, w, bar, colour);
      x += w;
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text></g>\n", x + 4, y + bar - 3, format_bytes(s.size));
    y += bar + gap;
  }
  out += "</svg>\n";
  if (d.segments.size() > n)
    out += fmt::format("<p class=\"note\">The first {} segments by address are drawn; {} more are not.</p>\n", n,
                       d.segments.size() - n);
  out += fmt::format("<p class=\"legend\"><span><i class=\"swatch\" style=\"background:{}\"></i>allocated</span>"
                     "<span><i class=\"swatch\" style=\"background:{}\"></i>waiting for stream events</span>"
                     "<span><i class=\"swatch\" style=\"background:{}\"></i>free</span></p>\n",
                     allocated_colour, pending_colour, free_colour);
  return out;
}

}  // namespace

std::string snapshot_html(const observe::snapshot_summary& s, std::size_t top) {
  std::string out = detail::page_start(
      "vramscope snapshot",
      fmt::format("{}: {}, pickle protocol {}, {} device(s){}", s.source, format_bytes(s.file_bytes), s.protocol,
                  s.devices.size(), s.alloc_conf.empty() ? "" : ", PYTORCH_CUDA_ALLOC_CONF=" + s.alloc_conf),
      "td{white-space:nowrap}td.frames{text-align:left;white-space:normal;"
      "font-family:ui-monospace,monospace;font-size:12px}");
  if (s.devices.empty()) out += "<p class=\"note\">The snapshot holds no segments and no trace entries.</p>\n";
  for (const auto& d : s.devices) {
    out += fmt::format("<section class=\"device\"><h2>Device {}</h2>\n", d.device);
    out += fmt::format("<p class=\"verdict fits\">peak allocated {}, peak reserved {}; at the allocated peak {} "
                       "blocks were live in {} reserved</p>\n",
                       format_bytes(d.peak_allocated.value), format_bytes(d.peak_reserved.value),
                       format_count(d.allocations_at_peak), format_bytes(d.reserved_at_allocated_peak));
    if (!d.ooms.empty())
      out += fmt::format("<p class=\"verdict nofit\">out of memory {} time(s); the last asked for {} with {} "
                         "free on the device</p>\n",
                         d.ooms.size(), format_bytes(d.ooms.back().requested), format_bytes(d.ooms.back().device_free));
    out += "<h3>Memory over the trace</h3>\n" + timeline_svg(d);
    out += fmt::format("<h3>Largest allocations live at the peak (top {})</h3>\n",
                       std::min(top, d.top_allocations.size()));
    out += allocations_table(d, top);
    out += "<h3>Segments at the snapshot</h3>\n" + segment_map(d);
    out += "</section>\n";
  }
  for (const auto& w : s.warnings) out += "<p class=\"note\">warning: " + escape(w.to_string()) + "</p>\n";
  out += "</body></html>\n";
  return out;
}

}  // namespace vramscope::report
