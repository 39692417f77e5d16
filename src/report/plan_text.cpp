#include <vramscope/report/plan_report.hpp>

#include <vramscope/job/job_names.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/rank_runs.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>

#include "node_fold.hpp"

namespace vramscope::report {

namespace {

using predict::prediction;
using predict::rank_prediction;

bool same_figures(const rank_prediction& a, const rank_prediction& b) {
  return a.peak.allocated == b.peak.allocated && a.peak.active == b.peak.active &&
         a.peak.reserved == b.peak.reserved && a.peak.device == b.peak.device &&
         a.peak_phase == b.peak_phase && a.oom.has_value() == b.oom.has_value();
}

// The pipeline rank of `rank`: torchtitan and Megatron make pipeline parallelism the outermost
// mesh dimension, so each pipeline rank holds world / pp consecutive ranks.
int pipeline_rank(const job::job_spec& j, int rank) {
  const int per_stage = std::max(1, j.world_size() / std::max(1, j.parallel.pp));
  return rank / per_stage;
}

// "rank 3", "ranks 0-7", and with pipeline stages "stage 0: ranks 0-7" ("stages 1-2: ...").
std::string rank_label(const prediction& p, int first, int last) {
  const std::string ranks =
      first == last ? fmt::format("rank {}", first) : fmt::format("ranks {}-{}", first, last);
  if (p.job.parallel.pp <= 1) return ranks;
  const int a = pipeline_rank(p.job, first), b = pipeline_rank(p.job, last);
  return a == b ? fmt::format("stage {}: {}", a, ranks)
                : fmt::format("stages {}-{}: {}", a, b, ranks);
}

// A rank run split where a pipeline stage ends, so that every piece lies in one stage.
template <typename F>
void by_stage(const prediction& p, const predict::rank_run& run, F f) {
  if (p.job.parallel.pp <= 1) return f(run);
  for (int first = run.first, end = run.first + run.count; first < end;) {
    const int stage = pipeline_rank(p.job, first);
    // The stage's last rank within the run (stages hold consecutive ranks).
    int lo = first, hi = end - 1;
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (pipeline_rank(p.job, mid) == stage) lo = mid;
      else hi = mid - 1;
    }
    f(predict::rank_run{first, lo - first + 1, run.rank});
    first = lo + 1;
  }
}

// The label of a row that folds_by_node made of `nodes` nodes: "local rank 0 of nodes 1-62499",
// "local ranks 1-15 of nodes 0-7", with pipeline stages "stage 0: local ranks ...".
std::string node_rank_label(const prediction& p, int first, int last, int nodes) {
  const int per_node = p.job.hardware.gpus_per_node;
  const int a = first % per_node, b = last % per_node, node = first / per_node;
  std::string out =
      a == b ? fmt::format("local rank {}", a) : fmt::format("local ranks {}-{}", a, b);
  out += fmt::format(" of nodes {}-{}", node, node + nodes - 1);
  if (p.job.parallel.pp <= 1) return out;
  return fmt::format("stage {}: {}", pipeline_rank(p.job, first), out);
}

// Whether ranks first and last lie in one pipeline stage (always without pipeline stages).
bool one_stage(const prediction& p, int first, int last) {
  return p.job.parallel.pp <= 1 || pipeline_rank(p.job, first) == pipeline_rank(p.job, last);
}

void rank_table(std::string& out, const prediction& p) {
  struct group {
    int first = 0, last = 0;
    const rank_prediction* rank = nullptr;
  };
  std::vector<group> groups;
  std::vector<row_repeat> repeats;  // rows feed_block found repeated (node_fold.hpp)
  // Figures found alike to the group's first (a plan of ranges alternates between a few
  // classes: each is compared once a group).
  std::array<const rank_prediction*, 4> alike{};
  std::size_t next = 0;
  const auto same = [&](const rank_prediction* r) {
    if (r == groups.back().rank || std::find(alike.begin(), alike.end(), r) != alike.end())
      return true;
    if (!same_figures(*groups.back().rank, *r)) return false;
    alike[next++ % alike.size()] = r;
    return true;
  };
  const auto feed = [&](const predict::rank_run& whole) {
    by_stage(p, whole, [&](const predict::rank_run& run) {
      if (!groups.empty() && same(run.rank) &&
          (p.job.parallel.pp <= 1 ||
           pipeline_rank(p.job, groups.back().first) == pipeline_rank(p.job, run.first))) {
        groups.back().last = run.first + run.count - 1;
        return;
      }
      groups.push_back({run.first, run.first + run.count - 1, run.rank});
      alike.fill(nullptr);
    });
  };
  predict::for_each_rank_block(
      p, [&](std::span<const predict::rank_run> runs, int period, int times) {
        feed_block(groups, repeats, runs, period, times, feed,
                   [](const group& a, const group& b) { return a.rank == b.rank; });
      });
  // Rows repeated node after node are one row each (node_fold.hpp).
  const auto rows = fold_by_node(
      groups, repeats, p.job.hardware.gpus_per_node,
      [](const group& a, const group& b) {
        return a.rank == b.rank || (same_figures(*a.rank, *b.rank) &&
                                    (!a.rank->oom || a.rank->oom_phase == b.rank->oom_phase));
      },
      [&](int first, int last) { return one_stage(p, first, last); });
  std::vector<std::string> labels;
  labels.reserve(rows.size());
  std::size_t width = 16;
  for (const auto& [g, nodes] : rows) {
    labels.push_back(nodes > 1 ? node_rank_label(p, g.first, g.last, nodes)
                               : rank_label(p, g.first, g.last));
    width = std::max(width, labels.back().size());
  }
  out += fmt::format("{:<{}} {:>11} {:>11} {:>11} {:>11}  {}\n",
                     p.job.parallel.pp > 1 ? "per stage" : "per rank", width, "allocated", "active",
                     "reserved", "device", "peak phase");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = *rows[i].row.rank;
    out += fmt::format("{:<{}} {:>11} {:>11} {:>11} {:>11}  {}{}\n", labels[i], width,
                       format_bytes(r.peak.allocated), format_bytes(r.peak.active),
                       format_bytes(r.peak.reserved), format_bytes(r.peak.device), r.peak_phase,
                       r.oom ? fmt::format("  OUT OF MEMORY in {}", r.oom_phase) : "");
  }
}

