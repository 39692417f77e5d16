#pragma once
// Live alerts of `vramscope watch`: the memory situations users hit that are visible from
// outside the training processes, one rule each. Rules are pure functions of one sample (with
// the window peaks the sampler filled in); docs/watch.md explains each alert and its fix.
//
//   shared_gpu         several compute processes on one GPU; when some of them also hold
//                      memory on other GPUs, ranks created a CUDA context on a GPU that is not
//                      theirs (device set too late, checkpoint loaded without map_location)
//   imbalanced_gpu     one busy GPU holds far more than the median of the other busy GPUs
//   near_limit         a GPU's peak reached the near-limit fraction of its memory
//   preallocated_pool  a JAX/XLA process holds a large fixed share of a GPU: that is the
//                      preallocated pool, not what the model needs

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/units.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

enum class alert_kind { shared_gpu, imbalanced_gpu, near_limit, preallocated_pool };

/// Thresholds, each with its trade-off.
struct alert_options {
  /// imbalanced_gpu fires when a GPU's used memory exceeds the median of the other busy GPUs
  /// (those with at least one compute process) by this factor... Lower catches milder skew
  /// and also normal rank-0 extras (logging, evaluation).
  double imbalance_ratio = 1.3;
  /// ...and by at least this many bytes, so near-empty GPUs do not fire on small differences.
  bytes imbalance_min_delta = 2_GiB;
  /// near_limit fires when a GPU's peak used memory reaches this fraction of its total. Higher
  /// fires later, closer to an out-of-memory error.
  double near_limit_fraction = 0.95;
  /// preallocated_pool fires when a JAX process holds at least this fraction of a GPU (JAX
  /// preallocates 75 % by default, 90 % before jaxlib 0.4.14).
  double pool_fraction = 0.70;
};

struct alert {
  alert_kind kind = alert_kind::shared_gpu;
  int gpu = 0;                     // the GPU's index
  std::vector<std::int64_t> pids;  // the processes involved, largest first where it matters
  std::string message;             // one sentence for people: evidence, cause, fix
};

/// "shared_gpu", "imbalanced_gpu", "near_limit", "preallocated_pool".
std::string_view alert_id(alert_kind kind);

/// How urgent a kind is, 0 the most: near_limit (an out-of-memory error may come at the next
/// spike), shared_gpu (memory lost on a GPU that is not the rank's, often the cause of the
/// next), imbalanced_gpu (one rank will run out first), preallocated_pool (reserved, not used).
int urgency(alert_kind kind);

/// Every kind, in the order above (for metrics that list each alert with 0 or 1).
std::span<const alert_kind> all_alert_kinds();

/// Evaluates every rule on `s`; alerts come ordered by GPU, then by kind. Lost GPUs and
/// figures the source did not report never fire a rule.
std::vector<alert> evaluate_alerts(const sample& s, const alert_options& options = {});

}  // namespace vramscope::watch
