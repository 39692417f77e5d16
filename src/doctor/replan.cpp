#include "doctor/replan.hpp"

#include <algorithm>

#include <vramscope/job/overrides.hpp>
#include <vramscope/job/resolve.hpp>

namespace vramscope::doctor {

namespace {

// The busiest GPU's device bytes of `job` (resolved) planned on a GPU without limit.
std::optional<bytes> need_of(const model::model_spec& model, job::job_spec job) {
  const auto p = predict::plan(model, job::with_unlimited_memory(std::move(job)));
  if (!p || !p->fits) return std::nullopt;
  return predict::busiest_rank(*p).peak.device;
}

}  // namespace

std::optional<replanned> replan(const doctor_input& in, const std::vector<std::string>& overrides) {
  if (!in.job || !in.model || !in.prediction) return std::nullopt;
  job::job_spec fixed = *in.job;
  for (const auto& o : overrides)
    if (!job::set_field(fixed, o)) return std::nullopt;
  // A change of strategy drops the old strategy's own options (a ZeRO-2 config's
  // allgather_bucket_size), as a user switching does; kept, they would refuse the re-plan.
  if (std::any_of(overrides.begin(), overrides.end(),
                  [](const std::string& o) { return o.starts_with("parallel.strategy="); }))
    job::drop_options_of_other_strategies(fixed);
  if (!job::resolve_job(fixed)) return std::nullopt;
  auto after = predict::plan(*in.model, fixed);
  if (!after) return std::nullopt;
  // A job that does not fit is measured on what its whole step needs, before and after: its
  // plan stops at the out-of-memory error (see unbounded_need).
  const auto before_device = predict::busiest_rank(*in.prediction).peak.device;
  const auto after_device = predict::busiest_rank(*after).peak.device;
  if (!in.prediction->fits) {  // (what_if::fill_need takes a row's need so too)
    const auto before_need = unbounded_need(in);
    const auto after_need = need_of(*in.model, fixed);
    if (before_need && after_need)
      return replanned{std::move(*after),
                       static_cast<std::int64_t>(std::max(*before_need, before_device)) -
                           static_cast<std::int64_t>(std::max(*after_need, after_device)),
                       true};
  }
  return replanned{std::move(*after), static_cast<std::int64_t>(before_device) -
                                          static_cast<std::int64_t>(after_device), false};
}

std::optional<bytes> unbounded_need(const doctor_input& in) {
  if (in.need) return in.need;
  if (!in.job || !in.model) return std::nullopt;
  return need_of(*in.model, *in.job);
}

std::string where_fixes_are_priced(const doctor_input& in) {
  if (!in.job || !in.prediction) return "`vramscope explain JOB.yaml` prices each";
  if (predict::state_of(*in.prediction) == predict::fit_state::fits)
    return "the plan of this job fits, so it prices none: check the job spec against the run";
  if (!predict::failing_phase_after_steps(*in.prediction).empty())
    return "the finding of the phase the plan fails in prices its fix";
  return "MEM001 prices each on this job";
}

std::string replan_basis(const std::vector<std::string>& overrides) {
  std::string out = "re-planned with ";
  for (std::size_t i = 0; i < overrides.size(); ++i) out += (i ? ", " : "") + overrides[i];
  return out;
}

std::string size_or_unknown(const std::optional<bytes>& b) { return b ? format_bytes(*b) : "?"; }

std::optional<bytes> observed_used(const observe::observation& o, int gpu) {
  for (const auto& g : o.gpus)
    if (g.index && *g.index == gpu && g.host.empty()) return g.used;
  return std::nullopt;
}

}  // namespace vramscope::doctor
