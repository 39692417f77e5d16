// plan --html: one page a person can read without the text output. Inline CSS and SVG only,
// so the file opens from disk, offline, in any browser, and prints.
#include <vramscope/report/plan_report.hpp>

#include <vramscope/predict/rank_runs.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <span>

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

// The GPU chart is a grid of rows: the name and the figures are page text (readable at any
// width), the bar between them an SVG that stretches to the space left. Bar coordinates run
// from 0 to bar_units, where `scale` bytes end.
constexpr int bar_units = 1000, bar_height = 22;

double bar_x(bytes b, bytes scale) {
  return bar_units * static_cast<double>(b) / static_cast<double>(scale);
}

std::string bar_svg_start() {
  return fmt::format(
      "<svg class=\"bar\" viewBox=\"0 0 {} {}\" preserveAspectRatio=\"none\" role=\"img\">\n",
      bar_units, bar_height + 6);
}

std::string capacity_line(bytes capacity, bytes scale) {
  const double cap = std::min<double>(bar_x(capacity, scale), bar_units - 1);
  return fmt::format(
      "<line class=\"capacity\" data-bytes=\"{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"0\" y2=\"{}\" "
      "stroke=\"#a4231b\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\"/>\n",
      capacity, cap, cap, bar_height + 6);
}

// The busiest GPU's whole-step need against its capacity: a job that does not fit stops at its
// out-of-memory error, so its process bars show what came before, not what the step needs.
void need_row(std::string& out, const prediction& p, bytes scale) {
  const auto& busiest = predict::busiest_rank(p);
  const bytes need = *p.whole_step_need;
  const auto gpu = predict::gpu_of(p, busiest.gpu);
  const bytes capacity = gpu ? gpu->capacity : predict::first_gpu_capacity(p);
  out += fmt::format("<div class=\"gpu-row\"><span class=\"name\">GPU {}: whole step</span>\n",
                     busiest.gpu);
  out += bar_svg_start();
  out += fmt::format("<g class=\"need\" data-gpu=\"{}\" data-need=\"{}\" data-capacity=\"{}\">\n",
                     busiest.gpu, need, capacity);
  out += fmt::format(
      "<rect class=\"need\" data-bytes=\"{}\" x=\"0\" y=\"3\" width=\"{:.1f}\" height=\"{}\" "
      "fill=\"#e15759\" fill-opacity=\"0.55\" stroke=\"#a4231b\" "
      "vector-effect=\"non-scaling-stroke\"><title>the whole step needs about {}</title></rect>\n",
      need, bar_x(need, scale), bar_height, format_bytes(need));
  out += capacity_line(capacity, scale);
  out += fmt::format("</g></svg>\n<span class=\"value\">needs {}, short by {}</span></div>\n",
                     format_bytes(need), format_bytes(need > capacity ? need - capacity : 0));
}

// Wide: three columns (names aligned, bars, figures). Narrow: the name and the figures on one
// line, the bar under them across the page.
constexpr const char* gpu_chart_style =
    ".gpus{display:grid;grid-template-columns:max-content minmax(160px,760px) max-content;"
    "gap:6px 10px;align-items:center}.gpu-row{display:contents}"
    ".gpus svg.bar{width:100%;height:28px;display:block}.gpus .value{white-space:nowrap}"
    "@media (max-width:720px){.gpus{display:block}.gpu-row{display:grid;"
    "grid-template-columns:1fr auto;gap:2px 8px;margin-bottom:8px}"
    ".gpu-row svg.bar{grid-column:1/-1;order:1}}";

