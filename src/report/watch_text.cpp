#include <vramscope/report/watch_report.hpp>

#include <fmt/format.h>

#include "report/watch_common.hpp"

namespace vramscope::report {

namespace {

std::string size_or_dash(const std::optional<bytes>& b) { return b ? format_bytes(*b) : "-"; }

std::string usage_text(const observe::gpu_observation& g) {
  return fmt::format("{} / {}", size_or_dash(g.used), size_or_dash(g.total));
}

std::string percent_text(const std::optional<int>& p) { return p ? fmt::format("{}%", *p) : "-"; }

std::string fill_text(const observe::gpu_observation& g) {
  if (!g.used || !g.total || *g.total == 0) return "-";
  return fmt::format("{:.0f}%",
                     100.0 * static_cast<double>(*g.used) / static_cast<double>(*g.total));
}

void render_processes(const watch::frame& f, int gpu, const watch::peak_tracker& peaks,
                      std::string& out) {
  bool header = false;
  for (const auto& p : f.now.processes) {
    if (p.process.gpu_index != gpu) continue;
    if (!header) {
      out += fmt::format("     {:<8} {:<6} {:<18} {:>11} {:>11} {:>11}\n", "PID", "RANK", "NAME",
                         "MEMORY", "PEAK", "MAX");
      header = true;
    }
    const std::string tags = detail::watch_process_tags(p);
    out +=
        fmt::format("     {:<8} {:<6} {:<18} {:>11} {:>11} {:>11}{}\n", p.process.pid,
                    detail::watch_rank(p.details), detail::watch_process_name(p.process.name, 18),
                    size_or_dash(p.process.used), size_or_dash(p.peak_used),
                    size_or_dash(peaks.process_peak(p)), tags.empty() ? "" : "  " + tags);
  }
}

}  // namespace

std::string render_watch_text(const watch::frame& f, const watch::peak_tracker& peaks,
                              const watch_text_options& options) {
  std::string out;
  out += fmt::format("vramscope watch  {}  {}  every {}, peaks over {} sample{}\n",
                     detail::watch_clock(f.now.time_ms, options.utc), f.source,
                     detail::watch_interval(options.interval), f.samples_in_window,
                     f.samples_in_window == 1 ? "" : "s");
  out += fmt::format("{:<4} {:<26} {:>23} {:>5} {:>5} {:>11} {:>11}\n", "GPU", "NAME",
                     "USED / TOTAL", "FILL", "UTIL", "PEAK", "MAX");
  for (const auto& g : f.now.gpus) {
    const int index = g.gpu.index.value_or(-1);
    if (g.lost) {
      out += fmt::format("{:<4} {:<26} lost: the driver cannot reach this GPU\n", index,
                         detail::watch_process_name(g.gpu.name, 26));
      continue;
    }
    out += fmt::format("{:<4} {:<26} {:>23} {:>5} {:>5} {:>11} {:>11}\n", index,
                       detail::watch_process_name(g.gpu.name, 26), usage_text(g.gpu),
                       fill_text(g.gpu), percent_text(g.gpu.utilization_gpu),
                       size_or_dash(g.peak_used), size_or_dash(peaks.gpu_peak(g)));
    render_processes(f, index, peaks, out);
  }
  if (f.alerts.empty())
    out += "no alerts\n";
  else
    out += "alerts:\n";
  for (const auto& a : f.alerts)
    out += fmt::format("  [{}] {}\n", watch::alert_id(a.kind), a.message);
  for (const auto& w : f.now.warnings) out += fmt::format("warning: {}\n", w.to_string());
  return out;
}

}  // namespace vramscope::report
