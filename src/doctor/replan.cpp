#include "doctor/replan.hpp"

#include <vramscope/job/overrides.hpp>
#include <vramscope/job/resolve.hpp>

namespace vramscope::doctor {

std::optional<replanned> replan(const doctor_input& in, const std::vector<std::string>& overrides) {
  if (!in.job || !in.model || !in.prediction) return std::nullopt;
  job::job_spec fixed = *in.job;
  if (!job::apply_overrides(fixed, overrides)) return std::nullopt;
  if (!job::resolve_job(fixed)) return std::nullopt;
  auto after = predict::plan(*in.model, fixed);
  if (!after) return std::nullopt;
  // A job that does not fit is measured on what its whole step needs, before and after: its
  // plan stops at the out-of-memory error (see unbounded_need).
  if (!in.prediction->fits) {
    const auto before_need = unbounded_need(in);
    const auto after_need = unbounded_need(in, overrides);
    if (before_need && after_need)
      return replanned{std::move(*after), static_cast<std::int64_t>(*before_need) -
                                              static_cast<std::int64_t>(*after_need), true};
  }
  const auto before_device = predict::busiest_rank(*in.prediction).peak.device;
  const auto after_device = predict::busiest_rank(*after).peak.device;
  return replanned{std::move(*after), static_cast<std::int64_t>(before_device) -
                                          static_cast<std::int64_t>(after_device), false};
}

std::optional<bytes> unbounded_need(const doctor_input& in,
                                    const std::vector<std::string>& overrides) {
  if (!in.job || !in.model || in.job->framework.name == "jax") return std::nullopt;
  job::job_spec unbounded = *in.job;
  if (!overrides.empty()) {
    if (!job::apply_overrides(unbounded, overrides) || !job::resolve_job(unbounded))
      return std::nullopt;
    if (unbounded.framework.name == "jax") return std::nullopt;
  }
  unbounded.hardware.capacity = bytes{1} << 46;
  const auto p = predict::plan(*in.model, unbounded);
  if (!p || !p->fits) return std::nullopt;
  return predict::busiest_rank(*p).peak.device;
}

std::string replan_basis(const std::vector<std::string>& overrides) {
  std::string out = "re-planned with ";
  for (std::size_t i = 0; i < overrides.size(); ++i) out += (i ? ", " : "") + overrides[i];
  return out;
}

std::optional<bytes> observed_used(const observe::observation& o, int gpu) {
  for (const auto& g : o.gpus)
    if (g.index && *g.index == gpu && g.host.empty()) return g.used;
  return std::nullopt;
}

}  // namespace vramscope::doctor