void gpu_bars(std::string& out, const prediction& p) {
  out += "<h2>GPUs: what nvidia-smi will show</h2>\n";
  // Rows of alike GPUs, in GPU order: the first, the last and how many, and the first as drawn.
  struct row {
    int first = 0, last = 0;
    long long count = 0;
    predict::gpu_prediction gpu;
  };
  std::vector<row> rows;
  std::map<std::string, std::size_t> seen;
  std::map<const predict::gpu_prediction*, std::size_t> row_of;  // a class's GPU: its row
  bytes scale = 1;
  // A node's block (predict::for_each_gpu_block) at once: its first node's runs, each ending
  // where its copy on the block's last node does and counted on every node.
  predict::for_each_gpu_block(
      p, [&](std::span<const predict::gpu_run> block, int period, int times) {
        for (const auto& run : block) {
          auto known = row_of.find(run.gpu);
          if (known == row_of.end()) {
            auto [it, fresh] = seen.try_emplace(gpu_signature(*run.gpu), rows.size());
            if (fresh)
              rows.push_back({run.first, run.first, 0, predict::renumbered(*run.gpu, run.first)});
            known = row_of.emplace(run.gpu, it->second).first;
            scale = std::max({scale, run.gpu->capacity, run.gpu->device});
          }
          auto& r = rows[known->second];
          r.last = run.first + (times - 1) * period + run.count - 1;
          r.count += static_cast<long long>(run.count) * times;
        }
      });
  if (p.whole_step_need) scale = std::max(scale, *p.whole_step_need);
  out += "<div class=\"gpus\" role=\"group\" aria-label=\"GPU memory\">\n";
  for (const auto& [first, last, count, gpu] : rows) {
    const auto* g = &gpu;
    const std::string name =
        count == 1 ? fmt::format("GPU {}", first)
                   : fmt::format("GPUs {}-{} ({} alike)", first, last, count);
    out += fmt::format("<div class=\"gpu-row\"><span class=\"name\">{}</span>\n", escape(name));
    out += bar_svg_start();
    out +=
        fmt::format("<g class=\"gpu\" data-gpus=\"{}\" data-device=\"{}\" data-capacity=\"{}\">\n",
                    count == 1 ? std::to_string(first) : fmt::format("{}-{}", first, last),
                    g->device, g->capacity);
    if (p.margin > 0) {  // the band below capacity where a fit is tight
      const double edge = bar_x(g->capacity - std::min(p.margin, g->capacity), scale);
      out += fmt::format(
          "<rect class=\"margin\" data-bytes=\"{}\" x=\"{:.1f}\" y=\"0\" "
          "width=\"{:.1f}\" height=\"{}\" fill=\"#f28e2b\" fill-opacity=\"0.18\">"
          "<title>safety margin {}</title></rect>\n",
          p.margin, edge, bar_x(g->capacity, scale) - edge, bar_height + 6,
          format_bytes(p.margin));
    }
    double x = 0;
    std::size_t c = 0;
    for (const auto& proc : g->processes) {
      const double w = bar_x(proc.device, scale);
      out += fmt::format(
          "<rect class=\"process\" data-bytes=\"{}\" x=\"{:.1f}\" y=\"3\" width=\"{:.1f}\" "
          "height=\"{}\" fill=\"{}\"><title>{}: {}</title></rect>\n",
          proc.device, x, w, bar_height, process_colours[c++ % process_colours.size()],
          escape(proc.what), format_bytes(proc.device));
      x += w;
    }
    out += capacity_line(g->capacity, scale);
    out += fmt::format("</g></svg>\n<span class=\"value\">{} of {}</span></div>\n",
                       format_bytes(g->device), format_bytes(g->capacity));
  }
  const bool need = p.whole_step_need.has_value() && predict::has_gpus(p);
  if (need) need_row(out, p, scale);
  out +=
      "</div>\n<p class=\"legend\"><span><span class=\"swatch\" "
      "style=\"background:#a4231b\"></span>"
      "capacity</span><span><span class=\"swatch\" style=\"background:#f28e2b;opacity:.35\">"
      "</span>safety margin (a fit inside it is tight)</span>";
  if (need)
    out +=
        "<span><span class=\"swatch\" style=\"background:#e15759;opacity:.55\"></span>"
        "what the whole step needs (planned without a memory limit)</span>";
  out += " bars: the processes on each GPU (hover for each)</p>\n";
}

