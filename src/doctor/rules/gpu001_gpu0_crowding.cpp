// GPU001: GPU 0 carries other ranks' memory: CUDA contexts created before set_device, and
// checkpoints loaded with torch.load without map_location (restored to cuda:0).
#include <fmt/format.h>

#include <map>
#include <set>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

struct crowding {
  std::string host;  // the machine whose GPU 0 is crowded; empty for a one-machine observation
  std::size_t on_gpu0 = 0, typical = 0;
  bytes extra = 0;  // memory of GPU 0's processes that run mainly elsewhere
  std::string note;  // the evidence, where it is not the per-GPU count
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

// Only GPU 0's rows pasted, or a machine whose other GPUs list nothing: one large process and
// others no larger than a context, each a different rank's context on GPU 0.
std::optional<crowding> contexts_on_gpu0(const observe::observation& o, const std::string& host) {
  std::vector<const observe::process_observation*> on0;
  for (const auto& p : o.processes)
    if (p.gpu_index == 0 && p.host == host) on0.push_back(&p);
  if (on0.size() < 2) return std::nullopt;
  bytes largest = 0, total = 0;
  std::size_t small = 0;
  for (const auto* p : on0) {
    largest = std::max(largest, p->used.value_or(0));
    total += p->used.value_or(0);
  }
  for (const auto* p : on0) small += p->used && *p->used <= likelihood::context_max && *p->used < largest;
  if (small + 1 != on0.size()) return std::nullopt;
  return crowding{host, on0.size(), 1, total - largest,
                  fmt::format("nvidia-smi: GPU 0 lists one workload and {} process(es) the size of a CUDA "
                              "context beside it, {} in all", small, format_bytes(total - largest))};
}

// One process on several GPUs: it created a context on each GPU it touched besides its own.
std::optional<crowding> process_on_several_gpus(const observe::observation& o) {
  std::map<std::pair<std::string, std::int64_t>, std::set<int>> gpus_of;
  for (const auto& p : o.processes)
    if (p.gpu_index && p.pid > 0) gpus_of[{p.host, p.pid}].insert(*p.gpu_index);
  for (const auto& [who, gpus] : gpus_of)
    if (gpus.size() > 1) {
      bytes smallest = 0;
      for (const auto& p : o.processes)
        if (p.host == who.first && p.pid == who.second && p.used && (smallest == 0 || *p.used < smallest))
          smallest = *p.used;
      // One process driving several GPUs with a workload on each (JAX, DataParallel) is not a
      // stray context: only a context-sized share on the other GPU is.
      if (smallest == 0 || smallest > likelihood::context_max) continue;
      return crowding{who.first, gpus.size(), 1, smallest,
                      fmt::format("nvidia-smi: process {} holds memory on {} GPUs, {} of it on one that is not "
                                  "its own (a context)", who.second, gpus.size(), format_bytes(smallest))};
    }
  return std::nullopt;
}

// The GPU readings below are nvidia-smi's screens of the job's processes; a program's own reading
// of a GPU before it allocated anything (gpu_observation::before_own_use: Kaldi's GPU selection,
// which makes its own context on every GPU it looks at) shows no rank's work and is skipped.

// GPU 0 holding a CUDA context's worth (likelihood.hpp) at 0 % utilisation, with no process list
// that shows a workload there: a context and nothing else, which is what a process whose work runs
// on another GPU leaves on the default device (cuda:0) when something initialises CUDA there
// first (a library handle, a tensor created before set_device).
std::optional<crowding> idle_context_on_gpu0(const observe::observation& o) {
  for (const auto& g : o.gpus) {
    if (g.index != 0 || !g.used || *g.used < likelihood::context_min ||
        *g.used > likelihood::context_max || g.utilization_gpu != 0 || g.before_own_use)
      continue;
    bool workload = false;
    for (const auto& p : o.processes)
      workload |= p.gpu_index == 0 && p.host == g.host && p.used.value_or(0) > likelihood::context_max;
    if (workload) continue;
    return crowding{g.host, 1, 0, *g.used,
                    fmt::format("nvidia-smi: GPU 0 holds {} at 0 % utilisation: the size of a CUDA context ({} to "
                                "{}) and nothing running",
                                format_bytes(*g.used), format_bytes(likelihood::context_min),
                                format_bytes(likelihood::context_max))};
  }
  return std::nullopt;
}

// One process holding a workload on GPU 0 and on every other GPU it uses (each share above a
// context), GPU 0's share above every other by more than a context and by less than one more
// share: a single process driving several GPUs, which keeps what it does not split on its first
// device: torch.nn.DataParallel the module, its gradients, optimizer state and the gathered
// outputs (data_parallel.py, output_device defaults to device_ids[0]); MXNet's module with a
// device kvstore the aggregated gradients and weights it updates; Keras' multi_gpu_model the
// template model. JAX's client, which takes the same fraction on each GPU, is not so shaped.
std::optional<crowding> one_process_heavier_on_gpu0(const observe::observation& o) {
  std::map<std::pair<std::string, std::int64_t>, std::map<int, bytes>> shares;
  for (const auto& p : o.processes)
    if (p.gpu_index && p.pid > 0 && p.used) shares[{p.host, p.pid}][*p.gpu_index] += *p.used;
  for (const auto& [who, on] : shares) {
    if (on.size() < 2 || !on.count(0)) continue;
    const bytes first = on.at(0);
    bytes least = 0, most = 0;
    bool workloads = first > likelihood::context_max;
    for (const auto& [gpu, used] : on) {
      if (gpu == 0) continue;
      workloads &= used > likelihood::context_max;
      least = least == 0 ? used : std::min(least, used);
      most = std::max(most, used);
    }
    if (!workloads || first < most + likelihood::context_min || first - most >= least) continue;
    return crowding{
        who.first, on.size(), 1, first - most,
        fmt::format("nvidia-smi: process {} works on {} GPUs and holds {} on GPU 0, {} more "
                    "than on any other (those hold {} to {})",
                    who.second, on.size(), format_bytes(first), format_bytes(first - most),
                    format_bytes(least), format_bytes(most))};
  }
  return std::nullopt;
}

// GPU rows without a process list, where every GPU of one machine (same model and size) holds a
// workload, the GPUs other than 0 within equal_ranks_spread of each other, and GPU 0 above all of
// them by more than a context but by less than one more rank's share: the ranks of one
// data-parallel job, each on its GPU, with what they also left on GPU 0 (contexts created before
// set_device, a checkpoint restored to cuda:0). Another job on GPU 0 would not be bounded so.
std::optional<crowding> gpu0_above_equal_ranks(const observe::observation& o) {
  if (!o.processes.empty()) return std::nullopt;
  for (const auto& g0 : o.gpus) {
    if (g0.index != 0 || !g0.used || !g0.total || g0.before_own_use) continue;
    std::size_t others = 0;
    bytes least = 0, most = 0;
    bool same_job = true;
    for (const auto& g : o.gpus) {
      if (&g == &g0 || g.host != g0.host || !g.index || *g.index == 0 || !g.used) continue;
      same_job &= g.total == g0.total && g.name == g0.name && *g.used > likelihood::context_max;
      least = others ? std::min(least, *g.used) : *g.used;
      most = std::max(most, *g.used);
      ++others;
    }
    if (!others || !same_job ||
        static_cast<double>(most) > static_cast<double>(least) * likelihood::equal_ranks_spread)
      continue;
    if (*g0.used < most + likelihood::context_min || *g0.used - most >= least) continue;
    return crowding{g0.host, 1, 1, *g0.used - most,
                    fmt::format("GPU 0 holds {}, {} more than the {} other GPU(s) of the machine, which hold {} "
                                "to {} each: ranks of one job, with {} more on GPU 0",
                                format_bytes(*g0.used), format_bytes(*g0.used - most), others,
                                format_bytes(least), format_bytes(most), format_bytes(*g0.used - most))};
  }
  return std::nullopt;
}

// GPU rows without a process list, one machine: GPU 0 holds a workload while every other GPU
// holds no more than contexts. A job of n processes, one per GPU, leaves at most one context
// (context_max, likelihood.hpp) per process on a GPU it touched but does not work on, so at
// most n x context_max there, n the machine's GPUs in the paste; something on each other GPU
// (context_min or more) says the job's processes did touch it. The work they should have spread
// over the GPUs all landed on GPU 0, the default device (ranks or instances that never chose
// theirs). Another job filling GPU 0 beside GPUs that hold nothing is PROC001's reading. Where
// the same GPU is pasted more than once (before and after a load), its last reading counts.
std::optional<crowding> work_on_gpu0_contexts_elsewhere(const observe::observation& o) {
  if (!o.processes.empty()) return std::nullopt;
  std::map<std::pair<std::string, int>, const observe::gpu_observation*> last;
  for (const auto& g : o.gpus)
    if (g.index && g.used && !g.before_own_use) last[{g.host, *g.index}] = &g;
  std::set<std::string> hosts;
  for (const auto& [key, g] : last) hosts.insert(key.first);
  for (const auto& host : hosts) {
    const auto zero = last.find({host, 0});
    if (zero == last.end()) continue;
    const auto& g0 = *zero->second;
    std::size_t n = 0;
    for (const auto& [key, g] : last) n += key.first == host;
    if (n < 2) continue;
    const bytes contexts_max = static_cast<bytes>(n) * likelihood::context_max;
    if (*g0.used <= contexts_max) continue;
    bool contexts_only = true;
    bytes elsewhere = 0, most = 0;
    for (const auto& [key, g] : last) {
      if (key.first != host || key.second == 0) continue;
      contexts_only &= g->name == g0.name && g->total == g0.total &&
                       *g->used >= likelihood::context_min && *g->used <= contexts_max;
      elsewhere += *g->used;
      most = std::max(most, *g->used);
    }
    if (!contexts_only) continue;
    // What GPU 0 holds beyond an even share of the machine's memory in use.
    const bytes even = (*g0.used + elsewhere) / static_cast<bytes>(n);
    return crowding{
        host, 1, 0, *g0.used - even,
        fmt::format(
            "GPU 0 holds {} while the other {} GPU(s) of the machine hold {} at most: no more "
            "than one CUDA context ({} to {}) for each of {} processes",
            format_bytes(*g0.used), n - 1, format_bytes(most),
            format_bytes(likelihood::context_min), format_bytes(likelihood::context_max), n)};
  }
  return std::nullopt;
}

// A paste that counts the processes on each GPU (observation::process_count): a line where every
// GPU lists more processes than the line before, by the same number, says that what ran between
// them (an import, a library's initialisation) opened a CUDA context on every visible device; a
// process of a one-GPU-per-process job needs one on its own only (reference/fsdp-ddp.md 5: "every
// process takes memory on every GPU", pytorch #64130). The saving is one context
// (context_min, the lazy-loading size) on each GPU but the process's own, per process added.
std::optional<crowding> contexts_counted_on_every_gpu(const observe::observation& o) {
  const observe::observation::process_count* before = nullptr;
  for (const auto& c : o.process_counts) {
    const bool same_list =
        before && before->source == c.source && before->per_gpu.size() == c.per_gpu.size();
    if (same_list && c.per_gpu.size() >= 2) {
      const int rise = c.per_gpu.front() - before->per_gpu.front();
      bool all_rose = rise > 0;
      for (std::size_t i = 0; i < c.per_gpu.size(); ++i)
        all_rose &= c.per_gpu[i] - before->per_gpu[i] == rise;
      if (all_rose) {
        const std::size_t gpus = c.per_gpu.size();
        return crowding{
            {},
            static_cast<std::size_t>(c.per_gpu.front()),
            1,
            static_cast<bytes>(rise) * static_cast<bytes>(gpus - 1) * likelihood::context_min,
            fmt::format(
                "{} line {}: \"{}\" counts {} more process(es) on each of the {} GPUs than the "
                "line before: a context opened on every visible device",
                c.source, c.line, c.label, rise, gpus)};
      }
    }
    before = &c;
  }
  return std::nullopt;
}

// A CUDA error raised outside every allocator (a library handle or workspace, a context) while
// the paste shows GPU 0 with less free than one context needs (context_max, likelihood.hpp): such
// calls run on the current device, which is GPU 0 until the program chooses another, so a job
// meant for another GPU fails there when someone else fills GPU 0 (pytorch #15308's serialisation,
// a library called without torch.cuda.device). The paste does not say which GPU the job chose:
// weak, a reading beside other processes (PROC001), not above it.
std::optional<crowding> library_call_on_full_gpu0(const observe::observation& o) {
  bool outside = false;
  for (const auto& r : o.ooms) outside |= r.origin == observe::oom_origin::outside_allocator;
  if (!outside) return std::nullopt;
  for (const auto& g : o.gpus) {
    if (g.index != 0 || !g.used || !g.total || *g.total < *g.used || g.before_own_use) continue;
    const bytes free = *g.total - *g.used;
    if (free >= likelihood::context_max) continue;
    return crowding{
        g.host, 1, 0, 0,
        fmt::format("a CUDA error outside the allocator while nvidia-smi shows GPU 0 with {} free "
                    "of {}: less than a CUDA context or a library's workspace takes ({} at most)",
                    format_bytes(free), format_bytes(*g.total),
                    format_bytes(likelihood::context_max))};
  }
  return std::nullopt;
}

// Machines are told apart by host (GPU 0 of one node is not GPU 0 of another): the machine
// whose GPU 0 carries the most memory of other ranks.
std::optional<crowding> observed_crowding(const observe::observation& o) {
  std::set<std::string> hosts;
  for (const auto& p : o.processes) hosts.insert(p.host);
  std::optional<crowding> worst;
  for (const auto& host : hosts) {
    auto c = crowding_on(o, host);
    if (!c) c = contexts_on_gpu0(o, host);
    if (c && (!worst || c->extra > worst->extra)) worst = std::move(c);
  }
  if (!worst) worst = process_on_several_gpus(o);
  return worst;
}

// An out-of-memory message on GPU 0 that names other processes, each the size of a context:
// other ranks' contexts (likelihood.hpp, context_max).
std::optional<bytes> contexts_in_message(const observe::observation& o, std::vector<std::string>& evidence) {
  std::optional<bytes> held;
  for (const auto& r : o.ooms) {
    if (r.kind != observe::oom_kind::torch || r.gpu.value_or(0) != 0) continue;
    const auto facts = facts_of(r);
    if (!facts.others_are_contexts()) continue;
    bytes sum = 0;
    for (const auto& p : facts.others) sum += p.used;
    evidence.push_back(fmt::format("{} names {} other process(es) on GPU 0 holding {}, each no larger than a "
                                   "CUDA context", where(r), facts.others.size(), format_bytes(sum)));
    held = std::max(held.value_or(0), sum);
  }
  return held;
}

// An out-of-memory message on GPU 0 that names three or more other processes of the same size
// (within equal_ranks_spread), each larger than a context: the ranks of one data-parallel job,
// which hold the same model and state, all placed on GPU 0 (a model moved to "cuda" or cuda:0
// in every rank). Processes that share a GPU for other reasons (test workers, other users' jobs)
// differ in size. The saving is what all but one of them hold there.
std::optional<bytes> equal_ranks_in_message(const observe::observation& o,
                                            std::vector<std::string>& evidence) {
  std::optional<bytes> extra;
  for (const auto& r : o.ooms) {
    if (r.kind != observe::oom_kind::torch || r.gpu.value_or(0) != 0) continue;
    const auto facts = facts_of(r);
    if (facts.others.size() < 3) continue;
    bytes least = facts.others.front().used, most = least, sum = 0;
    for (const auto& p : facts.others) {
      least = std::min(least, p.used);
      most = std::max(most, p.used);
      sum += p.used;
    }
    if (least <= likelihood::context_max ||
        static_cast<double>(most) > static_cast<double>(least) * likelihood::equal_ranks_spread)
      continue;
    evidence.push_back(fmt::format("{} names {} other processes on GPU 0 holding {} to {} each: "
                                   "the same state in every one, as the ranks of one data-parallel "
                                   "job hold",
                                   where(r), facts.others.size(), format_bytes(least),
                                   format_bytes(most)));
    extra = std::max(extra.value_or(0), sum - most);
  }
  return extra;
}

// An out-of-memory message of a rank other than 0 that failed on GPU 0 beside other processes:
// rank N's tensors belong on GPU N, so its allocation on GPU 0 is one made before (or without)
// set_device, where the processes the message names already are. A rank that sees only its own
// GPU (CUDA_VISIBLE_DEVICES per rank) calls it GPU 0 as well; the finding says so.
std::optional<bytes> rank_on_gpu0_in_message(const observe::observation& o, std::vector<std::string>& evidence) {
  for (const auto& r : o.ooms) {
    if (r.kind != observe::oom_kind::torch || r.gpu.value_or(-1) != 0 || r.rank.value_or(0) == 0) continue;
    const auto facts = facts_of(r);
    if (facts.others.empty()) continue;
    bytes sum = 0, largest = 0;
    for (const auto& p : facts.others) {
      sum += p.used;
      largest = std::max(largest, p.used);
    }
    evidence.push_back(fmt::format("{}: rank {} failed allocating on GPU 0, which {} other process(es) hold {} "
                                   "of", where(r), *r.rank, facts.others.size(), format_bytes(sum)));
    return largest;
  }
  return std::nullopt;
}

// torch.nn.DataParallel at work in the lines before a message on GPU 0 (or on a GPU the cut
// message does not number): a frame of torch/nn/parallel's data_parallel, parallel_apply,
// scatter_gather or _functions, or the warning its Gather prints when a replica returns a scalar
// loss. DataParallel keeps the module, its gradients and optimizer state on its first device,
// copies the module to every other GPU at each forward and gathers every replica's outputs back
// onto the first (torch/nn/parallel/data_parallel.py, output_device defaults to device_ids[0]):
// GPU 0 holds more than the others. The line that shows it, empty when none.
std::string data_parallel_before(const observe::oom_report& r) {
  if (r.kind != observe::oom_kind::torch || r.gpu.value_or(0) != 0) return "";
  for (const auto& line : r.context)
    for (const char* mark : {"nn/parallel/data_parallel.py", "nn/parallel/parallel_apply.py",
                             "nn/parallel/scatter_gather.py", "nn/parallel/_functions.py",
                             "Was asked to gather along dimension 0"})
      if (line.find(mark) != std::string::npos) return line;
  return "";
}

bool crowds_gpu0(const job::job_spec& j) {
  return j.world_size() > 1 &&
         (!j.init.set_device_first || (j.init.load == job::weight_load::all_ranks && j.init.map_location != "cpu"));
}

}  // namespace

