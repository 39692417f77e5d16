#include <vramscope/watch/watch_loop.hpp>

#include <vramscope/watch/sample_json.hpp>
#include <vramscope/watch/stop_signal.hpp>
#include <vramscope/watch/watch_view.hpp>

#include <ostream>
#include <thread>

namespace vramscope::watch {

namespace {

using clock = std::chrono::steady_clock;

// Sleeps until `until` in short steps, so a signal ends the wait quickly (std::this_thread
// resumes a sleep that a signal interrupted).
void sleep_until(clock::time_point until) {
  constexpr auto step = std::chrono::milliseconds(20);
  while (!stop_signal_scope::received()) {
    const auto now = clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<clock::duration>(step, until - now));
  }
}

void publish(const frame& f, const sampler& s, const watch_settings& settings,
             const watch_outputs& outputs, std::ostream& out) {
  const std::string line =
      (settings.json || outputs.log) ? to_json_line(f.now, f.alerts, f.source) : "";
  if (settings.json)
    out << line << "\n" << std::flush;
  else
    out << render_frame(f, s.peaks(),
                        {settings.clear_screen, settings.monitor.interval, settings.utc})
        << std::flush;
  if (outputs.log) *outputs.log << line << "\n" << std::flush;
  if (outputs.metrics) {
    exposition_extras extras{settings.hostname, nullptr};
    stats_folder ranks;  // a folder that vanished after start counts as no files
    if (!settings.stats_dir.empty()) {
      if (auto read = read_stats_folder(settings.stats_dir)) ranks = std::move(*read);
      extras.ranks = &ranks;
    }
    outputs.metrics->publish(render_prometheus(f, s.peaks(), extras));
  }
}

}  // namespace

result<watch_result> run_watch(gpu_source& source, const watch_settings& settings,
                               const watch_outputs& outputs, std::ostream& out) {
  stop_signal_scope signals;
  sampler s(source, settings.monitor);
  const auto sample_every = effective_sample_interval(settings.monitor);
  const bool replay = source.recorded();
  watch_result r;
  auto next_refresh = clock::now();
  for (;;) {
    next_refresh += settings.monitor.interval;
    // Sample until the refresh is due: once for --once and for replays (a recorded line already
    // holds the peaks of its own window).
    do {
      auto polled = s.poll();
      if (!polled) {
        if (source.finished()) break;
        return polled.error();
      }
      ++r.samples;
      if (settings.once || replay) break;
      sleep_until(std::min(clock::now() + sample_every, next_refresh));
    } while (clock::now() < next_refresh && !stop_signal_scope::received());
    if (!s.has_new_sample()) break;  // a replay ran out
    publish(s.take_frame(), s, settings, outputs, out);
    ++r.refreshes;
    if (settings.once || (settings.count && r.refreshes >= settings.count) || source.finished())
      break;
    sleep_until(next_refresh);
    if (stop_signal_scope::received()) break;
  }
  r.interrupted = stop_signal_scope::received() != 0;
  return r;
}

}  // namespace vramscope::watch
