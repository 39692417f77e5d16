#pragma once
// What the two watch renderings (watch_text.cpp, watch_screen.cpp) share: the title's clock and
// interval, and the short names of processes, their ranks and tags.

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::report::detail {

inline std::string watch_clock(std::int64_t time_ms, bool utc) {
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

inline std::string watch_interval(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0) return fmt::format("{} s", ms.count() / 1000);
  if (ms.count() < 1000) return fmt::format("{} ms", ms.count());
  return fmt::format("{:.1f} s", static_cast<double>(ms.count()) / 1000.0);
}

/// The last path component of a process name, cut to `width` keeping its end
/// ("/opt/conda/bin/python" -> "python"), as nvidia-smi does.
inline std::string watch_process_name(const std::string& name, std::size_t width) {
  std::string base = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  if (base.empty()) base = name.empty() ? "?" : name;
  if (base.size() > width) base = "..." + base.substr(base.size() - (width - 3));
  return base;
}

/// "0/8" (rank / world size), "0", or "-" when /proc did not tell.
inline std::string watch_rank(const watch::process_details& d) {
  if (!d.rank) return "-";
  return d.world_size ? fmt::format("{}/{}", *d.rank, *d.world_size) : std::to_string(*d.rank);
}

/// What else a process is: its framework ("torch", "jax") and, unless it is a plain compute
/// client, its type ("G", "M"); "" when neither is known.
inline std::string watch_process_tags(const watch::process_reading& p) {
  std::string tags = p.details.framework;
  if (!p.process.type.empty() && p.process.type != "C")
    tags += (tags.empty() ? "" : " ") + p.process.type;
  return tags;
}

}  // namespace vramscope::report::detail