void breakdown_bar(std::string& out, const rank_prediction& r) {
  out += fmt::format("<h2>What the peak of rank {} is made of ({})</h2>\n", r.rank, escape(r.peak_phase));
  const auto rows = breakdown_rows(r.parts);
  bytes total = 0;
  for (const auto& [name, value] : rows) total += value;
  const int width = 900, bar = 28;
  out += fmt::format(
      "<svg class=\"breakdown\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-label=\"breakdown\">\n",
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

// Where a timeline is drawn: the plot's box in the SVG's units and the scales of its axes.
struct plot_area {
  int width = 520, height = 250, left = 52, top = 8, bottom = 46;
  std::uint64_t first = 0, last = 1;  // allocator events at the left and right edges
  bytes top_value = 1;                // bytes at the top edge
  [[nodiscard]] int plot_h() const { return height - top - bottom; }
  [[nodiscard]] double px(std::uint64_t e) const {
    return left + static_cast<double>(width) * static_cast<double>(e - first) /
                      static_cast<double>(last - first);
  }
  [[nodiscard]] double py(bytes b) const {
    return top + plot_h() -
           static_cast<double>(plot_h()) * static_cast<double>(b) / static_cast<double>(top_value);
  }
};

// Phase bands (consecutive points of one group), inside the zoomed group; their labels under
// the plot, which the page's script hides while zoomed.
void phase_bands(std::string& out, const rank_prediction& r, const plot_area& a,
                 std::string& labels) {
  const auto& t = r.timeline;
  std::size_t i = 0;
  bool shade = false;
  while (i < t.size()) {
    const auto group = phase_group(r, t[i]);
    std::size_t j = i;
    while (j + 1 < t.size() && phase_group(r, t[j + 1]) == group) ++j;
    const double x0 = a.px(t[i].event),
                 x1 = j + 1 < t.size() ? a.px(t[j + 1].event) : a.px(t[j].event);
    out += fmt::format(
        "<rect class=\"phase\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
        "<title>{}</title></rect>\n",
        x0, a.top, std::max(0.5, x1 - x0), a.plot_h(), shade ? "#f1f1f1" : "#fafafa",
        escape(group));
    if (x1 - x0 > 44)
      labels += fmt::format("<text class=\"phase-label\" x=\"{:.1f}\" y=\"{}\">{}</text>\n", x0 + 3,
                            a.top + a.plot_h() + 14, escape(group));
    shade = !shade;
    i = j + 1;
  }
}

// y axis: 3 to 6 ticks at 1, 2 or 5 times a power of ten GiB.
void y_axis(std::string& out, const plot_area& a) {
  double step = 0;
  for (double magnitude = 0.001; step == 0; magnitude *= 10)
    for (const double m : {1.0, 2.0, 5.0})
      if (step == 0 && gib(a.top_value) / (m * magnitude) <= 6) step = m * magnitude;
  for (double v = 0; v <= gib(a.top_value) + 1e-9; v += step) {
    const bytes b = static_cast<bytes>(v * static_cast<double>(1_GiB));
    out += fmt::format(
        "<text x=\"0\" y=\"{:.1f}\">{:g} GiB</text>"
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n",
        a.py(b) + 4, v, a.left, a.left + a.width, a.py(b), a.py(b));
  }
}

void curves(std::string& out, const rank_prediction& r, const plot_area& a) {
  struct series {
    const char* name;
    const char* colour;
    bytes predict::timeline_point::*field;
  };
  for (const series s : {series{"reserved", "#e15759", &predict::timeline_point::reserved},
                         series{"active", "#f28e2b", &predict::timeline_point::active},
                         series{"allocated", "#4e79a7", &predict::timeline_point::allocated}}) {
    std::string points;
    for (const auto& pt : r.timeline)
      points += fmt::format("{:.1f},{:.1f} ", a.px(pt.event), a.py(pt.*s.field));
    out += fmt::format(
        "<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
        "vector-effect=\"non-scaling-stroke\" points=\"{}\"/>\n",
        s.name, s.colour, points);
  }
}

// The curve as data for the page's script (hover and zoom): events, the three levels in bytes,
// each point's phase as an index into the names, and what is live at each point by category
// ("k": one array per point, in the order of "kinds").
void curve_data(std::string& out, const rank_prediction& r) {
  nlohmann::json d;
  d["names"] = r.phase_names;
  d["kinds"] = nlohmann::json::array();
  for (int c = 0; c < schedule::category_count; ++c)
    d["kinds"].push_back(schedule::name_of(static_cast<schedule::category>(c)));
  for (const char* key : {"e", "a", "c", "r", "p", "k"}) d[key] = nlohmann::json::array();
  for (const auto& pt : r.timeline) {
    d["e"].push_back(pt.event);
    d["a"].push_back(pt.allocated);
    d["c"].push_back(pt.active);
    d["r"].push_back(pt.reserved);
    d["p"].push_back(pt.phase);
    d["k"].push_back(pt.live);
  }
  // "</" cannot end the data early: JSON escapes the slash.
  std::string text = d.dump();
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at))
    text.replace(at, 2, "<\\/");
  out += "<script type=\"application/json\" class=\"curve\">" + text + "</script>\n";
}

// "rank 0", "ranks 0 and 1 (the same curve)", "ranks 0, 3 and 5 (the same curve)".
std::string ranks_caption(int rank, const std::vector<int>& alike) {
  if (alike.empty()) return fmt::format("rank {}", rank);
  std::string out = fmt::format("ranks {}", rank);
  for (std::size_t i = 0; i < alike.size(); ++i)
    out += fmt::format("{}{}", i + 1 == alike.size() ? " and " : ", ", alike[i]);
  return out + " (the same curve)";
}

