#include <vramscope/watch/alerts.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
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

// What every check needs of a sample, gathered once so that the checks stay linear in GPUs and
// processes (a 4,000-GPU replay took 49 s when each GPU looked at every other GPU's processes).
struct sample_index {
  // Compute processes by GPU index, largest first.
  std::map<int, std::vector<const process_reading*>> compute;
  // Pids listed on more than one GPU (or on one and on none).
  std::set<std::int64_t> on_several_gpus;
  // Used memory of the busy GPUs (not lost, with an index, a reading and a compute process),
  // sorted.
  std::vector<bytes> busy_used;

  explicit sample_index(const sample& s) {
    std::map<std::int64_t, std::optional<int>> first_gpu;
    for (const auto& p : s.processes) {
      const auto [it, fresh] = first_gpu.emplace(p.process.pid, p.process.gpu_index);
      if (!fresh && it->second != p.process.gpu_index) on_several_gpus.insert(p.process.pid);
      if (p.process.gpu_index && is_compute(p)) compute[*p.process.gpu_index].push_back(&p);
    }
    for (auto& [gpu, procs] : compute)
      std::stable_sort(procs.begin(), procs.end(), [](auto* a, auto* b) {
        return a->process.used.value_or(0) > b->process.used.value_or(0);
      });
    for (const auto& g : s.gpus)
      if (!g.lost && g.gpu.index && g.gpu.used && !compute_on(*g.gpu.index).empty())
        busy_used.push_back(*g.gpu.used);
    std::sort(busy_used.begin(), busy_used.end());
  }

  const std::vector<const process_reading*>& compute_on(int gpu) const {
    static const std::vector<const process_reading*> none;
    const auto it = compute.find(gpu);
    return it == compute.end() ? none : it->second;
  }
};

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

void shared_gpu(const sample_index& s, const gpu_reading& g, std::vector<alert>& out) {
  const int index = *g.gpu.index;
  const auto& procs = s.compute_on(index);
  if (procs.size() < 2) return;
  std::vector<const process_reading*> strays;  // also on another GPU
  for (auto* p : procs)
    if (s.on_several_gpus.count(p->process.pid) != 0) strays.push_back(p);
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

void imbalanced_gpu(const sample_index& s, const gpu_reading& g, std::vector<alert>& out,
                    const alert_options& o) {
  const int index = *g.gpu.index;
  if (!g.gpu.used || s.compute_on(index).empty()) return;
  // The median of the other busy GPUs: the sorted list without one entry of this GPU's value.
  const auto& all = s.busy_used;
  const bytes used = *g.gpu.used;
  if (all.size() < 2) return;
  const auto self = static_cast<std::size_t>(
      std::lower_bound(all.begin(), all.end(), used) - all.begin());
  const std::size_t middle = (all.size() - 1) / 2;
  const bytes median = middle < self ? all[middle] : all[middle + 1];
  if (static_cast<double>(used) < o.imbalance_ratio * static_cast<double>(median) ||
      used < median + o.imbalance_min_delta)
    return;
  const auto& procs = s.compute_on(index);
  out.push_back(
      {alert_kind::imbalanced_gpu, index, pids_of(procs),
       fmt::format("GPU {} uses {}, {} more than the median of the other busy GPUs "
                   "({}); look for work only one rank does (loading, evaluation, "
                   "logging) or tensors placed on this GPU by other ranks.",
                   index, format_bytes(used), format_bytes(used - median), format_bytes(median))});
}

void near_limit(const sample_index& s, const gpu_reading& g, std::vector<alert>& out,
                const alert_options& o) {
  const int index = *g.gpu.index;
  const auto used = g.peak_used ? std::max(*g.peak_used, g.gpu.used.value_or(0)) : g.gpu.used;
  if (!used || !g.gpu.total || *g.gpu.total == 0) return;
  if (static_cast<double>(*used) < o.near_limit_fraction * static_cast<double>(*g.gpu.total))
    return;
  const auto& procs = s.compute_on(index);
  std::string message =
      fmt::format("GPU {} reached {:.0f}% of its memory ({} of {})", index,
                  percent(*used, *g.gpu.total), format_bytes(*used), format_bytes(*g.gpu.total));
  if (!procs.empty() && procs.front()->process.used)
    message += fmt::format("; the largest holder is {} with {}", who(*procs.front()),
                           format_bytes(*procs.front()->process.used));
  message += ": the next allocation spike may run out of memory.";
  out.push_back({alert_kind::near_limit, index, pids_of(procs), std::move(message)});
}

void preallocated_pool(const sample_index& s, const gpu_reading& g, std::vector<alert>& out,
                       const alert_options& o) {
  const int index = *g.gpu.index;
  if (!g.gpu.total || *g.gpu.total == 0) return;
  for (auto* p : s.compute_on(index)) {
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
  const sample_index index(s);
  for (const auto& g : s.gpus) {
    if (g.lost || !g.gpu.index) continue;
    shared_gpu(index, g, out);
    imbalanced_gpu(index, g, out, options);
    near_limit(index, g, out, options);
    preallocated_pool(index, g, out, options);
  }
  return out;
}

}  // namespace vramscope::watch