// Two or more ranks of a distributed program whose own lines say they all use device 0
// (observation::rank_device): device 0 is CUDA's current device until a process sets another
// (CUDA Runtime API, cudaSetDevice; CuPy's cupy.cuda.Device, torch.cuda.current_device), so
// ranks that never chose theirs all put their pools and contexts on GPU 0. One step above
// possible, not likely: a rank that sees only its own GPU (CUDA_VISIBLE_DEVICES set per rank, a
// scheduler's per-worker GPU) calls it device 0 as well, and the lines say neither which nor how
// many GPUs the machine has.
std::optional<finding> ranks_all_on_device0(const observe::observation& o) {
  if (o.rank_devices.size() < 2) return std::nullopt;
  for (const auto& r : o.rank_devices)
    if (r.device != 0) return std::nullopt;
  const auto& first = o.rank_devices.front();
  finding f{"GPU001",
            {},
            severity::warning,
            {},
            {},
            {},
            {},
            {},
            "gpu0_crowding",
            likelihood::possible + likelihood::step,
            {},
            {}};
  f.evidence.push_back(fmt::format("{} line {} on: {} ranks each report device 0", first.source,
                                   first.line, o.rank_devices.size()));
  // The ranks' own pools on device 0, where their lines give them (a CuPy pool's total_bytes):
  // what all but the largest hold there is what giving each rank its own GPU moves off GPU 0.
  std::vector<bytes> pools;
  for (const auto& r : o.rank_devices)
    if (r.pool_held) pools.push_back(*r.pool_held);
  if (pools.size() >= 2) {
    bytes sum = 0;
    for (const bytes p : pools) sum += p;
    const bytes largest = *std::max_element(pools.begin(), pools.end());
    f.evidence.push_back(fmt::format("their pools on device 0 hold {} together ({} ranks)",
                                     format_bytes(sum), pools.size()));
    f.saving = static_cast<std::int64_t>(sum - largest);
    f.saving_basis = "what the ranks' pools hold on GPU 0 but the largest one";
  }
  f.support.push_back(
      "device 0 is the current device of every process that does not choose one: ranks that never "
      "set their device all allocate on GPU 0");
  f.against.push_back(
      fmt::format("the lines do not say how many GPUs the machine has{}: on a one-GPU "
                  "machine sharing it is the only choice, and then the job does not fit",
                  pools.size() >= 2 ? "" : " nor what each rank holds"));
  f.against.push_back(
      "a rank that sees only its own GPU (CUDA_VISIBLE_DEVICES set per rank, a scheduler's "
      "per-worker "
      "GPU) calls it device 0 as well: the lines do not say which physical GPU each rank has");
  f.cause =
      "every rank runs on GPU 0, the default device, because none selected its own GPU before its "
      "first "
      "CUDA allocation; their pools and contexts crowd that one GPU while the others stay idle";
  f.fix =
      "give each rank its own GPU before any CUDA work: its device from the rank "
      "(cupy.cuda.Device(rank % "
      "n).use(), torch.cuda.set_device(local_rank)) or CUDA_VISIBLE_DEVICES per rank; free each "
      "rank's "
      "unused pool memory between steps (CuPy: mempool.free_all_blocks())";
  return f;
}