// `r` and the simulated ranks whose curves are the same as its own, drawn as one figure.
void timeline(std::string& out, const rank_prediction& r, const std::vector<int>& alike,
              bytes limit) {
  const auto& t = r.timeline;
  plot_area a;
  a.top_value = limit;
  for (const auto& pt : t) a.top_value = std::max(a.top_value, pt.reserved);
  if (a.top_value == 0) a.top_value = 1;
  a.first = t.front().event;
  a.last = std::max(t.back().event, a.first + 1);
  const int svg_w = a.left + a.width + 10;
  out += fmt::format(
      "<figure class=\"timeline\"><figcaption>{}{}</figcaption>\n"
      "<svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"timeline of rank {}\" data-left=\"{}\" data-width=\"{}\" "
      "data-top=\"{}\" data-plot-h=\"{}\" data-ymax=\"{}\">\n",
      ranks_caption(r.rank, alike),
      r.like_rank != r.rank ? fmt::format(" (like rank {})", r.like_rank) : "", svg_w,
      a.height, svg_w, a.height, r.rank, a.left, a.width, a.top, a.plot_h(), a.top_value);
  out += fmt::format(
      "<clipPath id=\"plot-{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath>\n<g clip-path=\"url(#plot-{})\"><g class=\"zoomed\">\n",
      r.rank, a.left, a.top, a.width, a.plot_h(), r.rank);
  std::string labels;
  phase_bands(out, r, a, labels);
  curves(out, r, a);
  out += "</g></g>\n" + labels;
  y_axis(out, a);
  if (limit > 0)
    out += fmt::format(
        "<line class=\"limit\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#a4231b\" "
        "stroke-dasharray=\"6 4\"/><text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">"
        "allocator limit {}</text>\n",
        a.left, a.left + a.width, a.py(limit), a.py(limit), a.left + a.width - 4, a.py(limit) + 14,
        format_bytes(limit));
  out += fmt::format(
      "<text class=\"x-title\" x=\"{}\" y=\"{}\" text-anchor=\"end\">step "
      "progress: allocator events {} to {}</text>\n",
      a.left + a.width, a.height - 4, a.first, a.last);
  out += "</svg>\n";
  curve_data(out, r);
  out += fmt::format(
      "<p class=\"note\">peak: {} allocated, {} reserved, {} on the GPU ({})</p></figure>\n",
      format_bytes(r.peak.allocated), format_bytes(r.peak.reserved), format_bytes(r.peak.device),
      escape(r.peak_phase));
}

void timelines(std::string& out, const prediction& p) {
  // The simulated ranks keep their curves, each its own class (a run of one) in a plan kept as
  // ranges; a run of more shares its class's curve only where the class's rank is simulated.
  std::vector<rank_prediction> simulated;
  predict::for_each_rank_with_timeline(p, [&](const rank_prediction& r, int rank) {
    if (r.like_rank == rank) simulated.push_back(predict::renumbered(r, rank));
  });
  if (simulated.empty()) return;
  // Ranks planned apart whose curves came out the same (rank 0 and 1 of an FSDP job, say) are
  // one figure, captioned with all of them, so that two equal pictures never suggest a
  // difference or hide that there is none.
  const auto limit_of = [&](const rank_prediction& r) {
    bytes limit = 0;  // what the caching allocator may take on this rank's GPU
    if (const auto g = predict::gpu_of(p, r.gpu)) {
      const bytes outside = g->device > r.peak.reserved ? g->device - r.peak.reserved : 0;
      limit = g->capacity > outside ? g->capacity - outside : 0;
    }
    return limit;
  };
  std::vector<std::pair<const rank_prediction*, std::vector<int>>> figures;
  for (const auto& rank : simulated) {
    const auto* r = &rank;
    auto same = std::find_if(figures.begin(), figures.end(), [&](const auto& f) {
      const auto& a = *f.first;
      return limit_of(a) == limit_of(*r) && a.peak.device == r->peak.device &&
             a.peak_phase == r->peak_phase && a.phase_names == r->phase_names &&
             a.timeline == r->timeline;
    });
    if (same == figures.end())
      figures.push_back({r, {}});
    else
      same->second.push_back(r->rank);
  }
  out += "<h2>Over the step: allocated, active and reserved</h2>\n"
         "<p class=\"legend\"><span><span class=\"swatch\" style=\"background:#4e79a7\"></span>allocated</span>"
         "<span><span class=\"swatch\" style=\"background:#f28e2b\"></span>active</span>"
         "<span><span class=\"swatch\" style=\"background:#e15759\"></span>reserved</span>"
         "<span>shaded: the phases of the step</span></p>\n<div class=\"ranks\">\n";
  for (const auto& [r, alike] : figures) timeline(out, *r, alike, limit_of(*r));
  out += "</div>\n";
  if (p.whole_step_need)
    out += fmt::format(
        "<p class=\"note\">The plan stops at the first out-of-memory error, so "
        "the curves end there; the whole step needs about {} on the busiest GPU "
        "(the last bar of the GPU chart).</p>\n",
        format_bytes(*p.whole_step_need));
}

