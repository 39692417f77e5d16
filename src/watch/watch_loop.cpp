#include <vramscope/watch/watch_loop.hpp>

#include <vramscope/watch/sample_json.hpp>
#include <vramscope/watch/stop_signal.hpp>

#include <ostream>
#include <thread>

namespace vramscope::watch {

namespace {

using clock = std::chrono::steady_clock;

// Why the loop should end now: a signal, or the user quitting the display.
bool should_stop(watch_display& display, bool& quit) {
  if (stop_signal_scope::received()) return true;
  if (!quit && !display.poll_input()) quit = true;
  return quit;
}

// Sleeps until `until` in short steps, so a signal or a key ends the wait quickly
// (std::this_thread resumes a sleep that a signal interrupted).
void sleep_until(clock::time_point until, watch_display& display, bool& quit) {
  constexpr auto step = std::chrono::milliseconds(20);
  while (!should_stop(display, quit)) {
    const auto now = clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<clock::duration>(step, until - now));
  }
}

void publish(const frame& f, const sampler& s, const watch_settings& settings,
             const watch_outputs& outputs, watch_display& display) {
  display.show(f, s.peaks());
  if (outputs.log) *outputs.log << to_json_line(f.now, f.alerts, f.source) << "\n" << std::flush;
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

void json_line_display::show(const frame& f, const peak_tracker&) {
  out_ << to_json_line(f.now, f.alerts, f.source) << "\n" << std::flush;
}

result<watch_result> run_watch(gpu_source& source, const watch_settings& settings,
                               const watch_outputs& outputs, watch_display& display) {
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
      sleep_until(std::min(clock::now() + sample_every, next_refresh), display, r.quit);
    } while (clock::now() < next_refresh && !should_stop(display, r.quit));
    if (r.quit || !s.has_new_sample()) break;  // the user quit, or a replay ran out
    publish(s.take_frame(), s, settings, outputs, display);
    if (outputs.log && !*outputs.log)
      return error_at("--log", "cannot write the log (its line is not kept)");
    if (display.output_failed()) break;  // the caller reports the write error
    ++r.refreshes;
    if (settings.once || (settings.count && r.refreshes >= settings.count) || source.finished())
      break;
    sleep_until(next_refresh, display, r.quit);
    if (should_stop(display, r.quit)) break;
  }
  r.interrupted = stop_signal_scope::received() != 0;
  return r;
}

}  // namespace vramscope::watch
