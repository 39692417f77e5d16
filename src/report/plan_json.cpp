#include <vramscope/report/plan_report.hpp>

#include <vramscope/job/job_writer.hpp>
#include <vramscope/predict/rank_runs.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "node_fold.hpp"

namespace vramscope::report {

namespace {

nlohmann::json length_replay_json(const predict::length_replay& r) {
  nlohmann::json j = {{"expandable_segments", r.expandable_segments},
                      {"steps_replayed", r.steps_replayed},
                      {"first_step_reserved", r.first},
                      {"reserved_p50", r.p50},
                      {"reserved_p99", r.p99},
                      {"reserved_highest", r.highest},
                      {"growth", r.growth()},
                      {"last_growth_step", r.last_growth_step}};
  if (r.oom_step) j["oom_step"] = *r.oom_step;
  return j;
}

nlohmann::json lengths_json(const predict::length_figures& l) {
  return {{"distribution", l.distribution},
          {"steps", l.steps},
          {"seed", l.seed},
          {"drawn", {{"shortest", l.shortest}, {"median", l.median}, {"longest", l.longest}}},
          {"without_expandable", length_replay_json(l.without_expandable)},
          {"with_expandable", length_replay_json(l.with_expandable)}};
}

nlohmann::json rank_json(const predict::rank_prediction& r) {
  const auto& b = r.parts;
  nlohmann::json j = {
      {"rank", r.rank},
      {"gpu", r.gpu},
      {"like_rank", r.like_rank},
      {"peak", {{"allocated", r.peak.allocated}, {"active", r.peak.active},
                {"reserved", r.peak.reserved}, {"device", r.peak.device}}},
      {"peak_phase", r.peak_phase},
      {"reserved_peak_phase", r.reserved_peak_phase},
      {"init_peak", {{"allocated", r.init_allocated}, {"reserved", r.init_reserved}}},
      {"breakdown", {{"parameters", b.parameters}, {"gradients", b.gradients},
                     {"optimizer", b.optimizer}, {"activations", b.activations},
                     {"communication", b.communication}, {"temporary", b.temporary},
                     {"fragmentation", b.fragmentation}, {"cuda_context", b.cuda_context},
                     {"nccl", b.nccl}, {"other_processes", b.other_processes},
                     {"managed", b.managed}}},
  };
  // The phases outside the training step (docs/formats/plan-json.md, "phases").
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& ph : r.phases)
    phases[ph.name] = {{"allocated", ph.peak.allocated}, {"active", ph.peak.active},
                       {"reserved", ph.peak.reserved},   {"device", ph.peak.device},
                       {"fits", ph.fits},                {"reached", ph.reached},
                       {"oom", ph.oom}};
  j["phases"] = std::move(phases);
  if (r.oom)
    j["oom"] = {{"phase", r.oom_phase}, {"requested", r.oom->requested},
                {"segment_size", r.oom->segment_size}, {"reserved", r.oom->reserved},
                {"allocated", r.oom->allocated}, {"capacity", r.oom->capacity},
                {"message", r.oom->message}};
  return j;
}

nlohmann::json gpu_json(const predict::gpu_prediction& g) {
  nlohmann::json procs = nlohmann::json::array();
  for (const auto& proc : g.processes)
    procs.push_back({{"rank", proc.rank}, {"what", proc.what}, {"device", proc.device}});
  return {{"index", g.index}, {"capacity", g.capacity}, {"device", g.device}, {"processes", procs}};
}

// "classes" and "ranges" (docs/formats/plan-json.md): the plan's classes, those that differ
// only in their numbers made one (a node's GPU 0 and its other GPUs, when nothing else lands on
// GPU 0), and runs of consecutive ranks of one class, those repeated node after node folded.
void ranges_json(const predict::prediction& p, nlohmann::json& out) {
  // A class's figures with its numbers moved to rank 0: equal for classes alike but for them.
  std::map<std::string, std::uint32_t> seen;
  std::vector<std::uint32_t> json_class(p.classes.size());
  nlohmann::json classes = nlohmann::json::array();
  for (std::size_t i = 0; i < p.classes.size(); ++i) {
    const auto& c = p.classes[i];
    const int shift = -c.rank.rank;
    const auto key = rank_json(predict::renumbered(c.rank, 0)).dump() + "\n" +
                     gpu_json(predict::renumbered(c.gpu, c.gpu.index + shift)).dump();
    const auto [it, added] = seen.try_emplace(key, static_cast<std::uint32_t>(classes.size()));
    if (added) classes.push_back({{"rank", rank_json(c.rank)}, {"gpu", gpu_json(c.gpu)}});
    json_class[i] = it->second;
  }
  // Runs of consecutive ranks of one class, then folded by node (node_fold.hpp): a block of
  // ranges repeated on the nodes that follow is written once with "period" and "times".
  struct run {
    int first = 0, last = 0;
    std::uint32_t cls = 0;
  };
  std::vector<run> runs;
  std::vector<row_repeat> repeats;  // runs feed_block found repeated
  struct range_run {
    int first = 0, count = 0;
    std::uint32_t cls = 0;
  };
  const auto feed = [&](const range_run& r) {
    const auto c = json_class[r.cls];
    if (!runs.empty() && runs.back().cls == c && r.first == runs.back().last + 1) {
      runs.back().last += r.count;
      return;
    }
    runs.push_back({r.first, r.first + r.count - 1, c});
  };
  std::vector<range_run> block_runs;
  predict::for_each_range_block(p, [&](std::span<const predict::rank_range> block) {
    block_runs.clear();
    for (const auto& r : block) block_runs.push_back({r.first, r.count, r.cls});
    const int block_period = block.front().period;
    feed_block(runs, repeats, std::span<const range_run>(block_runs), block_period,
               block_period > 0 ? block.front().times : 1, feed,
               [](const run& a, const run& b) { return a.cls == b.cls; });
  });
  const int period = p.job.hardware.gpus_per_node;
  const auto rows = fold_by_node(
      runs, repeats, period, [](const run& a, const run& b) { return a.cls == b.cls; },
      [](int, int) { return true; });
  nlohmann::json ranges = nlohmann::json::array();
  for (const auto& [r, nodes] : rows) {
    nlohmann::json range = {{"first", r.first}, {"count", r.last - r.first + 1}, {"class", r.cls}};
    if (nodes > 1) {
      range["period"] = period;
      range["times"] = nodes;
    }
    ranges.push_back(std::move(range));
  }
  out["classes"] = std::move(classes);
  out["ranges"] = std::move(ranges);
}

}  // namespace

