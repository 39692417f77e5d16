#pragma once
// The loop of `vramscope watch`: sample, refresh the view / log / metrics, until Ctrl-C, a
// refresh count, `--once`, or the end of a replay. The command opens the source, the log
// file and the metrics server (each failure has its own exit code) and hands them in here.

#include <cstdint>
#include <iosfwd>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/prometheus.hpp>
#include <vramscope/watch/sampler.hpp>

namespace vramscope::watch {

struct watch_settings {
  monitor_options monitor;
  bool once = false;          // one sample, one refresh, no waiting
  bool json = false;          // JSON lines on `out` instead of the view
  bool clear_screen = false;  // redraw in place (for a terminal)
  std::uint64_t count = 0;    // stop after this many refreshes; 0: no limit
  bool utc = false;           // view timestamps in UTC
  std::string hostname;       // the metrics' Hostname label
  std::string stats_dir;      // re-read at every refresh for the metrics; "" = none
};

/// Where refreshes go besides `out`; null members are unused.
struct watch_outputs {
  std::ostream* log = nullptr;        // one JSON line per refresh, flushed each line
  metrics_server* metrics = nullptr;  // gets the Prometheus text of every refresh
};

struct watch_result {
  std::uint64_t refreshes = 0;
  std::uint64_t samples = 0;
  bool interrupted = false;  // ended by SIGINT, SIGTERM or SIGHUP
};

/// Runs the loop on `source` until it should stop. A replayed recording plays one line per
/// refresh and ends the loop when it runs out. Installs a stop_signal_scope for its duration.
/// Fails when a live source fails (the message says why); samples already shown stay shown.
result<watch_result> run_watch(gpu_source& source, const watch_settings& settings,
                               const watch_outputs& outputs, std::ostream& out);

}  // namespace vramscope::watch
