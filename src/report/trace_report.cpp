#include <vramscope/report/trace_report.hpp>

#include <vramscope/core/units.hpp>

#include <fmt/format.h>

namespace vramscope::report {

namespace {

std::string process_text(const trace::trace_process_peak& p) {
  std::string who =
      p.rank ? fmt::format("pid {} (rank {})", p.pid, *p.rank) : fmt::format("pid {}", p.pid);
  return fmt::format("{} {}{}", who, format_bytes(p.peak), p.sampled ? " sampled" : "");
}

}  // namespace

std::string render_trace_text(const trace::trace_summary& s, const std::string& dir) {
  std::string out = fmt::format("vramscope trace: {} file{} in {}", s.files, s.files == 1 ? "" : "s", dir);
  if (s.hosts.size() > 1) out += fmt::format(" from {} hosts", s.hosts.size());
  out += fmt::format(": {} events", s.events);
  if (s.samples) out += fmt::format(", {} NVML samples", s.samples);
  if (s.dropped) out += fmt::format(", {} records dropped by CUPTI", s.dropped);
  out += "\n";
  const bool many = s.hosts.size() > 1;
  for (const auto& g : s.gpus) {
    const std::string where =
        many && !g.host.empty() && g.gpu.find('#') == std::string::npos ? " on " + g.host : "";
    out += fmt::format("  GPU {}{}{}: peak {}\n", g.gpu, where,
                       g.name.empty() ? "" : " (" + g.name + ")", format_bytes(g.peak));
    for (const auto& p : g.processes) out += "    " + process_text(p) + "\n";
  }
  for (std::size_t i = 0; i < s.untraced_pids.size(); ++i)
    out += fmt::format("  pid {} was not traced: {}\n", s.untraced_pids[i], s.untraced_messages[i]);
  for (const auto& w : s.warnings) out += "  warning: " + w.to_string() + "\n";
  return out;
}

nlohmann::json trace_json(const trace::trace_summary& s) {
  nlohmann::json j = {{"events", s.events},
                      {"samples", s.samples},
                      {"dropped", s.dropped},
                      {"hosts", s.hosts},
                      {"gpus", nlohmann::json::array()}};
  for (const auto& g : s.gpus) {
    nlohmann::json gj = {
        {"gpu", g.gpu}, {"name", g.name}, {"peak", g.peak}, {"processes", nlohmann::json::array()}};
    if (!g.host.empty()) gj["host"] = g.host;
    if (g.index) gj["index"] = *g.index;
    if (g.total) gj["total"] = *g.total;
    for (const auto& p : g.processes) {
      nlohmann::json pj = {
          {"pid", p.pid}, {"peak", p.peak}, {"final", p.final_live}, {"sampled", p.sampled}};
      if (p.rank) pj["rank"] = *p.rank;
      if (!p.host.empty()) pj["host"] = p.host;
      gj["processes"].push_back(pj);
    }
    j["gpus"].push_back(gj);
  }
  return j;
}

}  // namespace vramscope::report
