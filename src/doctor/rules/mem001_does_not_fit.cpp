// MEM001: the job does not fit; try the usual changes one at a time and list those that make it
// fit, the cheapest (least intrusive) first.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "doctor/likelihood.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

// A change a maintainer would suggest, with what it costs in words: the step-time estimates are
// stated, not measured (recomputing a block's forward is about a third of its step's FLOPs;
// offloaded state crosses PCIe every step).
struct candidate {
  std::vector<std::string> settings;
  std::string cost;
};

// The changes worth trying for this job, cheapest first, each only where it changes something.
std::vector<candidate> candidates_for(const job::job_spec& j) {
  using job::strategy;
  std::vector<candidate> out;
  out.push_back({{"env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}, "no cost"});
  if (j.training.attention == job::attention_impl::eager || j.training.attention == job::attention_impl::math)
    out.push_back({{"training.attention=flash"}, "no cost: SDPA's flash kernel keeps no b x heads x s^2 scores "
                                                 "and is faster"});
  // The largest smaller micro-batch, the global batch kept by accumulating: tried largest first.
  const auto samples = static_cast<long long>(j.training.gradient_accumulation) *
                       static_cast<long long>(j.training.micro_batch);
  for (auto mb = static_cast<long long>(j.training.micro_batch) / 2; mb >= 1; mb /= 2)
    out.push_back({{fmt::format("training.micro_batch={}", mb),
                    fmt::format("training.gradient_accumulation={}", samples / mb)},
                   fmt::format("the same global batch in {} accumulation steps: ~5-15 % slower per token "
                               "(smaller kernels)", samples / mb)});
  if (j.training.loss == job::loss_impl::hf)
    out.push_back({{"training.loss=liger_fused"}, "needs Liger-Kernel; about as fast"});
  if (j.training.activation_checkpointing == job::checkpointing::none ||
      j.training.activation_checkpointing == job::checkpointing::core_attention)
    out.push_back({{"training.activation_checkpointing=selective"}, "recomputes part of each block: ~10-20 % "
                                                                    "more compute"});
  if (j.training.activation_checkpointing != job::checkpointing::full)
    out.push_back({{"training.activation_checkpointing=full"}, "recomputes every block's forward: ~33 % "
                                                               "more compute"});
  else if (j.training.checkpoint_blocks > 0)
    out.push_back({{"training.checkpoint_blocks=0"},
                   "recomputes every block's forward, not only the "
                   "first of each stage: up to ~33 % more compute"});
  switch (j.parallel.kind) {
    case strategy::ddp:
    case strategy::single:
      if (j.world_size() > 1)
        out.push_back({{"parallel.strategy=fsdp2"}, "shards parameters, gradients and optimizer state: "
                                                    "~1.5x the communication of DDP"});
      break;
    case strategy::zero1:
    case strategy::zero2:
      out.push_back({{"parallel.strategy=zero3"}, "ZeRO-3 shards the parameters too: ~1.5x the "
                                                  "communication of ZeRO-2"});
      break;
    case strategy::fsdp1:
      if (j.parallel.fsdp_sharding != job::sharding::full_shard)
        out.push_back({{"parallel.fsdp_sharding=full_shard"}, "shards the parameters too: one more "
                                                              "all-gather per block in backward"});
      break;
    default: break;
  }
  if (j.optimizer.kind == job::optimizer_kind::adamw || j.optimizer.kind == job::optimizer_kind::adam)
    out.push_back({{"optimizer.name=adamw_8bit"}, "optimizer state in 8 bits (bitsandbytes): about as fast, "
                                                  "a small accuracy risk"});
  switch (j.parallel.kind) {
    case strategy::fsdp1:
    case strategy::fsdp2:
      if (!j.parallel.cpu_offload)
        out.push_back({{"parallel.cpu_offload=true"}, "parameters, gradients and optimizer state in host "
                                                      "memory: steps ~1.5-3x slower (PCIe)"});
      break;
    case strategy::zero1:
    case strategy::zero2:
    case strategy::zero3:
      if (!j.parallel.offload_optimizer)
        out.push_back({{"parallel.offload_optimizer=true"}, "optimizer state and step on the CPU: steps "
                                                            "~1.5-2x slower"});
      if (j.parallel.kind == strategy::zero3 && !j.parallel.offload_param)
        out.push_back({{"parallel.offload_optimizer=true", "parallel.offload_param=true"},
                       "parameters in host memory too: steps ~2-3x slower"});
      break;
    default: break;
  }
  return out;
}

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

// The plan's first out-of-memory error is in init, while the weights are placed.
bool fails_in_init(const predict::prediction& p) {
  const auto v = predict::verdict_of(p);
  return v.oom && v.oom->phase == "init";
}

// A job that fits inside the safety margin (tight): a warning with the same list of changes,
// each of which leaves the margin free.
finding tight_finding(const predict::prediction& p) {
  finding f{"MEM001", {}, severity::warning, {}, {}, {}, {}, {}, "does_not_fit", likelihood::possible, {}, {}};
  f.support.push_back("the plan of the job fits, but inside the safety margin");
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
  finding f{"MEM001", {}, severity::error, {}, {}, {}, {}, {}, "does_not_fit", likelihood::strong, {}, {}};
  f.support.push_back(
      fails_in_init(p)
          ? "the plan of the job runs out of memory in init, while the weights are placed, "
            "before any training step"
          : "the plan of the job runs out of memory in its training step");
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

// A loop's own prints of what stays allocated and each step's peak, without a job: in the steps
// that peak at least twice as high as what stays, what stays is level (no growth, so nothing is
// kept from step to step). The difference is the step's own working memory (activations kept for
// backward, temporaries), which is what a step that runs out needs cut: recompute or a smaller
// batch. Levels within lk::same_reading_spread of each other, or a context's worth apart, are
// one level; prints of another phase (an evaluation that peaks lower) do not count.
std::optional<finding> from_step_peaks(const observe::observation& obs) {
  std::vector<const observe::torch_stats*> steps;
  for (const auto& s : obs.stats)
    if (s.origin == observe::stats_origin::log_figures && s.allocated.current && s.allocated.peak &&
        !s.reserved.current && !s.reserved.peak && *s.allocated.peak >= 2 * *s.allocated.current)
      steps.push_back(&s);
  if (steps.size() < 2) return std::nullopt;
  bytes low = UINT64_MAX, high = 0, peak = 0;
  const observe::torch_stats* highest = steps.front();
  for (const auto* s : steps) {
    low = std::min(low, *s->allocated.current);
    high = std::max(high, *s->allocated.current);
    if (*s->allocated.peak > peak) {
      peak = *s->allocated.peak;
      highest = s;
    }
  }
  const bool level =
      static_cast<double>(high) <= lk::same_reading_spread * static_cast<double>(low) ||
      high - low <= lk::context_min;
  if (!level) return std::nullopt;
  const auto line_of = [](const observe::torch_stats& s) {
    const auto l = s.raw.find("line");
    return l == s.raw.end() ? std::string("?") : std::to_string(l->second);
  };
  finding f;
  f.rule = "MEM001";
  f.title = "a step's own peak is what does not fit";
  f.cause_class = "does_not_fit";
  f.likelihood = lk::possible;
  f.evidence.push_back(fmt::format("{} line {}: {} stays allocated, the step peaks at {}",
                                   highest->source, line_of(*highest),
                                   format_bytes(*highest->allocated.current), format_bytes(peak)));
  f.support.push_back(
      fmt::format("{} prints: what stays allocated is level ({} to {}), so nothing "
                  "is kept from step to step",
                  steps.size(), format_bytes(low), format_bytes(high)));
  f.support.push_back(
      fmt::format("each step's peak is {} above what stays: its activations and "
                  "temporaries",
                  format_bytes(peak - high)));
  f.against.push_back("the paste gives no capacity: whether the peak passes the GPU is not in it");
  f.cause =
      "a step's working memory (activations kept for backward, temporaries) peaks far above "
      "what stays allocated; the longest batches push it past the GPU";
  f.fix =
      "activation checkpointing (recomputes each block's forward: ~33 % more compute), or a "
      "smaller micro-batch / shorter sequences with gradient accumulation";
  return f;
}

}  // namespace

std::vector<finding> does_not_fit(const doctor_input& in) {
  if (!in.prediction) {
    if (in.observed)
      if (auto f = from_step_peaks(*in.observed)) return {std::move(*f)};
    return {};
  }
  const auto state = predict::state_of(*in.prediction);
  // A plan that runs out only after its steps (a checkpoint save, an evaluation): that phase's
  // own rule (CKPT001, EVAL001) names the failure with the change that makes it fit; the step's
  // changes (a smaller micro-batch, recompute) are not that change.
  if (state == predict::fit_state::fits ||
      !predict::failing_phase_after_steps(*in.prediction).empty())
    return {};
  const auto& p = *in.prediction;
  finding f = state == predict::fit_state::tight ? tight_finding(p) : out_of_memory_finding(in, p);
  std::vector<std::string> fits;
  // Lists `settings` when they make the job fit outside the safety margin (a change that leaves
  // the job tight is no fix); the first listed gives the finding's saving.
  const auto offer = [&](const std::vector<std::string>& settings, const std::string& cost) {
    auto after = replan(in, settings);
    if (!after || predict::state_of(after->after) != predict::fit_state::fits) return false;
    const std::int64_t saving = after->saving;
    fits.push_back(fmt::format("--set {} ({}; {} less on the busiest GPU)", fmt::join(settings, " --set "), cost,
                               format_bytes(static_cast<bytes>(std::max<std::int64_t>(0, saving)))));
    if (!f.saving) {
      f.saving = saving;
      f.saving_basis = replan_basis(settings) +
                       (after->on_need                             ? ", against the whole step's need"
                        : state == predict::fit_state::does_not_fit ? ", against the plan cut short"
                                                                    : "");
    }
    return true;
  };
  if (in.job) {
    const auto candidates = candidates_for(*in.job);
    bool smaller_batch_offered = false;
    for (const auto& c : candidates) {
      const bool batch = c.settings.front().starts_with("training.micro_batch=");
      if (batch && smaller_batch_offered) continue;  // only the largest micro-batch that fits
      if (offer(c.settings, c.cost) && batch) smaller_batch_offered = true;
    }
    // More nodes, the costliest change, for a strategy that shards the state over them: the
    // fewest (up to eight times as many) that make it fit.
    if (shards_state(in.job->parallel))
      for (const int factor : {2, 4, 8})
        if (offer({fmt::format("hardware.nodes={}", in.job->hardware.nodes * factor)},
                  fmt::format("{} times the GPUs, the state sharded over them", factor)))
          break;
    // No single change is enough: the cheapest pair that is (of the micro-batches, only 1).
    std::vector<candidate> pairable;
    for (const auto& c : candidates)
      if (!c.settings.front().starts_with("training.micro_batch=") || c.settings.front() == "training.micro_batch=1")
        pairable.push_back(c);
    if (fits.empty())
      for (std::size_t a = 0; a < pairable.size() && fits.empty(); ++a)
        for (std::size_t b = a + 1; b < pairable.size() && fits.empty(); ++b) {
          auto both = pairable[a].settings;
          both.insert(both.end(), pairable[b].settings.begin(), pairable[b].settings.end());
          if (offer(both, pairable[a].cost + "; " + pairable[b].cost))
            f.against.push_back("no single change makes it fit; the pair below does");
        }
  }
  // Weights that do not fit as each rank places them fail before any step: the step's batch and
  // sequence change nothing there.
  const std::string nothing_fits =
      state == predict::fit_state::does_not_fit && fails_in_init(p)
          ? "no single change or pair of changes makes it fit with the safety margin: the weights "
            "as each rank places them do not fit one GPU, whatever the micro_batch or seq_len; "
            "shard them as they load (ZeRO-3 under zero.Init, FSDP with init.meta_device), "
            "quantize them, or use GPUs with more memory"
          : "no single change or pair of changes makes it fit with the safety margin: add GPUs, "
            "shorten seq_len or lower micro_batch";
  f.fix = fits.empty() ? nothing_fits
                       : "any of these makes it fit with the safety margin, cheapest first:\n  " +
                             fmt::format("{}", fmt::join(fits, "\n  "));
  return {f};
}

}  // namespace vramscope::doctor::rules
