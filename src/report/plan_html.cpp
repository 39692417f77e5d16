// plan --html: one page a person can read without the text output. Inline CSS and SVG only,
// so the file opens from disk, offline, in any browser, and prints.
#include <vramscope/report/plan_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "report/html_common.hpp"

namespace vramscope::report {

namespace {

using predict::prediction;
using predict::rank_prediction;
using detail::escape;

// One colour per breakdown category, in breakdown_rows order.
constexpr std::array<const char*, 11> category_colours = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#9c755f", "#bab0ac", "#ff9da7", "#86bcb6"};
constexpr std::array<const char*, 6> process_colours = {"#4e79a7", "#f28e2b", "#59a14f",
                                                        "#b07aa1", "#edc948", "#76b7b2"};

double gib(bytes b) { return static_cast<double>(b) / static_cast<double>(1_GiB); }


// GPUs with the same capacity and the same processes, to draw 512 alike GPUs as one row.
std::string gpu_signature(const predict::gpu_prediction& g) {
  std::string s = std::to_string(g.capacity) + "/" + std::to_string(g.device);
  for (const auto& p : g.processes) s += "/" + std::to_string(p.device);
  return s;
}

void gpu_bars(std::string& out, const prediction& p) {
  out += "<h2>GPUs: what nvidia-smi will show</h2>\n";
  // Rows of alike GPUs, in GPU order.
  std::vector<std::pair<std::vector<int>, const predict::gpu_prediction*>> rows;
  std::map<std::string, std::size_t> seen;
  for (const auto& g : p.gpus) {
    auto [it, fresh] = seen.try_emplace(gpu_signature(g), rows.size());
    if (fresh) rows.push_back({{}, &g});
    rows[it->second].first.push_back(g.index);
  }
  bytes scale = 1;
  for (const auto& g : p.gpus) scale = std::max({scale, g.capacity, g.device});
  const int width = 800, bar = 22, gap = 10, label = 150;  // with the labels, within the page
  const int height = static_cast<int>(rows.size()) * (bar + gap) + 24;
  out += fmt::format("<svg class=\"gpus\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"GPU memory\">\n",
                     width + label + 160, height);
  int y = 4;
  for (const auto& [indices, g] : rows) {
    const std::string name =
        indices.size() == 1 ? fmt::format("GPU {}", indices.front())
                            : fmt::format("GPUs {}-{} ({} alike)", indices.front(), indices.back(), indices.size());
    out += fmt::format("<text x=\"0\" y=\"{}\">{}</text>\n", y + bar - 6, escape(name));
    double x = label;
    std::size_t c = 0;
    for (const auto& proc : g->processes) {
      const double w = width * static_cast<double>(proc.device) / static_cast<double>(scale);
      out += fmt::format(
          "<rect class=\"process\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          x, y, w, bar, process_colours[c++ % process_colours.size()], escape(proc.what),
          format_bytes(proc.device));
      x += w;
    }
    const double cap = label + width * static_cast<double>(g->capacity) / static_cast<double>(scale);
    out += fmt::format("<line class=\"capacity\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" "
                       "stroke=\"#a4231b\" stroke-width=\"2\"/>\n",
                       cap, cap, y - 3, y + bar + 3);
    out += fmt::format("<text x=\"{}\" y=\"{}\">{} of {}</text>\n", label + width + 8, y + bar - 6,
                       format_bytes(g->device), format_bytes(g->capacity));
    y += bar + gap;
  }
  out += "</svg>\n<p class=\"legend\"><span><span class=\"swatch\" style=\"background:#a4231b\"></span>"
         "capacity</span> bars: the processes on each GPU (hover for each)</p>\n";
}

void breakdown_bar(std::string& out, const rank_prediction& r) {
  out += fmt::format("<h2>What the peak of rank {} is made of ({})</h2>\n", r.rank, escape(r.peak_phase));
  const auto rows = breakdown_rows(r.parts);
  bytes total = 0;
  for (const auto& [name, value] : rows) total += value;
  const int width = 900, bar = 28;
  out += fmt::format("<svg class=\"breakdown\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"breakdown\">\n",
                     width, bar + 4);
  double x = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].second == 0 || total == 0) continue;
    const double w = width * static_cast<double>(rows[i].second) / static_cast<double>(total);
    out += fmt::format("<rect class=\"part\" x=\"{:.1f}\" y=\"2\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
                       "<title>{}: {}</title></rect>\n",
                       x, w, bar, category_colours[i], rows[i].first, format_bytes(rows[i].second));
    x += w;
  }
  out += "</svg>\n<table class=\"parts\"><tr><th>category</th><th>bytes</th><th>share</th></tr>\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].second == 0) continue;
    out += fmt::format("<tr><td><span class=\"swatch\" style=\"background:{}\"></span>{}</td><td>{}</td>"
                       "<td>{:.1f} %</td></tr>\n",
                       category_colours[i], rows[i].first, format_bytes(rows[i].second),
                       100.0 * static_cast<double>(rows[i].second) / static_cast<double>(total));
  }
  out += "</table>\n";
}

// "forward:layers.3" -> "forward": the bands of the timeline.
std::string_view phase_group(const rank_prediction& r, const predict::timeline_point& pt) {
  if (pt.phase >= r.phase_names.size()) return "?";
  const std::string_view phase = r.phase_names[pt.phase];
  return phase.substr(0, phase.find(':'));
}

