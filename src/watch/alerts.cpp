#include <vramscope/watch/alerts.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace vramscope::watch {

namespace {

constexpr std::array kinds{alert_kind::shared_gpu, alert_kind::imbalanced_gpu,
                           alert_kind::near_limit, alert_kind::preallocated_pool};

// nvidia-smi's CSV gives no type; graphics-only clients (a desktop) are not training ranks.
bool is_compute(const process_reading& p) {
  return p.process.type.empty() || p.process.type.find_first_of("CM") != std::string::npos;
}

std::string who(const process_reading& p) {
  if (p.details.rank) return fmt::format("pid {} (rank {})", p.process.pid, *p.details.rank);
  return fmt::format("pid {}", p.process.pid);
}

std::vector<const process_reading*> compute_on(const sample& s, int gpu) {
  std::vector<const process_reading*> out;
  for (const auto& p : s.processes)
    if (p.process.gpu_index == gpu && is_compute(p)) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) {
    return a->process.used.value_or(0) > b->process.used.value_or(0);
  });
  return out;
}

std::vector<std::int64_t> pids_of(const std::vector<const process_reading*>& ps) {
  std::vector<std::int64_t> out;
  for (auto* p : ps) out.push_back(p->process.pid);
  return out;
}

std::string list_of(const std::vector<const process_reading*>& ps) {
  std::string out;
  for (auto* p : ps) out += (out.empty() ? "" : ", ") + who(*p);
  return out;
}

double percent(bytes part, bytes whole) {
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void shared_gpu(const sample& s, const gpu_reading& g, std::vector<alert>& out) {
  const int index = *g.gpu.index;
  const auto procs = compute_on(s, index);
  if (procs.size() < 2) return;
  std::vector<const process_reading*> strays;  // also on another GPU
  for (auto* p : procs)
    for (const auto& q : s.processes)
      if (q.process.pid == p->process.pid && q.process.gpu_index != index) {
        strays.push_back(p);
        break;
      }
  std::string message =
      fmt::format("GPU {} holds {} processes: {}.", index, procs.size(), list_of(procs));
  if (!strays.empty())
    message += fmt::format(
        " {} also use{} another GPU: ranks touched GPU {} before setting their own device, or "
        "loaded a checkpoint without map_location; call torch.cuda.set_device(local_rank) first "
        "and load with map_location=\"cpu\".",
        list_of(strays), strays.size() == 1 ? "s" : "", index);
  else
    message += " They compete for its memory; check that each rank uses its own GPU.";
  out.push_back({alert_kind::shared_gpu, index, pids_of(procs), std::move(message)});
}

void imbalanced_gpu(const sample& s, const gpu_reading& g, std::vector<alert>& out,
                    const alert_options& o) {
  const int index = *g.gpu.index;
  if (!g.gpu.used || compute_on(s, index).empty()) return;
  std::vector<bytes> peers;
  for (const auto& other : s.gpus)
    if (&other != &g && !other.lost && other.gpu.used && !compute_on(s, *other.gpu.index).empty())
      peers.push_back(*other.gpu.used);
  if (peers.empty()) return;
  std::sort(peers.begin(), peers.end());
  const bytes median = peers[peers.size() / 2];
  const bytes used = *g.gpu.used;
  if (static_cast<double>(used) < o.imbalance_ratio * static_cast<double>(median) ||
      used < median + o.imbalance_min_delta)
    return;
  auto procs = compute_on(s, index);
  out.push_back(
      {alert_kind::imbalanced_gpu, index, pids_of(procs),
       fmt::format("GPU {} uses {}, {} more than the median of the other busy GPUs "
                   "({}); look for work only one rank does (loading, evaluation, "
                   "logging) or tensors placed on this GPU by other ranks.",
                   index, format_bytes(used), format_bytes(used - median), format_bytes(median))});
}

void near_limit(const sample& s, const gpu_reading& g, std::vector<alert>& out,
                const alert_options& o) {
  const int index = *g.gpu.index;
  const auto used = g.peak_used ? std::max(*g.peak_used, g.gpu.used.value_or(0)) : g.gpu.used;
  if (!used || !g.gpu.total || *g.gpu.total == 0) return;
  if (static_cast<double>(*used) < o.near_limit_fraction * static_cast<double>(*g.gpu.total))
    return;
  const auto procs = compute_on(s, index);
  std::string message =
      fmt::format("GPU {} reached {:.0f}% of its memory ({} of {})", index,
                  percent(*used, *g.gpu.total), format_bytes(*used), format_bytes(*g.gpu.total));
  if (!procs.empty() && procs.front()->process.used)
    message += fmt::format("; the largest holder is {} with {}", who(*procs.front()),
                           format_bytes(*procs.front()->process.used));
  message += ": the next allocation spike may run out of memory.";
  out.push_back({alert_kind::near_limit, index, pids_of(procs), std::move(message)});
}

void preallocated_pool(const sample& s, const gpu_reading& g, std::vector<alert>& out,
                       const alert_options& o) {
  const int index = *g.gpu.index;
  if (!g.gpu.total || *g.gpu.total == 0) return;
  for (auto* p : compute_on(s, index)) {
    if (p->details.framework != "jax" || !p->process.used) continue;
    const bytes used = *p->process.used;
    if (static_cast<double>(used) < o.pool_fraction * static_cast<double>(*g.gpu.total)) continue;
    const std::string fraction =
        p->details.xla_mem_fraction
            ? fmt::format("XLA_PYTHON_CLIENT_MEM_FRACTION={}", *p->details.xla_mem_fraction)
            : std::string("75% by default");
    out.push_back(
        {alert_kind::preallocated_pool,
         index,
         {p->process.pid},
         fmt::format("{} (JAX) holds {}, {:.0f}% of GPU {}: XLA preallocates a fixed "
                     "share of every GPU it can see ({}), so this is the pool, not "
                     "what the model needs; set XLA_PYTHON_CLIENT_PREALLOCATE=false "
                     "or a smaller fraction, and CUDA_VISIBLE_DEVICES to the GPUs the "
                     "job uses.",
                     who(*p), format_bytes(used), percent(used, *g.gpu.total), index, fraction)});
  }
}

}  // namespace

std::string_view alert_id(alert_kind kind) {
  switch (kind) {
    case alert_kind::shared_gpu:
      return "shared_gpu";
    case alert_kind::imbalanced_gpu:
      return "imbalanced_gpu";
    case alert_kind::near_limit:
      return "near_limit";
    case alert_kind::preallocated_pool:
      return "preallocated_pool";
  }
  return "unknown";
}

int urgency(alert_kind kind) {
  switch (kind) {
    case alert_kind::near_limit:
      return 0;
    case alert_kind::shared_gpu:
      return 1;
    case alert_kind::imbalanced_gpu:
      return 2;
    case alert_kind::preallocated_pool:
      return 3;
  }
  return 4;
}

std::span<const alert_kind> all_alert_kinds() { return kinds; }

std::vector<alert> evaluate_alerts(const sample& s, const alert_options& options) {
  std::vector<alert> out;
  for (const auto& g : s.gpus) {
    if (g.lost || !g.gpu.index) continue;
    shared_gpu(s, g, out);
    imbalanced_gpu(s, g, out, options);
    near_limit(s, g, out, options);
    preallocated_pool(s, g, out, options);
  }
  return out;
}

}  // namespace vramscope::watch
