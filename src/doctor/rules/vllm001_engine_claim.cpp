// VLLM001: a vLLM engine sizes itself to gpu_memory_utilization x the GPU's total memory, for its
// weights, activations and a KV cache that fills the rest, whatever else uses that GPU
// (vllm/worker/worker.py determine_num_available_blocks; the v1 engine's gpu_worker.py checks the
// memory free at start against the same figure and refuses to start below it). Beside a trainer
// in the same job (TRL's GRPO with vllm_gpu_memory_utilization, default 0.9 until lowered to
// 0.3), a second engine or any other process, the others have only (1 - utilization) x total.
#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

// The start-up check failed: less was free than the engine claims, so other processes hold the
// difference.
std::optional<finding> refused_at_start(const observe::vllm_profile& v) {
  if (!v.free_at_start || !v.total || !v.utilization) return std::nullopt;
  const bytes claimed = v.claimed.value_or(static_cast<bytes>(*v.utilization * static_cast<double>(*v.total)));
  if (*v.free_at_start >= claimed) return std::nullopt;
  finding f{"VLLM001", {}, severity::error, {}, {}, {}, {}, {}, "other_process", lk::decisive, {}, {}};
  f.evidence.push_back(fmt::format("{} line {}: {} free of {} at start, the engine claims {:.2f} x total = {}",
                                   v.source, v.line, format_bytes(*v.free_at_start), format_bytes(*v.total),
                                   *v.utilization, format_bytes(claimed)));
  f.support.push_back(fmt::format("{} of the GPU was held before the engine started: by other processes",
                                  format_bytes(*v.total - *v.free_at_start)));
  f.cause = "other processes hold part of the GPU, and vLLM's gpu_memory_utilization asks for a share of the "
            "whole total that is no longer free";
  f.fix = fmt::format("stop what else holds the GPU (nvidia-smi lists it), or lower gpu_memory_utilization below "
                      "the free share, {:.2f}, less what the other processes still need",
                      static_cast<double>(*v.free_at_start) / static_cast<double>(*v.total));
  f.saving = static_cast<std::int64_t>(*v.total - *v.free_at_start);
  f.saving_basis = "the memory other processes held at the engine's start";
  return f;
}

// The profile alone: the engine's share and what it leaves to everything else on the GPU.
std::optional<finding> claims_share(const observe::vllm_profile& v, bool error_in_paste) {
  if (!v.total || !v.utilization) return std::nullopt;
  const bytes claimed = v.claimed.value_or(static_cast<bytes>(*v.utilization * static_cast<double>(*v.total)));
  const bytes left = *v.total > claimed ? *v.total - claimed : 0;
  finding f{"VLLM001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process", lk::possible, {}, {}};
  f.evidence.push_back(fmt::format("{} line {}: total {} x gpu_memory_utilization {:.2f} = {} claimed by the engine",
                                   v.source, v.line, format_bytes(*v.total), *v.utilization, format_bytes(claimed)));
  if (v.kv_cache)
    f.evidence.push_back(fmt::format("{}: KV cache {} of it (weights {}, activations {})", v.source,
                                     format_bytes(*v.kv_cache), size_or_unknown(v.weights),
                                     size_or_unknown(v.activation_peak)));
  f.support.push_back(fmt::format("the engine fills {} with its KV cache whatever it needs; everything else on this "
                                  "GPU (a trainer of the same job, another engine, another process) has {}",
                                  format_bytes(claimed), format_bytes(left)));
  if (error_in_paste) {
    f.likelihood += 2 * lk::step;
    f.level = severity::error;
    f.support.push_back("the paste fails after the engine took its share");
  } else {
    f.against.push_back("nothing in the paste fails after the profile: the share is a risk, not shown to be the "
                        "failure");
  }
  f.cause = "vLLM claims gpu_memory_utilization of the GPU's whole memory at start (its KV cache fills what the "
            "weights leave), so a trainer or another process sharing the GPU has only the rest";
  f.fix = fmt::format("lower gpu_memory_utilization (TRL: vllm_gpu_memory_utilization) from {:.2f} to the share "
                      "the engine needs, leaving the other users of the GPU room; or give the engine a GPU of its "
                      "own",
                      *v.utilization);
  return f;
}

}  // namespace

std::vector<finding> vllm_engine_claim(const doctor_input& in) {
  if (!in.observed) return {};
  for (const auto& v : in.observed->vllm)
    if (auto f = refused_at_start(v)) return {std::move(*f)};
  const bool oom = !in.observed->ooms.empty();
  for (const auto& v : in.observed->vllm)
    if (auto f = claims_share(v, v.error_after || oom)) return {std::move(*f)};
  return {};
}

}  // namespace vramscope::doctor::rules
