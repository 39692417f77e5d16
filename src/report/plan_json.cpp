#include <vramscope/report/plan_report.hpp>

#include <vramscope/job/job_writer.hpp>

#include <fmt/format.h>

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
  if (p.whole_step_need && !p.gpus.empty()) {
    out["whole_step_need"] = *p.whole_step_need;
    out["shortfall"] = *p.whole_step_need - p.gpus.front().capacity;
  }
  if (facts.state() == predict::fit_state::tight) out["margin_reason"] = predict::margin_reason;
  out["ranks"] = nlohmann::json::array();
  for (const auto& r : p.ranks) out["ranks"].push_back(rank_json(r));
  out["gpus"] = nlohmann::json::array();
  for (const auto& g : p.gpus) {
    nlohmann::json procs = nlohmann::json::array();
    for (const auto& proc : g.processes)
      procs.push_back({{"rank", proc.rank}, {"what", proc.what}, {"device", proc.device}});
    out["gpus"].push_back(
        {{"index", g.index}, {"capacity", g.capacity}, {"device", g.device}, {"processes", procs}});
  }
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
  for (const auto& r : p.ranks)
    for (const auto& t : r.timeline)
      out += fmt::format("{},{},{},{},{},{}\n", r.rank, t.event, r.phase_names[t.phase],
                         t.allocated, t.active, t.reserved);
  return out;
}

}  // namespace vramscope::report
