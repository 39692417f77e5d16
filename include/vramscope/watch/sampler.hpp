#pragma once
// The sampling loop behind `vramscope watch`, without its terminal: reads a gpu_source several
// times per refresh, adds what /proc tells about each process (rank, framework), keeps peaks,
// and hands out one `frame` per refresh for the view, the log and the metrics endpoint.
//
//   sampler s(source, options);
//   while (running) {
//     s.poll();                      // every sample_interval
//     if (refresh_due) show(s.take_frame());
//   }

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/alerts.hpp>
#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/peak_tracker.hpp>

namespace vramscope::watch {

struct monitor_options {
  /// How often the view, the log and the metrics refresh. Shorter costs more terminal output
  /// and log volume; the log gets one line per refresh.
  std::chrono::milliseconds interval{1000};
  /// How often the source is read between refreshes, so peaks between refreshes are caught.
  /// 0 means interval / 4, clamped to 50-250 ms. Shorter catches shorter spikes; each NVML
  /// read takes about a millisecond per GPU, each nvidia-smi read tens of milliseconds.
  std::chrono::milliseconds sample_interval{0};
  /// Where /proc is; tests point it at a fake tree.
  std::string proc_root = "/proc";
  /// Read rank and framework from /proc. Off for replays: their pids are not this machine's.
  bool read_proc = true;
  alert_options alerts;
};

/// The sample interval `options` asks for, with the default applied.
std::chrono::milliseconds effective_sample_interval(const monitor_options& options);

/// Parses a duration for the command line: "1s", "500ms", "2.5s", "1m", or a bare number of
/// seconds ("2"). Fails (source `option`) on anything else or a negative value.
result<std::chrono::milliseconds> parse_duration(std::string_view text, const std::string& option);

/// What one refresh shows: the latest sample with window peaks filled in, and its alerts.
struct frame {
  sample now;
  std::vector<alert> alerts;
  std::string source;  // the source's name
  std::uint64_t samples_in_window = 0;
};

/// Drives one gpu_source. Holds a reference to it: the source must outlive the sampler.
/// Not thread-safe.
class sampler {
 public:
  sampler(gpu_source& source, monitor_options options);

  /// Reads the source once and folds the sample in. Fails when the source fails (a replay at
  /// its end included); the previous samples stay.
  status poll();

  /// True once poll succeeded at least once since the last frame.
  [[nodiscard]] bool has_new_sample() const { return window_samples_ > 0; }

  /// The latest sample with window peaks and alerts, plus the warnings of every sample since
  /// the previous frame (each distinct message once). Starts a new peak window.
  /// Requires: poll succeeded at least once since construction.
  frame take_frame();

  [[nodiscard]] const peak_tracker& peaks() const { return peaks_; }
  [[nodiscard]] const monitor_options& options() const { return options_; }

 private:
  struct cached_process {
    process_details details;
    std::string comm;
  };
  void add_details(sample& s);

  gpu_source& source_;
  monitor_options options_;
  peak_tracker peaks_;
  std::optional<sample> latest_;
  vramscope::warnings pending_warnings_;
  std::set<std::string> seen_warnings_;
  std::map<std::int64_t, cached_process> processes_;
  std::uint64_t window_samples_ = 0;
};

}  // namespace vramscope::watch
