#include <vramscope/watch/sampler.hpp>

#include <vramscope/watch/process_info.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace vramscope::watch {

std::chrono::milliseconds effective_sample_interval(const monitor_options& options) {
  using std::chrono::milliseconds;
  if (options.sample_interval.count() > 0) return options.sample_interval;
  return std::clamp(options.interval / 4, milliseconds{50}, milliseconds{250});
}

result<std::chrono::milliseconds> parse_duration(std::string_view text, const std::string& option) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1000;
  else if (unit == "ms")
    scale = 1;
  else if (unit == "m")
    scale = 60000;
  if (ec != std::errc{} || end == text.data() || scale == 0 || value < 0 || !std::isfinite(value))
    return error_at(option,
                    fmt::format("expected a duration such as 1s, 500ms or 2.5s, got \"{}\"", text));
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(value * scale)));
}

sampler::sampler(gpu_source& source, monitor_options options)
    : source_(source), options_(std::move(options)) {}

void sampler::add_details(sample& s) {
  std::map<std::int64_t, cached_process> alive;
  for (auto& p : s.processes) {
    const auto pid = p.process.pid;
    auto it = processes_.find(pid);
    // The environment a process started with does not change: read /proc once per pid.
    cached_process c = it != processes_.end()
                           ? it->second
                           : cached_process{read_process_details(pid, options_.proc_root),
                                            read_process_comm(pid, options_.proc_root)};
    p.details = c.details;
    if (p.process.name.empty()) p.process.name = c.comm;
    alive.emplace(pid, std::move(c));
  }
  processes_ = std::move(alive);  // forget exited pids, so a reused pid is read afresh
}

status sampler::poll() {
  auto s = source_.read();
  if (!s) return s.error();
  if (options_.read_proc) add_details(*s);
  for (const auto& w : s->warnings)
    if (seen_warnings_.insert(w.to_string()).second) pending_warnings_.push_back(w);
  peaks_.add(*s);
  latest_ = std::move(*s);
  ++window_samples_;
  return ok();
}

frame sampler::take_frame() {
  VRAMSCOPE_EXPECTS(latest_.has_value(), "take_frame before a successful poll");
  frame f;
  f.now = *latest_;
  f.now.warnings = std::move(pending_warnings_);
  pending_warnings_.clear();
  peaks_.fill_window_peaks(f.now);
  f.alerts = evaluate_alerts(f.now, options_.alerts);
  f.source = std::string(source_.name());
  f.samples_in_window = window_samples_;
  peaks_.start_window();
  window_samples_ = 0;
  return f;
}

}  // namespace vramscope::watch
