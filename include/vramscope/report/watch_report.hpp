#pragma once
// The renderings of `vramscope watch`, one refresh at a time:
//
//  - the plain text block, for pipes, files and `watch --plain`:
//
//      vramscope watch  2025-11-21 10:00:00  nvml  every 1 s, peaks over 4 samples
//      GPU  NAME                      USED / TOTAL               UTIL  PEAK       MAX
//      0    NVIDIA H100 80GB HBM3     70.00 GiB / 79.65 GiB  88%   97%   71.20 GiB  72.00 GiB
//           PID      RANK  NAME              MEMORY      PEAK
//           4242     0     python3           69.50 GiB   70.70 GiB
//      alerts:
//        [shared_gpu] GPU 0 holds 2 processes: ...
//
//  - the full-screen view of a terminal (`watch_screen`): a page of exactly the terminal's size,
//    one row per GPU with a memory bar and a short history, the alerts, the processes as many as
//    fit, and a key line. It is laid out here as styled text; the command draws it (ncurses) and
//    feeds it the keys.
//
// PEAK is the highest figure since the previous refresh, MAX since watch started. The JSON
// lines of `watch --json` and `--log` are the replay format and live with their reader in
// watch/sample_json.hpp.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/units.hpp>
#include <vramscope/watch/peak_tracker.hpp>
#include <vramscope/watch/sampler.hpp>

namespace vramscope::report {

struct watch_text_options {
  std::chrono::milliseconds interval{1000};  // shown in the title
  bool utc = false;                          // timestamps in UTC instead of local time
};

/// The plain text block of one refresh. Lines end with '\n'.
std::string render_watch_text(const watch::frame& f, const watch::peak_tracker& peaks,
                              const watch_text_options& options);

// ---- The full-screen view -------------------------------------------------------------------

enum class screen_style : std::uint8_t {
  plain,
  title,   // the top line
  header,  // column names
  dim,     // empty bar cells, secondary figures
  good,    // memory below 75 % of the GPU
  warn,    // 75 % to 90 %
  bad,     // 90 % and above, lost GPUs
  alert,   // alert lines
  footer,  // the key line at the bottom
};

struct screen_run {
  std::string text;  // UTF-8; every code point takes one terminal column
  screen_style style = screen_style::plain;
};

using screen_line = std::vector<screen_run>;

/// Terminal columns `utf8` takes: one per code point (the view only writes narrow characters;
/// process and GPU names are reduced to printable ASCII before they get here).
std::size_t columns(std::string_view utf8);

/// The line's text without styles.
std::string line_text(const screen_line& line);

enum class screen_sort { index, memory, utilization };
std::string_view sort_name(screen_sort s);

class watch_screen {
 public:
  struct options {
    std::chrono::milliseconds interval{1000};
    bool utc = false;
    bool unicode = true;        // block characters for bars and history; ASCII otherwise
    std::size_t history = 256;  // refreshes kept per GPU for the history column
  };

  explicit watch_screen(options o) : options_(o) {}

  /// Takes one refresh: what the page shows from now on, and one more history point per GPU.
  void add(const watch::frame& f, const watch::peak_tracker& peaks);
  [[nodiscard]] bool has_frame() const { return shown_.has_value(); }

  /// The page for a terminal of `width` columns and `height` rows: exactly `height` lines, none
  /// wider than `width`, the key line last. GPUs come first; then the alerts, most urgent first
  /// (watch::urgency, then the fullest GPU), wrapped at spaces, in at least three rows and as
  /// many more as the processes leave free; then the processes. The key line says what did
  /// not fit.
  [[nodiscard]] std::vector<screen_line> layout(int width, int height) const;

  /// Keys: GPU order index -> memory -> utilization -> index; process rows on and off.
  void cycle_sort();
  void toggle_processes() { show_processes_ = !show_processes_; }
  [[nodiscard]] screen_sort sort() const { return sort_; }
  [[nodiscard]] bool processes_shown() const { return show_processes_; }

 private:
  struct shown_refresh {
    watch::frame frame;
    std::vector<std::optional<bytes>> gpu_max;      // parallel to frame.now.gpus
    std::vector<std::optional<bytes>> process_max;  // parallel to frame.now.processes
  };
  options options_;
  std::optional<shown_refresh> shown_;
  // Per GPU (watch::gpu_key): used / total at each refresh, oldest first; < 0: unknown.
  std::map<std::string, std::vector<double>> histories_;
  screen_sort sort_ = screen_sort::index;
  bool show_processes_ = true;
};

}  // namespace vramscope::report