// Whether plan's text shows phase `ph` of rank `r`: when the rank's allocated or reserved
// peak is in it, or it runs out of memory, does not fit or is not reached. `--json` lists them
// all. The first optimizer step is a training phase ("optimizer"), named by the table already.
bool phase_matters(const rank_prediction& r, const predict::phase_peak& ph) {
  if (ph.name == "first_optimizer_step") return false;
  return !ph.fits || r.peak_phase == ph.name || r.reserved_peak_phase == ph.name;
}

std::string phase_state(const predict::phase_peak& ph) {
  if (!ph.reached) return "not reached (out of memory before it)";
  if (ph.oom) return "OUT OF MEMORY";
  return ph.fits ? "fits" : "does not fit";
}

// One line per phase outside the training step that matters (phase_matters) on some rank,
// ranks with the same figures together.
void phase_lines(std::string& out, const prediction& p) {
  bool heading = false;
  for (const char* name : predict::outside_phase_names) {
    const auto find = [&](const rank_prediction& r) -> const predict::phase_peak* {
      for (const auto& ph : r.phases)
        if (ph.name == name) return &ph;
      return nullptr;
    };
    bool shown = false;  // a block's runs are its nodes' runs: their first node's tell
    predict::for_each_rank_block(
        p, [&](std::span<const predict::rank_run> block, int, int) {
          for (const auto& run : block) {
            const auto* ph = find(*run.rank);
            shown = shown || (ph != nullptr && phase_matters(*run.rank, *ph));
          }
        });
    if (!shown) continue;
    if (!heading) out += "\noutside the training step:\n";
    heading = true;
    const auto same = [](const predict::phase_peak* ph, const predict::phase_peak* o) {
      return (ph == nullptr) == (o == nullptr) &&
             (ph == nullptr || (ph->peak.allocated == o->peak.allocated &&
                                ph->peak.reserved == o->peak.reserved &&
                                ph->peak.device == o->peak.device && ph->fits == o->fits &&
                                ph->reached == o->reached && ph->oom == o->oom));
    };
    // Runs of ranks whose phase has the same figures, folded by node (node_fold.hpp).
    struct run {
      int first = 0, last = 0;
      const predict::phase_peak* ph = nullptr;
    };
    std::vector<run> runs;
    std::vector<row_repeat> repeats;
    const auto feed = [&](const predict::rank_run& r) {
      const auto* here = find(*r.rank);
      if (!runs.empty() && same(runs.back().ph, here)) {
        runs.back().last = r.first + r.count - 1;
        return;
      }
      runs.push_back({r.first, r.first + r.count - 1, here});
    };
    predict::for_each_rank_block(
        p, [&](std::span<const predict::rank_run> block, int period, int times) {
          feed_block(runs, repeats, block, period, times, feed,
                     [](const run& a, const run& b) { return a.ph == b.ph; });
        });
    const auto rows = fold_by_node(
        runs, repeats, p.job.hardware.gpus_per_node,
        [&](const run& a, const run& b) { return same(a.ph, b.ph); },
        [&](int first, int last) { return one_stage(p, first, last); });
    for (const auto& [r, nodes] : rows) {
      if (r.ph == nullptr) continue;
      const auto label =
          nodes > 1 ? node_rank_label(p, r.first, r.last, nodes) : rank_label(p, r.first, r.last);
      const auto* ph = r.ph;
      out += ph->reached
                 ? fmt::format("  {:<16} {:<12} {:>11} allocated {:>11} reserved {:>11} device  "
                               "{}\n",
                               name, label, format_bytes(ph->peak.allocated),
                               format_bytes(ph->peak.reserved), format_bytes(ph->peak.device),
                               phase_state(*ph))
                 : fmt::format("  {:<16} {:<12} {}\n", name, label, phase_state(*ph));
    }
  }
}

