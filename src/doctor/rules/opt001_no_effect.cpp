// OPT001: memory options whose change saves nothing for this job (re-planned one by one), and
// the ones that do, so claimed savings can be checked before a run.
#include <fmt/format.h>

#include <cstdlib>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

// Settings people reach for, as the alternative to what the job has now.
std::vector<std::string> alternatives(const job::job_spec& j) {
  std::vector<std::string> out;
  const bool fsdp1 = j.parallel.kind == job::strategy::fsdp1;
  if (fsdp1) {
    out.push_back(fmt::format("parallel.limit_all_gathers={}", !j.parallel.limit_all_gathers));
    out.push_back(fmt::format("parallel.use_orig_params={}", !j.parallel.use_orig_params));
    out.push_back(fmt::format("parallel.forward_prefetch={}", !j.parallel.forward_prefetch));
  }
  if (fsdp1 || j.parallel.kind == job::strategy::fsdp2) {
    out.push_back(fmt::format("parallel.cpu_offload={}", !j.parallel.cpu_offload));
    // An explicit low-precision MixedPrecision: only changes anything when params are not
    // already stored in low precision (bf16-mixed rather than bf16-true), which is what this
    // answers for a bf16-true job. Its buffer_dtype is not tried: the planner keeps no separate
    // buffers (RoPE tables and the like are a few MiB), so "no change" would say nothing.
    out.push_back("precision.reduce=bf16");
  }
  return out;
}

}  // namespace

std::vector<finding> options_without_effect(const doctor_input& in) {
  if (!in.job || !in.prediction) return {};
  // A job that does not fit is compared on what its whole step needs (replan does): its plan
  // and a re-plan that also runs out of memory both stop at the error, and would read as "no
  // change". Without that figure the rule says nothing.
  const bool cut_short = !in.prediction->fits;
  std::vector<std::string> none, some;
  for (const auto& setting : alternatives(*in.job)) {
    const auto after = replan(in, {setting});
    if (!after || (cut_short && !after->on_need)) continue;
    const std::int64_t saving = after->saving;
    if (std::llabs(saving) < static_cast<long long>(1_MiB))
      none.push_back(setting);
    else
      some.push_back(fmt::format("{}: {}", setting, format_delta(-saving)));
  }
  if (none.empty()) return {};
  finding f{"OPT001", {}, severity::info, {}, {}, {}, {}, {}, {}, 0, {}, {}};
  for (const auto& s : none) f.evidence.push_back(fmt::format("--set {}: no change on the busiest GPU", s));
  for (const auto& s : some) f.evidence.push_back(fmt::format("--set {} on the busiest GPU", s));
  f.cause = "these settings do not change what is resident at the peak for this job (for example a "
            "bf16 MixedPrecision when the parameters are already bf16, or a wrap policy that yields "
            "the same units); claimed savings from them will not appear";
  f.fix = "keep the settings that show a saving above; drop the others or keep them for speed";
  f.saving_basis = cut_short ? "re-planned each setting on its own, on a GPU without the limit "
                               "(the job does not fit its own)"
                             : "re-planned each setting on its own";
  return {f};
}

}  // namespace vramscope::doctor::rules
