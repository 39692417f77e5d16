#include <vramscope/watch/watch_view.hpp>

#include <fmt/format.h>

#include <ctime>

namespace vramscope::watch {

namespace {

constexpr std::string_view clear_and_home = "\x1b[H\x1b[2J";

std::string size_or_dash(const std::optional<bytes>& b) { return b ? format_bytes(*b) : "-"; }

std::string clock_text(std::int64_t time_ms, bool utc) {
  const std::time_t t = static_cast<std::time_t>(time_ms / 1000);
  std::tm tm{};
  if (utc)
    gmtime_r(&t, &tm);
  else
    localtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &tm);
  return buffer;
}

std::string interval_text(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0) return fmt::format("{} s", ms.count() / 1000);
  if (ms.count() < 1000) return fmt::format("{} ms", ms.count());
  return fmt::format("{:.1f} s", static_cast<double>(ms.count()) / 1000.0);
}

// Keeps the end of long names ("/opt/conda/bin/python" -> "python"), as nvidia-smi does.
std::string short_name(const std::string& name, std::size_t width) {
  std::string base = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  if (base.empty()) base = name.empty() ? "?" : name;
  if (base.size() > width) base = "..." + base.substr(base.size() - (width - 3));
  return base;
}

std::string rank_text(const process_details& d) {
  if (!d.rank) return "-";
  return d.world_size ? fmt::format("{}/{}", *d.rank, *d.world_size) : std::to_string(*d.rank);
}

std::string usage_text(const observe::gpu_observation& g) {
  return fmt::format("{} / {}", size_or_dash(g.used), size_or_dash(g.total));
}

std::string percent_text(const std::optional<int>& p) { return p ? fmt::format("{}%", *p) : "-"; }

std::string fill_text(const observe::gpu_observation& g) {
  if (!g.used || !g.total || *g.total == 0) return "-";
  return fmt::format("{:.0f}%",
                     100.0 * static_cast<double>(*g.used) / static_cast<double>(*g.total));
}

void render_processes(const frame& f, int gpu, const peak_tracker& peaks, std::string& out) {
  bool header = false;
  for (const auto& p : f.now.processes) {
    if (p.process.gpu_index != gpu) continue;
    if (!header) {
      out += fmt::format("     {:<8} {:<6} {:<18} {:>11} {:>11} {:>11}\n", "PID", "RANK", "NAME",
                         "MEMORY", "PEAK", "MAX");
      header = true;
    }
    std::string tags = p.details.framework;
    if (!p.process.type.empty() && p.process.type != "C")
      tags += (tags.empty() ? "" : " ") + p.process.type;
    out += fmt::format("     {:<8} {:<6} {:<18} {:>11} {:>11} {:>11}{}\n", p.process.pid,
                       rank_text(p.details), short_name(p.process.name, 18),
                       size_or_dash(p.process.used), size_or_dash(p.peak_used),
                       size_or_dash(peaks.process_peak(p)), tags.empty() ? "" : "  " + tags);
  }
}

}  // namespace

std::string render_frame(const frame& f, const peak_tracker& peaks, const view_options& options) {
  std::string out;
  if (options.clear_screen) out += clear_and_home;
  out +=
      fmt::format("vramscope watch  {}  {}  every {}, peaks over {} sample{}\n",
                  clock_text(f.now.time_ms, options.utc), f.source, interval_text(options.interval),
                  f.samples_in_window, f.samples_in_window == 1 ? "" : "s");
  out += fmt::format("{:<4} {:<26} {:>23} {:>5} {:>5} {:>11} {:>11}\n", "GPU", "NAME",
                     "USED / TOTAL", "FILL", "UTIL", "PEAK", "MAX");
  for (const auto& g : f.now.gpus) {
    const int index = g.gpu.index.value_or(-1);
    if (g.lost) {
      out += fmt::format("{:<4} {:<26} lost: the driver cannot reach this GPU\n", index,
                         short_name(g.gpu.name, 26));
      continue;
    }
    out += fmt::format("{:<4} {:<26} {:>23} {:>5} {:>5} {:>11} {:>11}\n", index,
                       short_name(g.gpu.name, 26), usage_text(g.gpu), fill_text(g.gpu),
                       percent_text(g.gpu.utilization_gpu), size_or_dash(g.peak_used),
                       size_or_dash(peaks.gpu_peak(g)));
    render_processes(f, index, peaks, out);
  }
  if (f.alerts.empty())
    out += "no alerts\n";
  else
    out += "alerts:\n";
  for (const auto& a : f.alerts) out += fmt::format("  [{}] {}\n", alert_id(a.kind), a.message);
  for (const auto& w : f.now.warnings) out += fmt::format("warning: {}\n", w.to_string());
  return out;
}

}  // namespace vramscope::watch