void breakdown_lines(std::string& out, const rank_prediction& r) {
  out += fmt::format("\nbreakdown of rank {} at its peak ({}):\n", r.rank, r.peak_phase);
  for (const auto& [name, value] : breakdown_rows(r.parts))
    if (value > 0) out += fmt::format("  {:<16} {:>11}\n", name, format_bytes(value));
  if (r.init_allocated > 0)
    out += fmt::format("  init peak: {} allocated, {} reserved\n", format_bytes(r.init_allocated),
                       format_bytes(r.init_reserved));
}

// A rank may hold several shares of one GPU (its context and its tensors): count processes.
std::size_t distinct_processes(const predict::gpu_prediction& g) {
  std::vector<int> ranks;
  for (const auto& proc : g.processes)
    if (std::find(ranks.begin(), ranks.end(), proc.rank) == ranks.end()) ranks.push_back(proc.rank);
  return ranks.size();
}

// Whether two GPUs' processes take the same memory each, in order.
bool same_shares(const predict::gpu_prediction& a, const predict::gpu_prediction& b) {
  return std::equal(a.processes.begin(), a.processes.end(), b.processes.begin(),
                    b.processes.end(), [](const auto& x, const auto& y) {
                      return x.device == y.device && (x.rank < 0) == (y.rank < 0);
                    });
}