// The page's one script, inline (nothing fetched): the timelines' hover (a cursor with the phase
// and the three levels at the pointer) and zoom (wheel over a plot; drag to pan, double-click
// to reset), from each figure's curve data. Without scripts the page shows the same curves.
// Opened as page.html#exercise, it zooms the first plot and hovers its middle once, so that a
// headless browser's DOM shows both worked (tests/html/render_test.py).
constexpr const char* timeline_style =
    "svg.zoomed-in .phase-label{display:none} figure.timeline svg{cursor:crosshair}"
    ".tip text{font-size:11px}";

constexpr const char* timeline_script = R"js(<script>
(function () {
  function size(b) {
    var u = ["B", "KiB", "MiB", "GiB"], i = 0;
    while (b >= 1024 && i < 3) { b /= 1024; i++; }
    return (i ? b.toFixed(2) : b) + " " + u[i];
  }
  document.querySelectorAll("figure.timeline").forEach(function (fig, figure) {
    var svg = fig.querySelector("svg"), data = fig.querySelector("script.curve");
    if (!svg || !data) return;
    var d = JSON.parse(data.textContent), ds = svg.dataset, n = d.e.length;
    var L = +ds.left, W = +ds.width, T = +ds.top, H = +ds.plotH;
    var first = d.e[0], last = Math.max(d.e[n - 1], first + 1), lo = first, hi = last;
    var zoomed = svg.querySelector("g.zoomed"), ns = svg.namespaceURI;
    function el(tag, attrs, parent) {
      var e = document.createElementNS(ns, tag);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      (parent || svg).appendChild(e);
      return e;
    }
    var axis = el("g", {"class": "x-axis"});
    var cursor = el("line", {"class": "cursor", y1: T, y2: T + H, stroke: "#333",
                             "stroke-dasharray": "2 2", visibility: "hidden"});
    var tip = el("g", {"class": "tip", visibility: "hidden"});
    var box = el("rect", {fill: "#fff", stroke: "#999", rx: 3}, tip);
    var lines = [];
    function line(i) {  // the tip's text lines, made as they are needed
      while (lines.length <= i) lines.push(el("text", {x: 6, y: 15 + 15 * lines.length}, tip));
      return lines[i];
    }
    function x(e) { return L + W * (e - lo) / (hi - lo); }
    function draw() {
      var k = (last - first) / (hi - lo), b = L - k * L - W * (lo - first) / (hi - lo);
      zoomed.setAttribute("transform", "translate(" + b + ",0) scale(" + k + ",1)");
      svg.classList.toggle("zoomed-in", k > 1.0001);
      while (axis.firstChild) axis.removeChild(axis.firstChild);
      for (var i = 0; i <= 4; i++) {
        var e = lo + (hi - lo) * i / 4;
        el("line", {x1: x(e), x2: x(e), y1: T + H, y2: T + H + 4, stroke: "#999"}, axis);
        el("text", {"class": "tick", x: x(e), y: T + H + 28,
                    "text-anchor": i == 0 ? "start" : i == 4 ? "end" : "middle"}, axis)
            .textContent = Math.round(e);
      }
    }
    function at(evt) {
      var p = svg.createSVGPoint();
      p.x = evt.clientX; p.y = evt.clientY;
      return p.matrixTransform(svg.getScreenCTM().inverse());
    }
    function index(e) {  // the last point at or before event e
      var a = 0, b = n - 1;
      while (a < b) { var m = (a + b + 1) >> 1; if (d.e[m] <= e) a = m; else b = m - 1; }
      return a;
    }
    function hide() { cursor.setAttribute("visibility", "hidden"); tip.setAttribute("visibility", "hidden"); }
    var drag = null;
    svg.addEventListener("mousemove", function (evt) {
      var p = at(evt);
      if (drag) {
        var span = hi - lo;
        lo = Math.max(first, Math.min(last - span, drag.lo - (p.x - drag.x) * span / W));
        hi = lo + span;
        draw();
      }
      if (p.x < L || p.x > L + W) return hide();
      var i = index(lo + (hi - lo) * (p.x - L) / W);
      var text = [d.names[d.p[i]] + " (event " + d.e[i] + ")", "allocated " + size(d.a[i]),
                  "active " + size(d.c[i]), "reserved " + size(d.r[i])];
      if (d.k && d.k[i]) {  // what is live at the pointer, largest first
        var live = d.kinds.map(function (name, c) { return [name, d.k[i][c]]; })
                       .filter(function (kv) { return kv[1] > 0; })
                       .sort(function (x, y) { return y[1] - x[1]; });
        if (live.length) text.push("live tensors:");
        live.forEach(function (kv) { text.push("\u00a0\u00a0" + kv[0] + " " + size(kv[1])); });
      }
      var w = 0;
      lines.forEach(function (l) { l.textContent = ""; });
      text.forEach(function (t, j) {
        var l = line(j);
        l.textContent = t;
        w = Math.max(w, l.getComputedTextLength());
      });
      box.setAttribute("width", w + 12);
      box.setAttribute("height", 6 + 15 * text.length);
      cursor.setAttribute("x1", p.x); cursor.setAttribute("x2", p.x);
      tip.setAttribute("transform", "translate(" + (p.x + w + 24 > L + W ? p.x - w - 22 : p.x + 10) +
                       "," + (T + 4) + ")");
      cursor.setAttribute("visibility", "visible"); tip.setAttribute("visibility", "visible");
    });
    svg.addEventListener("mouseleave", function () { drag = null; hide(); });
    svg.addEventListener("wheel", function (evt) {
      var p = at(evt);
      if (p.x < L || p.x > L + W) return;
      evt.preventDefault();
      var e = lo + (hi - lo) * (p.x - L) / W;
      var span = Math.min(last - first, Math.max(8, (hi - lo) * (evt.deltaY < 0 ? 0.8 : 1.25)));
      var from = Math.max(first, Math.min(last - span, e - (e - lo) * span / (hi - lo)));
      lo = from; hi = from + span;
      draw();
    }, {passive: false});
    svg.addEventListener("mousedown", function (evt) { drag = {x: at(evt).x, lo: lo}; evt.preventDefault(); });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("dblclick", function () { lo = first; hi = last; draw(); });
    draw();
    if (location.hash == "#exercise" && figure == 0) {
      var r = svg.getBoundingClientRect(), mid = {clientX: r.left + r.width * (L + W / 2) / svg.viewBox.baseVal.width,
                                                  clientY: r.top + r.height / 2, bubbles: true};
      for (var z = 0; z < 3; z++) svg.dispatchEvent(new WheelEvent("wheel", Object.assign({deltaY: -100, cancelable: true}, mid)));
      svg.dispatchEvent(new MouseEvent("mousemove", mid));
    }
  });
})();
</script>
)js";

}  // namespace

