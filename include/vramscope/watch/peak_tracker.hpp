#pragma once
// Peaks between refreshes. `watch` samples several times per displayed refresh so that a short
// spike between two refreshes is not missed (polling at the display rate is how users miss
// peaks; docs/watch.md, "The view"); the tracker keeps, per GPU and per process on a GPU, the
// highest `used` of the current window and since the start.
//
// GPUs are keyed by UUID (by index when the source gives no UUID); processes by (GPU, pid).
// Not thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <vramscope/core/units.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

class peak_tracker {
 public:
  /// Folds one sample in: its `used` figures and, when set (a replayed log line), its
  /// `peak_used` figures. Empty figures and lost GPUs change nothing.
  void add(const sample& s);

  /// Sets `peak_used` on every GPU and process of `s` that the current window saw.
  void fill_window_peaks(sample& s) const;

  /// Starts a new window; peaks since the start are kept.
  void start_window();

  /// Highest used memory since the start; empty when never reported.
  [[nodiscard]] std::optional<bytes> gpu_peak(const gpu_reading& g) const;
  [[nodiscard]] std::optional<bytes> process_peak(const process_reading& p) const;

  /// Samples folded in since the start.
  [[nodiscard]] std::uint64_t samples() const { return samples_; }

  /// Every process peak since the start, processes that have exited included: key (GPU key,
  /// pid) -> bytes. The GPU key is the UUID, or "#<index>".
  [[nodiscard]] const std::map<std::pair<std::string, std::int64_t>, bytes>& all_process_peaks()
      const {
    return total_process_;
  }

 private:
  using process_key = std::pair<std::string, std::int64_t>;
  std::map<std::string, bytes> window_gpu_, total_gpu_;
  std::map<process_key, bytes> window_process_, total_process_;
  std::uint64_t samples_ = 0;
};

/// The key peak_tracker uses for a GPU: its UUID, or "#<index>".
std::string gpu_key(const observe::gpu_observation& g);

}  // namespace vramscope::watch