void gpu_table(std::string& out, const prediction& p) {
  out += "\nper GPU (what nvidia-smi will show):\n";
  auto signature = [](const predict::gpu_prediction& g) { return std::make_pair(g.device, g.processes.size()); };
  // Runs of GPUs with the same signature, folded by node (node_fold.hpp).
  struct run {
    int first = 0, last = 0;
    const predict::gpu_prediction* g = nullptr;  // the run's first GPU, as its class has it
  };
  std::vector<run> runs;
  std::vector<row_repeat> repeats;
  const auto feed = [&](const predict::gpu_run& r) {
    if (!runs.empty() &&
        (runs.back().g == r.gpu || signature(*r.gpu) == signature(*runs.back().g))) {
      runs.back().last = r.first + r.count - 1;
      return;
    }
    runs.push_back({r.first, r.first + r.count - 1, r.gpu});
  };
  predict::for_each_gpu_block(
      p, [&](std::span<const predict::gpu_run> block, int period, int times) {
        feed_block(runs, repeats, block, period, times, feed,
                   [](const run& a, const run& b) { return a.g == b.g; });
      });
  const int per_node = p.job.hardware.gpus_per_node;
  const auto rows = fold_by_node(
      runs, repeats, per_node,
      [](const run& a, const run& b) {
        return a.g == b.g || (a.g->capacity == b.g->capacity && a.g->device == b.g->device &&
                              same_shares(*a.g, *b.g));
      },
      [](int, int) { return true; });
  for (const auto& [r, nodes] : rows) {
    const auto* g = r.g;
    const int first = r.first, last = r.last;
    std::string label =
        first == last ? fmt::format("GPU {}", first) : fmt::format("GPUs {}-{}", first, last);
    if (nodes > 1) {
      const int a = first % per_node, b = last % per_node;
      label = a == b ? fmt::format("GPU {}", a) : fmt::format("GPUs {}-{}", a, b);
      label += fmt::format(" of nodes {}-{}", first / per_node, first / per_node + nodes - 1);
    }
    const std::size_t n = distinct_processes(*g);
    const bool listed = g->processes.size() > 1 ||
                        (first == last && !g->processes.empty() && g->processes[0].rank < 0);
    out += fmt::format("  {:<12} {:>11} of {:<11} {} process{}{}\n", label,
                       format_bytes(g->device), format_bytes(g->capacity), n, n == 1 ? "" : "es",
                       nodes > 1 ? (listed ? fmt::format(" each, node {}'s:", first / per_node)
                                           : std::string(" each"))
                                 : std::string());
    if (listed)
      for (const auto& proc : predict::renumbered(*g, first).processes)
        out += fmt::format("      {:>11}  {}\n", format_bytes(proc.device), proc.what);
  }
}

// "adamw, state fp32": the optimizer and the state dtype that was planned.
std::string optimizer_text(const job::optimizer_spec& o) {
  using job::optimizer_kind;
  if (o.kind == optimizer_kind::sgd) return "sgd";
  if (o.kind == optimizer_kind::adamw_8bit) return "adamw_8bit, state 8-bit";
  if (o.kind == optimizer_kind::paged_adamw_8bit) return "paged_adamw_8bit, state 8-bit, paged";
  return fmt::format("{}, state {}{}", job::name_of(o.kind), name_of(o.state),
                     o.kind == optimizer_kind::paged_adamw ? ", paged" : "");
}

}  // namespace

std::vector<std::pair<std::string_view, bytes>> breakdown_rows(const predict::breakdown& b) {
  return {{"parameters", b.parameters},       {"gradients", b.gradients},
          {"optimizer", b.optimizer},         {"activations", b.activations},
          {"communication", b.communication}, {"temporary", b.temporary},
          {"fragmentation", b.fragmentation}, {"cuda_context", b.cuda_context},
          {"nccl", b.nccl},                   {"other_processes", b.other_processes},
          {"managed (paged)", b.managed}};
}

std::string verdict_line(const predict::verdict_facts& v) {
  if (v.oom)
    return fmt::format("does not fit: rank {} runs out of memory in {} (asked for {} with {} "
                       "reserved of {} usable)",
                       v.oom->rank, v.oom->phase, format_bytes(v.oom->requested),
                       format_bytes(v.oom->reserved), format_bytes(v.oom->capacity));
  if (!v.busiest_gpu) return "nothing to place";
  if (v.busiest_device > v.busiest_capacity)
    return fmt::format("does not fit: GPU {} needs {} of {} (short by {})", *v.busiest_gpu,
                       format_bytes(v.busiest_device), format_bytes(v.busiest_capacity),
                       format_bytes(v.busiest_device - v.busiest_capacity));
  if (v.state() == predict::fit_state::tight)
    return fmt::format(
        "tight: busiest GPU {} at {} of {} ({} headroom, less than the {} safety "
        "margin)",
        *v.busiest_gpu, format_bytes(v.busiest_device), format_bytes(v.busiest_capacity),
        format_bytes(v.busiest_capacity - v.busiest_device), format_bytes(v.margin));
  if (v.margin == 0)
    return fmt::format("fits: busiest GPU {} at {} of {} ({} headroom)", *v.busiest_gpu,
                       format_bytes(v.busiest_device), format_bytes(v.busiest_capacity),
                       format_bytes(v.busiest_capacity - v.busiest_device));
  return fmt::format("fits: busiest GPU {} at {} of {} ({} headroom, above the {} safety margin)",
                     *v.busiest_gpu, format_bytes(v.busiest_device),
                     format_bytes(v.busiest_capacity),
                     format_bytes(v.busiest_capacity - v.busiest_device), format_bytes(v.margin));
}

