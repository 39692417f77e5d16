// MEM001: the job does not fit; try the usual changes one at a time and list those that make it
// fit, the cheapest (least intrusive) first.
#include <fmt/format.h>

#include <algorithm>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

struct candidate {
  const char* setting;
  const char* why;  // the cost of the change, in words
};

// Ordered from least to most intrusive for the user.
constexpr candidate candidates[] = {
    {"env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "no cost"},
    {"training.attention=flash", "SDPA's flash kernel keeps no b x heads x s^2 scores, and is faster"},
    {"training.loss=liger_fused", "needs Liger-Kernel"},
    {"training.activation_checkpointing=selective", "recomputes every other block"},
    {"training.activation_checkpointing=full", "recomputes every block (~30 % slower)"},
    {"optimizer.name=adamw_8bit", "8-bit optimizer state"},
    {"parallel.strategy=fsdp2", "shards parameters, gradients and optimizer state"},
    {"parallel.cpu_offload=true", "state in host memory, much slower steps"},
};

}  // namespace

std::vector<finding> does_not_fit(const doctor_input& in) {
  if (!in.prediction || in.prediction->fits) return {};
  const auto& p = *in.prediction;
  finding f{"MEM001", {}, severity::error, {}, {}, {}, {}, {}};
  for (const auto& r : p.ranks)
    if (r.oom) {
      f.evidence.push_back(fmt::format("rank {} runs out of memory in {}: {}", r.rank, r.oom_phase,
                                       r.oom->message.substr(0, r.oom->message.find(". Of"))));
      break;
    }
  const auto& busiest = predict::busiest_rank(p);
  f.evidence.push_back(fmt::format("busiest GPU {}: {} planned of {}", busiest.gpu,
                                   format_bytes(busiest.peak.device),
                                   format_bytes(job::usable_capacity(p.job.hardware))));
  // The basis of every saving below (replan), as fit and compare take a row's need.
  if (const auto need = unbounded_need(in))
    f.evidence.push_back(fmt::format("the whole step needs about {} on the busiest GPU (planned "
                                     "again on a GPU without that limit)",
                                     format_bytes(std::max(*need, busiest.peak.device))));
  f.cause = fmt::format("the peak in {} needs more than the GPU has", busiest.peak_phase);
  std::vector<std::string> fits;
  for (const auto& c : candidates) {
    auto after = replan(in, {c.setting});
    if (!after || !after->after.fits) continue;
    const std::int64_t saving = after->saving;
    fits.push_back(fmt::format("--set {} ({}; {} less on the busiest GPU)", c.setting, c.why,
                               format_bytes(static_cast<bytes>(std::max<std::int64_t>(0, saving)))));
    if (!f.saving) {
      f.saving = saving;
      f.saving_basis = replan_basis({c.setting}) + (after->on_need
                                                          ? ", against the whole step's need"
                                                          : ", against the plan cut short");
    }
  }
  f.fix = fits.empty() ? "no single change makes it fit: add GPUs, shorten seq_len or lower micro_batch"
                       : "any of these makes it fit, cheapest first:\n  " + fmt::format("{}", fmt::join(fits, "\n  "));
  return {f};
}

}  // namespace vramscope::doctor::rules
