// PRED001: what the user observed differs from the plan by more than the tolerance: say so,
// level by level, rather than explain it away.
#include <fmt/format.h>

#include <cmath>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

constexpr double tolerance = 0.10;  // relative; beyond it the plan is not trusted for this job

void compare(std::vector<std::string>& out, const char* level, bytes observed, bytes predicted,
             const std::string& where) {
  if (observed == 0) return;
  const double error = (static_cast<double>(predicted) - static_cast<double>(observed)) / static_cast<double>(observed);
  if (std::fabs(error) <= tolerance) return;
  out.push_back(fmt::format("{} {}: observed {}, planned {} ({:+.0f} %)", where, level, format_bytes(observed),
                            format_bytes(predicted), 100 * error));
}

}  // namespace

std::vector<finding> prediction_disagrees(const doctor_input& in) {
  if (!in.prediction || !in.observed) return {};
  const auto& p = *in.prediction;
  std::vector<std::string> evidence;
  for (const auto& s : in.observed->stats) {
    const int rank = s.rank.value_or(0);
    if (rank < 0 || rank >= static_cast<int>(p.ranks.size())) continue;
    const auto& r = p.ranks[static_cast<std::size_t>(rank)];
    const std::string where = fmt::format("rank {}", rank);
    if (s.allocated.peak) compare(evidence, "allocated peak", *s.allocated.peak, r.peak.allocated, where);
    if (s.reserved.peak) compare(evidence, "reserved peak", *s.reserved.peak, r.peak.reserved, where);
  }
  for (const auto& g : in.observed->gpus)
    if (g.index && g.used && *g.index < static_cast<int>(p.gpus.size()))
      compare(evidence, "device use", *g.used, p.gpus[static_cast<std::size_t>(*g.index)].device,
              fmt::format("GPU {}", *g.index));
  if (evidence.empty()) return {};
  finding f{"PRED001", {}, severity::warning, evidence, {}, {}, {}, {}, {}, 0, {}, {}};
  f.cause = fmt::format("the job as specified and what ran differ by more than {:.0f} %: either the job spec "
                        "does not describe the run (batch, sequence length, precision, options) or the model "
                        "of this setup is off",
                        100 * tolerance);
  f.fix = "check the job spec against the run; if it matches, report the job and these figures so the "
          "model can be corrected";
  return {f};
}

}  // namespace vramscope::doctor::rules