std::string whole_step_line(const prediction& p) {
  if (!p.whole_step_need || !predict::has_gpus(p)) return "";
  const bytes usable = predict::first_gpu_capacity(p);
  // A plan that fails only after its training steps (a checkpoint save, an evaluation): that
  // phase needs it, and a smaller micro-batch is not what makes it fit.
  const std::string after_steps = predict::failing_phase_after_steps(p);
  if (!after_steps.empty())
    return fmt::format(
        "the job needs about {} on GPU {} in {}, which has {} (short by {}); its training steps "
        "fit: `vramscope explain` names what {} holds and the change that makes it fit",
        format_bytes(*p.whole_step_need), predict::busiest_rank(p).gpu, after_steps,
        format_bytes(usable), format_bytes(*p.whole_step_need - usable), after_steps);
  return fmt::format(
      "the whole step needs about {} on GPU {}, which has {} (short by {}): `vramscope fit` "
      "finds the largest micro-batch that fits, `vramscope explain` the single changes that make "
      "this one fit",
      format_bytes(*p.whole_step_need), predict::busiest_rank(p).gpu, format_bytes(usable),
      format_bytes(*p.whole_step_need - usable));
}

std::string verdict_line(const prediction& p) { return verdict_line(predict::verdict_of(p)); }

// "full fine-tune", "lora r16", "qlora r16 (nf4 base)", "ia3", "prompt_tuning (20 virtual tokens)".
static std::string training_kind(const job::job_spec& j) {
  const auto& l = j.lora;
  if (!l.enabled) return "full fine-tune";
  const bool ranked = l.uses_targets() && l.method != "ia3";  // IA3 has no rank
  std::string text = l.method == "lora" && l.base_quantization ? "qlora" : l.method;
  if (ranked) text += fmt::format(" r{}", l.rank);
  if (l.method == "prompt_tuning" || l.method == "prefix_tuning")
    text += fmt::format(" ({} virtual tokens)", l.virtual_tokens);
  if (l.base_quantization)
    text += fmt::format(" ({} base)", name_of(*l.base_quantization));
  else if (l.method != "prompt_tuning" && l.method != "prefix_tuning")
    text += fmt::format(" (frozen base {})", name_of(schedule::stored_dtype(j)));
  return text;
}

// " + tp 8 + pp 4 (1f1b, 8 micro-batches) + cp 8 (16384 tokens per rank) + ep 8"; empty
// without tensor, pipeline, context and expert parallelism.
static std::string pipeline_text(const job::job_spec& j) {
  const auto& par = j.parallel;
  std::string out;
  if (par.tp > 1)
    out += fmt::format(" + tp {}{}", par.tp, par.sequence_parallel ? " (sequence parallel)" : "");
  if (par.pp > 1) {
    const std::string virtual_stages =
        par.pp_stages_per_rank > 1 ? fmt::format(", {} stages per rank", par.pp_stages_per_rank) : "";
    out += fmt::format(" + pp {} ({}{}, {} micro-batches)", par.pp, job::name_of(par.pp_sched),
                       virtual_stages, std::max(1, j.training.gradient_accumulation));
  }
  if (par.cp > 1)
    out += fmt::format(" + cp {} ({} tokens per rank)", par.cp,
                       j.training.seq_len / static_cast<std::uint64_t>(par.cp));
  if (par.ep > 1) out += fmt::format(" + ep {}", par.ep);
  if (par.ep > 1 && job::expert_tp(par) != std::max(1, par.tp))
    out += fmt::format(" (experts over tp {})", job::expert_tp(par));
  return out;
}