void timeline(std::string& out, const rank_prediction& r, bytes limit) {
  const auto& t = r.timeline;
  const int width = 520, height = 240, left = 52, top = 8, bottom = 36;
  const int plot_h = height - top - bottom;
  bytes top_value = limit;
  for (const auto& pt : t) top_value = std::max(top_value, pt.reserved);
  if (top_value == 0) top_value = 1;
  const std::uint64_t first = t.front().event, last = std::max(t.back().event, first + 1);
  auto px = [&](std::uint64_t e) {
    return left + static_cast<double>(width) * static_cast<double>(e - first) / static_cast<double>(last - first);
  };
  auto py = [&](bytes b) {
    return top + plot_h - static_cast<double>(plot_h) * static_cast<double>(b) / static_cast<double>(top_value);
  };
  out += fmt::format("<figure class=\"timeline\"><figcaption>rank {}{}</figcaption>\n"
                     "<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"timeline of rank {}\">\n",
                     r.rank, r.like_rank != r.rank ? fmt::format(" (like rank {})", r.like_rank) : "",
                     left + width + 10, height, r.rank);
  // Phase bands: consecutive points of one group.
  std::size_t i = 0;
  bool shade = false;
  while (i < t.size()) {
    const auto group = phase_group(r, t[i]);
    std::size_t j = i;
    while (j + 1 < t.size() && phase_group(r, t[j + 1]) == group) ++j;
    const double x0 = px(t[i].event), x1 = j + 1 < t.size() ? px(t[j + 1].event) : px(t[j].event);
    out += fmt::format("<rect class=\"phase\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
                       "<title>{}</title></rect>\n",
                       x0, top, std::max(0.5, x1 - x0), plot_h, shade ? "#f1f1f1" : "#fafafa", escape(group));
    if (x1 - x0 > 36)
      out += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", x0 + 3, height - bottom + 28, escape(group));
    shade = !shade;
    i = j + 1;
  }
  // y axis: 3 to 6 ticks at 1, 2 or 5 times a power of ten GiB
  double step = 0;
  for (double magnitude = 0.001; step == 0; magnitude *= 10)
    for (const double m : {1.0, 2.0, 5.0})
      if (step == 0 && gib(top_value) / (m * magnitude) <= 6) step = m * magnitude;
  for (double v = 0; v <= gib(top_value) + 1e-9; v += step) {
    const bytes b = static_cast<bytes>(v * static_cast<double>(1_GiB));
    out += fmt::format("<text x=\"0\" y=\"{:.1f}\">{:g} GiB</text>"
                       "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n",
                       py(b) + 4, v, left, left + width, py(b), py(b));
  }
  struct series {
    const char* name;
    const char* colour;
    bytes predict::timeline_point::*field;
  };
  for (const series s : {series{"reserved", "#e15759", &predict::timeline_point::reserved},
                         series{"active", "#f28e2b", &predict::timeline_point::active},
                         series{"allocated", "#4e79a7", &predict::timeline_point::allocated}}) {
    std::string points;
    for (const auto& pt : t) points += fmt::format("{:.1f},{:.1f} ", px(pt.event), py(pt.*s.field));
    out += fmt::format("<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                       s.name, s.colour, points);
  }
  if (limit > 0)
    out += fmt::format("<line class=\"limit\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#a4231b\" "
                       "stroke-dasharray=\"6 4\"/><text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">"
                       "allocator limit {}</text>\n",
                       left, left + width, py(limit), py(limit), left + width - 4, py(limit) + 14,
                       format_bytes(limit));
  out += fmt::format("</svg><p class=\"note\">peak: {} allocated, {} reserved, {} on the GPU ({})</p></figure>\n",
                     format_bytes(r.peak.allocated), format_bytes(r.peak.reserved), format_bytes(r.peak.device),
                     escape(r.peak_phase));
}

void timelines(std::string& out, const prediction& p) {
  std::vector<const rank_prediction*> simulated;
  for (const auto& r : p.ranks)
    if (!r.timeline.empty() && r.like_rank == r.rank) simulated.push_back(&r);
  if (simulated.empty()) return;
  out += "<h2>Over the step: allocated, active and reserved</h2>\n"
         "<p class=\"legend\"><span><span class=\"swatch\" style=\"background:#4e79a7\"></span>allocated</span>"
         "<span><span class=\"swatch\" style=\"background:#f28e2b\"></span>active</span>"
         "<span><span class=\"swatch\" style=\"background:#e15759\"></span>reserved</span>"
         "<span>shaded: the phases of the step</span></p>\n<div class=\"ranks\">\n";
  for (const auto* r : simulated) {
    bytes limit = 0;  // what the caching allocator may take on this rank's GPU
    for (const auto& g : p.gpus)
      if (g.index == r->gpu) {
        const bytes outside = g.device > r->peak.reserved ? g.device - r->peak.reserved : 0;
        limit = g.capacity > outside ? g.capacity - outside : 0;
      }
    timeline(out, *r, limit);
  }
  out += "</div>\n";
}

}  // namespace

std::string plan_html(const prediction& p) {
  std::string out = detail::page_start("vramscope plan: " + p.model_name, plan_heading(p));
  out += fmt::format("<p class=\"verdict {}\">{}</p>\n", p.fits ? "fits" : "nofit", escape(verdict_line(p)));
  gpu_bars(out, p);
  if (!p.ranks.empty()) breakdown_bar(out, predict::busiest_rank(p));
  timelines(out, p);
  if (!p.notes.empty()) {
    out += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : p.notes) out += "<li>" + escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  out += fmt::format("<p class=\"note\">allocator model: {}. Written by vramscope plan --html.</p>\n",
                     escape(p.allocator));
  out += "</body></html>\n";
  return out;
}

}  // namespace vramscope::report
