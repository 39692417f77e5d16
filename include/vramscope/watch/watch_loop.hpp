#pragma once
// The loop of `vramscope watch`: sample, refresh the display / log / metrics, until Ctrl-C, a
// quit key, a refresh count, `--once`, or the end of a replay. The command opens the source,
// the log file and the metrics server (each failure has its own exit code), chooses the display
// (plain text, JSON lines or the full screen, rendered by report/) and hands them in here.

#include <cstdint>
#include <iosfwd>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/prometheus.hpp>
#include <vramscope/watch/sampler.hpp>

namespace vramscope::watch {

struct watch_settings {
  monitor_options monitor;
  bool once = false;        // one sample, one refresh, no waiting
  std::uint64_t count = 0;  // stop after this many refreshes; 0: no limit
  std::string hostname;     // the metrics' Hostname label
  std::string stats_dir;      // re-read at every refresh for the metrics; "" = none
};

/// Shows each refresh to the user.
class watch_display {
 public:
  virtual ~watch_display() = default;
  virtual void show(const frame& f, const peak_tracker& peaks) = 0;
  /// Called every few tens of milliseconds while the loop waits, to read keys and follow a
  /// resized terminal. False: the user asked to quit.
  virtual bool poll_input() { return true; }
  /// True once the display can no longer write (its reader gone, a full disk): the loop ends,
  /// and the program reports the write error as it exits.
  virtual bool output_failed() const { return false; }
};

/// The display of `watch --json`: each refresh as one JSON line (the --log format), flushed.
class json_line_display final : public watch_display {
 public:
  explicit json_line_display(std::ostream& out) : out_(out) {}
  void show(const frame& f, const peak_tracker& peaks) override;
  bool output_failed() const override { return !out_; }

 private:
  std::ostream& out_;
};

/// Where refreshes go besides the display; null members are unused.
struct watch_outputs {
  std::ostream* log = nullptr;        // one JSON line per refresh, flushed each line
  metrics_server* metrics = nullptr;  // gets the Prometheus text of every refresh
};

struct watch_result {
  std::uint64_t refreshes = 0;
  std::uint64_t samples = 0;
  bool interrupted = false;  // ended by SIGINT, SIGTERM or SIGHUP
  bool quit = false;         // ended by the display (the user pressed q)
};

/// Runs the loop on `source` until it should stop. A replayed recording plays one line per
/// refresh and ends the loop when it runs out. Installs a stop_signal_scope for its duration.
/// Fails when a live source fails (the message says why); samples already shown stay shown.
result<watch_result> run_watch(gpu_source& source, const watch_settings& settings,
                               const watch_outputs& outputs, watch_display& display);

}  // namespace vramscope::watch