// ", float8 tensorwise linears (all-gathered in float8)" when torchao float8 training is on.
std::string float8_text(const job::job_spec& j) {
  if (j.precision.float8 == job::float8_recipe::none) return "";
  if (j.transformer_engine_float8())
    return fmt::format(", float8 {} Transformer Engine linears{}", job::name_of(j.precision.float8),
                       j.parallel.float8_all_gather ? " (float8 parameters)" : "");
  return fmt::format(", float8 {} linears{}", job::name_of(j.precision.float8),
                     j.parallel.float8_all_gather ? " (all-gathered in float8)" : "");
}

// What the activations depend on most, named in the heading whichever way it is set.
static std::string checkpointing_text(job::checkpointing c) {
  return c == job::checkpointing::none ? "no activation checkpointing"
                                       : fmt::format("activation checkpointing {}", name_of(c));
}

std::string plan_heading(const prediction& p) {
  const auto& j = p.job;
  return fmt::format(
      "{} ({} parameters) on {} x {} ({} node{}), {} {}{}, params {} / master {}{}, {}, {}, micro-batch {} x {} tokens, {}",
      p.model_name, format_count(p.parameters), j.world_size(), j.hardware.gpu, j.hardware.nodes,
      j.hardware.nodes == 1 ? "" : "s", j.framework.name, job::name_of(j.parallel.kind),
      pipeline_text(j),
      name_of(j.precision.params), name_of(j.precision.master), float8_text(j),
      optimizer_text(j.optimizer), training_kind(j), j.training.micro_batch, j.training.seq_len,
      checkpointing_text(j.training.activation_checkpointing));
}

// Variable-length jobs: rank 0's reserved peak over its steps, without and with expandable
// segments.
void length_lines(std::string& out, const prediction& p) {
  if (!p.lengths) return;
  const auto& l = *p.lengths;
  out += fmt::format("\nvariable lengths: {}, {} steps drawn with seed {} (shortest {}, median {}, "
                     "longest {}); rank 0's reserved peak per step:\n",
                     l.distribution, l.steps, l.seed, l.shortest, l.median, l.longest);
  for (const auto* r : {&l.without_expandable, &l.with_expandable}) {
    out += fmt::format("  {:<28} first {}, p50 {}, p99 {}, highest {} (+{}, last growth at step "
                       "{}; {} of {} steps replayed)",
                       r->expandable_segments ? "with expandable segments:"
                                              : "without expandable segments:",
                       format_bytes(r->first), format_bytes(r->p50), format_bytes(r->p99),
                       format_bytes(r->highest), format_bytes(r->growth()), r->last_growth_step,
                       r->steps_replayed, l.steps);
    if (r->oom_step) out += fmt::format("; out of memory at step {}", *r->oom_step);
    out += "\n";
  }
}

std::string render_plan_text(const prediction& p) {
  std::string out = plan_heading(p) + "\n";
  out += fmt::format("allocator model: {}\n\n", p.allocator);
  rank_table(out, p);
  phase_lines(out, p);
  breakdown_lines(out, predict::busiest_rank(p));
  gpu_table(out, p);
  length_lines(out, p);
  if (p.jax_fraction)
    out += fmt::format("\nJAX pool fraction {:.2f}; the working set needs about {:.2f} "
                       "(XLA_PYTHON_CLIENT_MEM_FRACTION={:.2f} would do)\n",
                       *p.jax_fraction, *p.jax_recommended_fraction, *p.jax_recommended_fraction);
  for (const auto& note : p.notes) out += "note: " + note + "\n";
  out += "\n" + verdict_line(p) + "\n";
  if (predict::state_of(p) == predict::fit_state::tight)
    out += fmt::format("  {}\n", predict::margin_reason);
  if (const auto need = whole_step_line(p); !need.empty()) out += need + "\n";
  return out;
}

}  // namespace vramscope::report