std::string plan_html(const prediction& p) {
  std::string out =
      detail::page_start("vramscope plan: " + p.model_name, plan_heading(p),
                         std::string(gpu_chart_style) + timeline_style);
  const auto state = predict::state_of(p);
  const char* kind = state == predict::fit_state::fits    ? "fits"
                     : state == predict::fit_state::tight ? "tight"
                                                          : "nofit";
  out += fmt::format("<p class=\"verdict {}\">{}", kind, escape(verdict_line(p)));
  if (state == predict::fit_state::tight)
    out += fmt::format("<br><span class=\"reason\">{}</span>", escape(predict::margin_reason));
  if (const auto need = whole_step_line(p); !need.empty())
    out += fmt::format("<br><span class=\"need\">{}</span>", escape(need));
  out += "</p>\n";
  gpu_bars(out, p);
  if (predict::rank_count(p) > 0) breakdown_bar(out, predict::busiest_rank(p));
  timelines(out, p);
  if (!p.notes.empty()) {
    out += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : p.notes) out += "<li>" + escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  out += fmt::format("<p class=\"note\">allocator model: {}. Written by vramscope plan --html.</p>\n",
                     escape(p.allocator));
  if (out.find("<script type=\"application/json\" class=\"curve\">") != std::string::npos)
    out += timeline_script;
  out += "</body></html>\n";
  return out;
}

}  // namespace vramscope::report
