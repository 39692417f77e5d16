// GPU001: GPU 0 carries other ranks' memory: CUDA contexts created before set_device, and
// checkpoints loaded with torch.load without map_location (restored to cuda:0).
#include <fmt/format.h>

#include <map>
#include <set>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

struct crowding {
  std::string host;  // the machine whose GPU 0 is crowded; empty for a one-machine observation
  std::size_t on_gpu0 = 0, typical = 0;
  bytes extra = 0;  // memory of GPU 0's processes that run mainly elsewhere
};

// GPU 0 of one machine lists more processes than its other GPUs, which list about one each.
std::optional<crowding> crowding_on(const observe::observation& o, const std::string& host) {
  std::map<int, std::vector<const observe::process_observation*>> by_gpu;
  for (const auto& p : o.processes)
    if (p.gpu_index && p.host == host) by_gpu[*p.gpu_index].push_back(&p);
  if (by_gpu.size() < 2 || by_gpu.count(0) == 0) return std::nullopt;
  crowding c;
  c.host = host;
  c.on_gpu0 = by_gpu[0].size();
  std::size_t max_other = 0;
  for (const auto& [gpu, procs] : by_gpu)
    if (gpu != 0) max_other = std::max(max_other, procs.size());
  c.typical = max_other;
  if (c.on_gpu0 <= max_other) return std::nullopt;
  // The extra processes are the ones that also appear on another GPU: their main GPU is elsewhere.
  for (const auto* p : by_gpu[0]) {
    bool elsewhere = false;
    for (const auto& [gpu, procs] : by_gpu)
      if (gpu != 0)
        for (const auto* q : procs) elsewhere |= q->pid == p->pid;
    if (elsewhere) c.extra += p->used.value_or(0);
  }
  if (c.extra == 0) {  // PIDs hidden (containers): all but GPU 0's largest process
    bytes total = 0, largest = 0;
    for (const auto* p : by_gpu[0]) {
      total += p->used.value_or(0);
      largest = std::max(largest, p->used.value_or(0));
    }
    c.extra = total - largest;
  }
  return c;
}

// Machines are told apart by host (GPU 0 of one node is not GPU 0 of another): the machine
// whose GPU 0 carries the most memory of other ranks.
std::optional<crowding> observed_crowding(const observe::observation& o) {
  std::set<std::string> hosts;
  for (const auto& p : o.processes) hosts.insert(p.host);
  std::optional<crowding> worst;
  for (const auto& host : hosts)
    if (auto c = crowding_on(o, host); c && (!worst || c->extra > worst->extra)) worst = std::move(c);
  return worst;
}

bool crowds_gpu0(const job::job_spec& j) {
  return j.world_size() > 1 &&
         (!j.init.set_device_first || (j.init.load == job::weight_load::all_ranks && j.init.map_location != "cpu"));
}

}  // namespace

std::vector<finding> gpu0_crowding(const doctor_input& in) {
  const auto observed = in.observed ? observed_crowding(*in.observed) : std::nullopt;
  const bool job_risk = in.job && crowds_gpu0(*in.job);
  if (!observed && !job_risk) return {};
  finding f{"GPU001", {}, severity::warning, {}, {}, {}, {}, {}};
  if (observed)
    f.evidence.push_back(fmt::format("nvidia-smi: {} processes on GPU 0{}, at most {} on any other GPU; "
                                     "{} on GPU 0 belongs to processes whose own GPU is another",
                                     observed->on_gpu0, observed->host.empty() ? "" : " of " + observed->host,
                                     observed->typical, format_bytes(observed->extra)));
  if (in.prediction && in.prediction->gpus.size() > 1)
    f.evidence.push_back(fmt::format("plan: GPU 0 {} vs GPU 1 {}", format_bytes(in.prediction->gpus[0].device),
                                     format_bytes(in.prediction->gpus[1].device)));
  f.cause = "each rank that touches CUDA before torch.cuda.set_device(local_rank) creates a CUDA context "
            "(300-700 MB) on GPU 0, and torch.load without map_location restores a checkpoint saved from "
            "cuda:0 onto GPU 0 in every rank, where the caching allocator keeps it";
  f.fix = "torch.cuda.set_device(local_rank) before any CUDA work; torch.load(path, map_location=\"cpu\"); "
          "keep data preprocessing on the CPU";
  const std::vector<std::string> fix{"init.set_device_first=true", "init.map_location=cpu"};
  if (auto after = replan(in, fix)) {
    f.saving = after->saving;
    f.saving_basis = replan_basis(fix);
  } else if (observed) {
    f.saving = static_cast<std::int64_t>(observed->extra);
    f.saving_basis = "observed memory of the extra processes on GPU 0";
  }
  return {f};
}

}  // namespace vramscope::doctor::rules