std::vector<finding> gpu0_crowding(const doctor_input& in) {
  if (!in.job && in.observed)
    if (auto f = ranks_all_on_device0(*in.observed)) return {std::move(*f)};
  auto observed = in.observed ? observed_crowding(*in.observed) : std::nullopt;
  // A lone idle context on GPU 0 is a weaker reading: what else runs, and where, is not shown.
  auto idle = in.observed && !observed ? idle_context_on_gpu0(*in.observed) : std::nullopt;
  // GPU 0 above equal ranks: likely, not strong, as no process list says whose memory it is.
  bool above_ranks = false;
  if (in.observed && !observed && !idle)
    if ((idle = gpu0_above_equal_ranks(*in.observed))) above_ranks = true;
  // GPU 0 working while the other GPUs hold contexts, or contexts counted on every GPU: likely,
  // as above; the paste does not name the processes.
  if (in.observed && !observed && !idle) {
    auto seen = work_on_gpu0_contexts_elsewhere(*in.observed);
    const bool counted = !seen;
    if (counted) seen = contexts_counted_on_every_gpu(*in.observed);
    if (seen) {
      finding f{"GPU001", {}, severity::warning, {seen->note},       {}, {},
                {},       {}, "gpu0_crowding",   likelihood::likely, {}, {}};
      if (counted) {
        f.support.push_back(
            "a process of a one-GPU-per-process job needs a context on its own GPU only; one on "
            "every GPU is a device touched before the process chose its own");
        f.against.push_back(
            "counts only: which processes they are and what each holds are not in the paste");
        f.cause =
            "a step of every process (an import, a library's initialisation) opened a CUDA context "
            "on every "
            "visible GPU before the process was pinned to its own";
        f.fix =
            "pin each process to its GPU before CUDA starts: CUDA_VISIBLE_DEVICES=<local rank> set "
            "before the "
            "imports, or torch.cuda.set_device(local_rank) first thing";
        f.saving_basis = "one CUDA context per added process on each GPU but its own";
      } else {
        f.support.push_back(
            "the other GPUs hold what the job's processes leave on a GPU they touched but do not "
            "work on; the work meant for them is on GPU 0");
        f.against.push_back(
            "the paste lists no processes: a single-GPU job beside idle contexts of another "
            "program reads the same");
        f.cause =
            "the job's processes (ranks, model instances) all put their work on GPU 0, the default "
            "device, "
            "because none chose its own GPU before its first CUDA call; the other GPUs only got "
            "their "
            "contexts";
        f.fix =
            "give each process its own GPU: CUDA_VISIBLE_DEVICES=<rank> per process, or "
            "torch.cuda.set_device(local_rank) before any CUDA work";
        f.saving_basis =
            "what GPU 0 holds beyond an even share of the memory in use on the machine's GPUs";
      }
      f.saving = static_cast<std::int64_t>(seen->extra);
      return {f};
    }
  }
  if (in.observed && !observed && !idle)
    if (auto full = library_call_on_full_gpu0(*in.observed)) {
      finding f{"GPU001", {}, severity::warning, {full->note},     {}, {},
                {},       {}, "gpu0_crowding",   likelihood::weak, {}, {}};
      f.support.push_back(
          "a library call or context creation runs on the current device, GPU 0 until the "
          "program sets another");
      f.against.push_back(
          "the paste does not say which GPU the job chose: on GPU 0 itself, other processes "
          "filling it (PROC001) read the same");
      f.cause =
          "a call outside the allocator (a cuBLAS / cuDNN handle, a library's workspace, a "
          "context) ran on "
          "GPU 0, the default device, which another job fills, while the job works on another GPU";
      f.fix =
          "torch.cuda.set_device(N) (or a torch.cuda.device(N) context around the library call), "
          "or "
          "CUDA_VISIBLE_DEVICES=N so that GPU 0 is not visible";
      return {f};
    }
  if (in.observed && !observed && !idle)
    if (auto one = one_process_heavier_on_gpu0(*in.observed)) {
      finding f{"GPU001", {}, severity::warning, {one->note},        {}, {},
                {},       {}, "gpu0_crowding",   likelihood::likely, {}, {}};
      f.support.push_back(
          "one process over several GPUs keeps on its first GPU what it does not split (the "
          "model's master copy, the gathered outputs or the reduced gradients): GPU 0 holds more "
          "than the others by less than another GPU's share");
      f.against.push_back(
          "the paste does not name the program: a process that puts a larger part of its work on "
          "GPU 0 on purpose reads the same");
      f.cause =
          "a single process drives every GPU (torch.nn.DataParallel, MXNet's module with a device "
          "kvstore, Keras' multi_gpu_model) with GPU 0 as its master device, so GPU 0 fills first";
      f.fix =
          "one process per GPU (DistributedDataParallel via torchrun --nproc_per_node N; "
          "Horovod or MXNet's dist_device_sync / nccl kvstore), which holds an equal share on "
          "each GPU; or gather the outputs on another device (DataParallel's output_device)";
      f.saving = static_cast<std::int64_t>(one->extra);
      f.saving_basis = "what GPU 0 holds beyond the process's largest share on another GPU";
      return {f};
    }
  if (in.observed && !observed && !idle)
    for (const auto& r : in.observed->ooms) {
      const std::string shown = data_parallel_before(r);
      if (shown.empty()) continue;
      finding f{
          "GPU001", {}, severity::warning, {}, {}, {}, {}, {}, "gpu0_crowding", likelihood::likely,
          {},       {}};
      f.evidence.push_back(
          fmt::format("{}: torch.nn.DataParallel before the failure ({})", where(r), shown));
      f.support.push_back(
          "DataParallel keeps the model, its gradients and the optimizer's state on the first GPU "
          "and gathers every replica's outputs there: GPU 0 fills before the others");
      f.against.push_back(
          "the message shows GPU 0 only: how much less the other GPUs hold is not in the paste, "
          "and a model too large for one GPU fails there as well");
      f.cause =
          "torch.nn.DataParallel (a Trainer or script that sees several GPUs in one process uses "
          "it) runs one process over all visible GPUs with GPU 0 as the master: the full model "
          "state and the gathered outputs crowd GPU 0";
      f.fix =
          "one process per GPU with DistributedDataParallel (torchrun --nproc_per_node N, or "
          "accelerate launch), which holds an equal share on each GPU; or CUDA_VISIBLE_DEVICES "
          "to a single GPU when one is enough";
      return {f};
    }
  std::vector<std::string> message_evidence;
  auto in_message = in.observed ? contexts_in_message(*in.observed, message_evidence) : std::nullopt;
  if (!in_message && in.observed) in_message = equal_ranks_in_message(*in.observed, message_evidence);
  const bool rank_elsewhere = !in_message && in.observed &&
                              (in_message = rank_on_gpu0_in_message(*in.observed, message_evidence));
  const bool job_risk = in.job && crowds_gpu0(*in.job);
  if (!observed && !job_risk && !in_message && !idle) return {};
  if (idle && !observed && !in_message && !job_risk) {
    finding f{"GPU001", {}, severity::warning, {idle->note}, {}, {}, {}, {}, "gpu0_crowding",
              above_ranks ? likelihood::likely : likelihood::possible, {}, {}};
    if (above_ranks) {
      f.support.push_back("the other GPUs hold the same, as ranks of one job do; GPU 0 holds more, but less than "
                          "another rank's share: what the ranks also put on the default device");
      f.against.push_back("the paste lists no processes: a small job of someone else's on GPU 0 reads the same");
    } else {
      f.support.push_back("a context on GPU 0 with nothing running is what a process working on another GPU "
                          "leaves on the default device");
      f.against.push_back("the paste does not show where the process's work runs");
    }
    f.cause = "a process whose work runs on another GPU initialised CUDA on GPU 0, the default device (a tensor, "
              "a cuDNN or cuBLAS handle created before the device was chosen), and its context stays there";
    f.fix = "torch.cuda.set_device(N) (or CUDA_VISIBLE_DEVICES=N) before any CUDA work, so that nothing runs on "
            "the default GPU";
    if (above_ranks) {
      f.cause = "the ranks put more on GPU 0 than on their own GPUs: contexts of ranks that touch CUDA before "
                "torch.cuda.set_device(local_rank), or a checkpoint torch.load restores to cuda:0 in every rank";
      f.fix = "torch.cuda.set_device(local_rank) (or CUDA_VISIBLE_DEVICES per rank) before any CUDA work; "
              "torch.load(path, map_location=\"cpu\")";
    }
    f.saving = static_cast<std::int64_t>(idle->extra);
    f.saving_basis = above_ranks ? "what GPU 0 holds beyond the other GPUs" : "the context on GPU 0";
    return {f};
  }
  finding f{"GPU001", {}, severity::warning, {}, {}, {}, {}, {}, "gpu0_crowding",
            observed ? likelihood::strong : in_message ? likelihood::likely : likelihood::possible, {}, {}};
  for (auto& e : message_evidence) f.evidence.push_back(std::move(e));
  if (observed) f.support.push_back("nvidia-smi: GPU 0 lists processes whose own GPU is another");
  if (rank_elsewhere) {
    f.support.push_back("a rank other than 0 allocating on GPU 0: its work belongs on its own GPU");
    f.against.push_back("a rank that sees only its own GPU (CUDA_VISIBLE_DEVICES per rank) calls it GPU 0 too; "
                        "the message does not say which");
  } else if (in_message) {
    f.support.push_back("the out-of-memory message on GPU 0 names other ranks' contexts or their "
                        "whole state");
  }
  if (job_risk) {
    f.support.push_back("the job touches CUDA before set_device or loads checkpoints without map_location");
    if (observed || in_message) f.likelihood += likelihood::step;
  }
  if (observed && !observed->note.empty())
    f.evidence.push_back(observed->note);
  else if (observed)
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
  auto after = replan(in, fix);
  // A risk in the job that the plan shows costs nothing here (a JAX job, a job that loads no
  // checkpoint) is no finding without an observation of it.
  if (!observed && !in_message && (!after || after->saving <= 0)) return {};
  if (after && after->saving > 0) {
    f.saving = after->saving;
    f.saving_basis = replan_basis(fix);
  } else if (observed) {
    f.saving = static_cast<std::int64_t>(observed->extra);
    f.saving_basis = "observed memory of the extra processes on GPU 0";
  } else if (in_message) {
    f.saving = static_cast<std::int64_t>(*in_message);
    f.saving_basis = rank_elsewhere ? "what the largest other process the message names holds on GPU 0"
                                    : "memory of the other processes the message names on GPU 0";
  }
  return {f};
}

}  // namespace vramscope::doctor::rules
