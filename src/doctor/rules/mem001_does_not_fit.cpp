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

// Strategies that shard the model's state over the data-parallel ranks, where more GPUs leave
// each one less to hold.
bool shards_state(const job::parallel_spec& p) {
  using job::strategy;
  switch (p.kind) {
    case strategy::fsdp2:
    case strategy::zero1:
    case strategy::zero2:
    case strategy::zero3: return true;
    case strategy::fsdp1: return p.fsdp_sharding != job::sharding::no_shard;
    default: return false;
  }
}

// A job that fits inside the safety margin (tight): a warning with the same list of changes,
// each of which leaves the margin free.
finding tight_finding(const predict::prediction& p) {
  finding f{"MEM001", {}, severity::warning, {}, {}, {}, {}, {}};
  const auto v = predict::verdict_of(p);
  f.evidence.push_back(fmt::format("busiest GPU {}: {} planned of {}, {} headroom, less than the "
                                   "{} safety margin",
                                   v.busiest_gpu.value_or(0), format_bytes(v.busiest_device),
                                   format_bytes(v.busiest_capacity),
                                   format_bytes(v.busiest_capacity - v.busiest_device),
                                   format_bytes(v.margin)));
  f.cause = fmt::format("the job fits, but tightly: {}", predict::margin_reason);
  return f;
}

// A job that runs out of memory: where, and what its whole step needs.
finding out_of_memory_finding(const doctor_input& in, const predict::prediction& p) {
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
  return f;
}

}  // namespace

std::vector<finding> does_not_fit(const doctor_input& in) {
  if (!in.prediction) return {};
  const auto state = predict::state_of(*in.prediction);
  if (state == predict::fit_state::fits) return {};
  const auto& p = *in.prediction;
  finding f = state == predict::fit_state::tight ? tight_finding(p) : out_of_memory_finding(in, p);
  std::vector<std::string> fits;
  // Lists `setting` when it makes the job fit; the first listed gives the finding's saving.
  const auto offer = [&](const std::string& setting, const std::string& why) {
    auto after = replan(in, {setting});
    // Fits outside the safety margin: a change that leaves the job tight is no fix.
    if (!after || predict::state_of(after->after) != predict::fit_state::fits) return false;
    const std::int64_t saving = after->saving;
    fits.push_back(fmt::format("--set {} ({}; {} less on the busiest GPU)", setting, why,
                               format_bytes(static_cast<bytes>(std::max<std::int64_t>(0, saving)))));
    if (!f.saving) {
      f.saving = saving;
      f.saving_basis = replan_basis({setting}) +
                       (after->on_need                             ? ", against the whole step's need"
                        : state == predict::fit_state::does_not_fit ? ", against the plan cut short"
                                                                    : "");
    }
    return true;
  };
  for (const auto& c : candidates) offer(c.setting, c.why);
  // More nodes, the costliest change, for a strategy that shards the state over them: the fewest
  // (up to eight times as many) that make it fit.
  if (in.job && shards_state(in.job->parallel))
    for (const int factor : {2, 4, 8})
      if (offer(fmt::format("hardware.nodes={}", in.job->hardware.nodes * factor),
                fmt::format("{} times the GPUs, the state sharded over them", factor)))
        break;
  f.fix = fits.empty() ? "no single change makes it fit with the safety margin: add GPUs, shorten "
                         "seq_len or lower micro_batch"
                       : "any of these makes it fit with the safety margin, cheapest first:\n  " +
                             fmt::format("{}", fmt::join(fits, "\n  "));
  return {f};
}

}  // namespace vramscope::doctor::rules
