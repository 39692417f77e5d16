// JAX001: one JAX process preallocates fraction x total memory on every GPU it can see.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

// A GPU held at one of XLA's default fractions (0.75 since jaxlib 0.4.14, 0.9 before), within
// the CUDA context's size.
std::optional<double> preallocated_fraction(const observe::gpu_observation& g) {
  if (!g.used || !g.total || *g.total == 0) return std::nullopt;
  const double share = static_cast<double>(*g.used) / static_cast<double>(*g.total);
  for (double f : {0.75, 0.9})
    if (share >= f && share <= f + 0.02) return f;
  return std::nullopt;
}

void observed_evidence(const doctor_input& in, finding& f) {
  if (!in.observed) return;
  for (const auto& g : in.observed->gpus)
    if (auto fraction = preallocated_fraction(g))
      f.evidence.push_back(fmt::format("GPU {}: {} of {} used ({:.0f} %, XLA's {:.2f} pool plus a context)",
                                       g.index.value_or(-1), format_bytes(*g.used), format_bytes(*g.total),
                                       100.0 * static_cast<double>(*g.used) / static_cast<double>(*g.total),
                                       *fraction));
}

}  // namespace

std::vector<finding> jax_preallocation(const doctor_input& in) {
  const bool jax_job = in.job && (in.job->framework.name == "jax" || in.job->parallel.kind == job::strategy::jax);
  finding f{"JAX001", {}, severity::warning, {}, {}, {}, {}, {}};
  observed_evidence(in, f);
  // With a job, only a JAX job whose pool is preallocated; without one, only GPUs held at XLA's
  // fractions.
  if (in.job ? !jax_job : f.evidence.empty()) return {};
  if (in.job) {
    const auto preallocate = in.job->env.find("XLA_PYTHON_CLIENT_PREALLOCATE");
    if (preallocate != in.job->env.end() && preallocate->second == "false") return {};
  }
  f.cause = "the JAX process builds a BFC pool of XLA_PYTHON_CLIENT_MEM_FRACTION x total memory "
            "(0.75 by default, 0.9 before jaxlib 0.4.14) on every GPU in CUDA_VISIBLE_DEVICES at its "
            "first operation; nvidia-smi shows the pool, not what the program uses. fsdp_devices "
            "only sizes the mesh's FSDP axis, which spans every visible GPU";
  std::vector<std::string> fixes;
  if (in.prediction && in.prediction->jax_recommended_fraction) {
    const auto& p = *in.prediction;
    f.evidence.push_back(fmt::format("plan: working set {} per GPU inside a {:.2f} pool",
                                     format_bytes(p.ranks.front().peak.allocated), *p.jax_fraction));
    // The fraction is advice only when the pool is larger than the working set plus 10 % (the
    // two-decimal rounding of the recommendation aside).
    if (p.jax_fraction && *p.jax_fraction > *p.jax_recommended_fraction + 0.005) {
      const std::string fraction =
          fmt::format("env.XLA_PYTHON_CLIENT_MEM_FRACTION={:.2f}", *p.jax_recommended_fraction);
      fixes.push_back(fmt::format("XLA_PYTHON_CLIENT_MEM_FRACTION={:.2f} (the working set plus 10 %)",
                                  *p.jax_recommended_fraction));
      if (auto after = replan(in, {fraction})) {
        f.saving = after->saving;
        f.saving_basis = replan_basis({fraction});
      }
    }
    // GPUs the process holds a pool on: those with memory planned on them (CUDA_VISIBLE_DEVICES
    // leaves the others empty).
    const auto holding = std::count_if(p.gpus.begin(), p.gpus.end(),
                                       [](const predict::gpu_prediction& g) { return g.device > 0; });
    if (holding > 1) fixes.push_back("CUDA_VISIBLE_DEVICES=0 to use one GPU and leave the others free");
    if (fixes.empty()) return {};  // the pool already fits the working set, on the GPUs it needs
  } else {
    fixes.push_back("CUDA_VISIBLE_DEVICES=0 to use one GPU; XLA_PYTHON_CLIENT_MEM_FRACTION sized to the "
                    "real need, or XLA_PYTHON_CLIENT_PREALLOCATE=false to grow on demand");
  }
  f.fix = fmt::format("{}", fmt::join(fixes, "; or "));
  return {f};
}

}  // namespace vramscope::doctor::rules