nlohmann::json plan_json(const predict::prediction& p) {
  nlohmann::json out;
  out["job"] = job::to_json(p.job);
  out["model"] = {{"name", p.model_name}, {"parameters", p.parameters}};
  out["allocator"] = p.allocator;
  out["fits"] = p.fits;
  const auto facts = predict::verdict_of(p);
  out["state"] = predict::name_of(facts.state());
  out["verdict"] = verdict_line(facts);
  out["margin"] = p.margin;
  if (facts.busiest_gpu && !facts.oom)
    out["headroom"] = static_cast<std::int64_t>(facts.busiest_capacity) -
                      static_cast<std::int64_t>(facts.busiest_device);
  if (p.whole_step_need && predict::has_gpus(p)) {
    out["whole_step_need"] = *p.whole_step_need;
    out["shortfall"] = *p.whole_step_need - predict::first_gpu_capacity(p);
  }
  if (facts.state() == predict::fit_state::tight) out["margin_reason"] = predict::margin_reason;
  // Every rank and GPU one by one where the plan kept them so or the job is small enough;
  // classes and ranges stand for them in every PyTorch plan.
  const bool listed = predict::rank_count(p) <= plan_json_listed_ranks;
  if (!p.ranks.empty() || listed) {
    out["ranks"] = nlohmann::json::array();
    predict::for_each_rank_run(p, [&](const predict::rank_run& run) {
      for (int k = 0; k < run.count; ++k)
        out["ranks"].push_back(rank_json(predict::renumbered(*run.rank, run.first + k)));
    });
  }
  if (!p.gpus.empty() || listed) {
    out["gpus"] = nlohmann::json::array();
    predict::for_each_gpu_run(p, [&](const predict::gpu_run& run) {
      for (int k = 0; k < run.count; ++k)
        out["gpus"].push_back(gpu_json(predict::renumbered(*run.gpu, run.first + k)));
    });
  }
  if (!p.classes.empty()) ranges_json(p, out);
  if (p.jax_fraction)
    out["jax"] = {{"mem_fraction", *p.jax_fraction},
                  {"recommended_fraction", *p.jax_recommended_fraction}};
  if (p.lengths) out["lengths"] = lengths_json(*p.lengths);
  out["cpu_memory_per_rank"] = p.cpu_memory;
  out["notes"] = p.notes;
  return out;
}

std::string timeline_csv(const predict::prediction& p) {
  std::string out = "rank,event,phase,allocated,active,reserved\n";
  predict::for_each_rank_with_timeline(p, [&](const predict::rank_prediction& r, int rank) {
    for (const auto& t : r.timeline)
      out += fmt::format("{},{},{},{},{},{}\n", rank, t.event, r.phase_names[t.phase], t.allocated,
                         t.active, t.reserved);
  });
  return out;
}

}  // namespace vramscope::report
