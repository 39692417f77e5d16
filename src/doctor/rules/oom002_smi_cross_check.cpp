// OOM002: a PyTorch out-of-memory message read next to nvidia-smi output of the same machine.
// The message names a GPU by CUDA's index, which CUDA_VISIBLE_DEVICES renumbers; nvidia-smi names
// them by PCI order. So the table may not list that GPU, or list one of another size; when it
// does match, its other processes and its "used" figure say where the memory PyTorch could not
// get went.
#include <fmt/format.h>

#include <cmath>

#include "doctor/likelihood.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

// Capacity in the message is cudaMemGetInfo's total, a little under nvidia-smi's total (the
// driver's reservation); a different GPU model differs by far more than this.
constexpr double capacity_tolerance = 0.10;

struct others_on_gpu {
  std::size_t listed = 0;   // processes nvidia-smi lists on the GPU
  std::size_t unsized = 0;  // of which "N/A": Windows WDDM, some containers
  bytes listed_bytes = 0;   // sum of the sized ones
  bytes own = 0;            // the failing process: "this process has X in use", else PyTorch's reserve
  bytes others = 0;         // listed_bytes - own, floored at 0
};

const observe::gpu_observation* gpu_with_index(const observe::observation& o, int index) {
  for (const auto& g : o.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

// The message does not give its own PID, so the failing process's share is taken from the
// message ("this process has X memory in use", torch >= 2.1, else what PyTorch reserved) and
// the rest of what nvidia-smi lists on the GPU is the other processes'.
others_on_gpu processes_on(const observe::observation& o, int index, const observe::oom_report& oom) {
  others_on_gpu out;
  for (const auto& p : o.processes) {
    if (p.gpu_index != index) continue;
    ++out.listed;
    if (p.used)
      out.listed_bytes += *p.used;
    else
      ++out.unsized;
  }
  for (const auto& p : oom.processes)
    if (!p.pid) out.own = p.used;
  if (out.own == 0) out.own = oom.reserved_by_pytorch.value_or(0);
  out.others = out.listed_bytes > out.own ? out.listed_bytes - out.own : 0;
  return out;
}

finding base(const observe::oom_report& o, int gpu) {
  finding f{"OOM002", {}, severity::info, {}, {}, {}, {}, {}, {}, 0, {}, {}};
  f.evidence.push_back(fmt::format("line {}: tried to allocate {} on GPU {}{}", o.line,
                                   o.requested ? format_bytes(*o.requested) : "?", gpu,
                                   o.capacity ? fmt::format(" of {}", format_bytes(*o.capacity)) : ""));
  return f;
}

finding missing_gpu(const observe::oom_report& o, int gpu, const observe::observation& obs) {
  finding f = base(o, gpu);
  f.level = severity::warning;
  f.evidence.push_back(fmt::format("nvidia-smi lists {} GPU(s), none with index {}", obs.gpus.size(), gpu));
  f.cause = "the table is not of the machine (or the moment) of the failure, or CUDA_VISIBLE_DEVICES "
            "renumbered the GPUs PyTorch sees";
  f.fix = "run nvidia-smi on that machine while the job runs, and match GPUs by bus id "
          "(nvidia-smi --query-gpu=index,pci.bus_id --format=csv)";
  return f;
}

std::optional<finding> capacity_mismatch(const observe::oom_report& o, int gpu, const observe::gpu_observation& g) {
  if (!o.capacity || !g.total || *g.total == 0) return std::nullopt;
  const double ratio = static_cast<double>(*o.capacity) / static_cast<double>(*g.total);
  if (std::abs(1.0 - ratio) <= capacity_tolerance) return std::nullopt;
  finding f = base(o, gpu);
  f.level = severity::warning;
  f.evidence.push_back(fmt::format("nvidia-smi GPU {} ({}) has {} in total", gpu, g.name, format_bytes(*g.total)));
  f.cause = "the message's GPU is not the table's GPU of that index: CUDA_VISIBLE_DEVICES renumbers GPUs "
            "for PyTorch, a MIG instance is a slice of its GPU, or the table comes from another machine";
  f.fix = "match the GPU by bus id (nvidia-smi --query-gpu=index,pci.bus_id,memory.total --format=csv)";
  return f;
}

finding accounted(const observe::oom_report& o, int gpu, const observe::gpu_observation& g,
                  const others_on_gpu& others, const doctor_input& in) {
  const auto& obs = *in.observed;
  const auto listed_on = [&](std::int64_t pid, int index) {
    for (const auto& p : obs.processes)
      if (p.pid == pid && p.gpu_index == index) return true;
    return false;
  };
  finding f = base(o, gpu);
  if (g.used && g.total)
    f.evidence.push_back(fmt::format("nvidia-smi GPU {} ({}): {} used of {}", gpu, g.name, format_bytes(*g.used),
                                     format_bytes(*g.total)));
  if (o.reserved_by_pytorch)
    f.evidence.push_back(fmt::format("PyTorch reserved {} (allocated {})", format_bytes(*o.reserved_by_pytorch),
                                     o.allocated_by_pytorch ? format_bytes(*o.allocated_by_pytorch) : "?"));
  if (others.listed > 0)
    f.evidence.push_back(fmt::format("nvidia-smi lists {} process(es) on GPU {} holding {}{}; less this process's {} "
                                     "leaves {} to the others",
                                     others.listed, gpu, format_bytes(others.listed_bytes),
                                     others.unsized ? fmt::format(" ({} not sized: N/A, as on Windows WDDM)", others.unsized) : "",
                                     format_bytes(others.own), format_bytes(others.others)));
  for (const auto& p : o.processes)
    if (p.pid) f.evidence.push_back(fmt::format("the message names process {} with {}; nvidia-smi {}", *p.pid,
                                                format_bytes(p.used), listed_on(p.pid.value(), gpu) ? "lists it" : "does not list it"));
  if (o.requested && others.others >= *o.requested) {
    f.level = severity::warning;
    f.cause_class = "other_process";
    f.likelihood = likelihood::strong;
    f.support.push_back("nvidia-smi lists other processes on that GPU holding more than the request");
    f.cause = "other processes on this GPU hold more than the failed allocation asked for";
    f.fix = "give each process its own GPU (CUDA_VISIBLE_DEVICES), or stop the others";
    f.saving = static_cast<std::int64_t>(others.others);
    f.saving_basis = "memory nvidia-smi lists on that GPU less this process's share from the message";
  } else if (g.used && o.reserved_by_pytorch && *g.used > *o.reserved_by_pytorch) {
    f.cause_class = "device_overhead";
    f.likelihood = likelihood::weak;
    f.cause = fmt::format("{} of the GPU's use is outside PyTorch's cache: CUDA context, cuBLAS/NCCL "
                          "workspaces and other processes",
                          format_bytes(*g.used - *o.reserved_by_pytorch));
  } else if (!obs.process_table && obs.processes.empty() && !o.reserved_by_pytorch) {
    // Neither the screen (no process list) nor the message (no figures) says whose memory fills
    // the GPU: the table agrees with nothing, so it names no cause.
    f.evidence.push_back("nvidia-smi's screen has no process list and the message gives no figures of its own");
    f.cause = "the paste cannot tell whose memory fills the GPU: this job's or another process's";
    f.fix = "paste nvidia-smi with its process list (or nvidia-smi --query-compute-apps=pid,used_memory "
            "--format=csv) taken while the job runs";
  } else {
    f.cause_class = "does_not_fit";
    f.likelihood = likelihood::possible;
    f.support.push_back("nvidia-smi shows nothing on that GPU beyond this process");
    f.cause = "the table agrees with the message; the job itself needs more memory at that point";
    f.fix = "the smallest change that makes the step fit (" + where_fixes_are_priced(in) + ")";
  }
  return f;
}

std::optional<finding> cross_check(const observe::oom_report& o, const doctor_input& in) {
  const auto& obs = *in.observed;
  if (o.kind != observe::oom_kind::torch) return std::nullopt;
  const int gpu = o.gpu.value_or(0);
  const auto* g = gpu_with_index(obs, gpu);
  if (g == nullptr) return missing_gpu(o, gpu, obs);
  if (auto f = capacity_mismatch(o, gpu, *g)) return f;
  return accounted(o, gpu, *g, processes_on(obs, gpu, o), in);
}

}  // namespace

std::vector<finding> oom_against_nvidia_smi(const doctor_input& in) {
  if (!in.observed || in.observed->gpus.empty()) return {};
  std::vector<finding> out;
  for (const auto& o : in.observed->ooms)
    if (auto f = cross_check(o, in)) out.push_back(std::move(*f));
  return out;
}

}  // namespace vramscope::doctor::rules
