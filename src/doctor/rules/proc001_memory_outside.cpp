// PROC001: memory on the GPU that this process does not hold: another job, a stale or zombie
// run, a notebook kernel, a display server. Every out-of-memory message gives enough to compute
// it (capacity - free - this process's use), older messages without a process list too; an
// nvidia-smi screen shows it as large processes that belong to no rank of the job, or as used
// memory no listed process accounts for (processes of other containers).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

constexpr const char* fix_listed =
    "free the GPU: stop the other process (a stale or zombie run of yours: kill PID; a notebook: restart "
    "its kernel), or run on a GPU nothing else uses (CUDA_VISIBLE_DEVICES=N); list who holds it with "
    "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv";

std::optional<finding> from_message(const oom_facts& o) {
  // Processes the message names are other processes, whatever their size: a context's worth is
  // read as other ranks' (GPU001) first, and as this reading after it.
  if (!o.outside || (*o.outside <= o.outside_floor() && !o.outside_within_nccl() && o.others.empty()))
    return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process", lk::weak, {}, {}};
  const bytes used = *o.capacity - std::min(*o.capacity, o.free.value_or(0));
  const char* own_basis = !o.own_estimated              ? "as the message says"
                          : o.report->malloc_async ? "its tensors plus a context at most"
                                                   : "its cache plus a context at most";
  f.evidence.push_back(fmt::format("{}: {} of {} in use, this process {} ({}), {} held outside it",
                                   where(*o.report), format_bytes(used), format_bytes(*o.capacity),
                                   format_bytes(*o.own), own_basis, format_bytes(*o.outside)));
  for (const auto& p : o.others)
    f.evidence.push_back(fmt::format("the message names process {} with {}", p.pid.value_or(0), format_bytes(p.used)));
  if (o.outside_covers()) {
    f.likelihood = o.own_estimated ? lk::likely : lk::strong;
    f.support.push_back(fmt::format("the memory held outside this process ({}) would have served the "
                                    "request ({})", format_bytes(*o.outside), size_or_unknown(o.requested)));
  } else if (o.outside_within_nccl()) {
    f.likelihood = lk::possible;
    f.support.push_back(fmt::format("the memory held outside this process's {} and one context ({}) would have "
                                    "served the request ({})",
                                    o.report->malloc_async ? "tensors" : "cache", format_bytes(*o.outside),
                                    size_or_unknown(o.requested)));
    f.against.push_back(fmt::format("the message does not say what the process holds outside its allocator: a "
                                    "distributed job's NCCL buffers (up to {}) would account for it",
                                    format_bytes(lk::nccl_buffers_max)));
  } else if (!o.others.empty() && o.requested && *o.outside + o.free.value_or(0) >= *o.requested) {
    // Below the floor, but measured: the processes the message names hold it, no estimate.
    f.likelihood = lk::possible;
    f.support.push_back(fmt::format("the processes the message names hold {}, which with the free memory would "
                                    "have served the request ({})",
                                    format_bytes(*o.outside), format_bytes(*o.requested)));
  } else {
    f.against.push_back("even freed, the memory outside this process would not have served the request");
  }
  if (*o.outside > *o.own) {
    f.likelihood += lk::step;
    f.support.push_back("others hold more of the GPU than this process does");
  }
  if (o.others_are_contexts()) {
    f.likelihood -= 2 * lk::step;
    f.against.push_back("the other processes are each the size of a CUDA context: other ranks (GPU001)");
  }
  f.cause = o.others.empty()
                ? "memory on this GPU is held outside this process (another job, a stale or zombie run, a "
                  "notebook kernel): the message counts it as neither free nor this process's"
                : "other processes on this GPU hold memory this process needs";
  f.fix = fix_listed;
  if (auto own = runtime_fix(o.allocator, fix_kind::other_processes); !own.empty())
    f.fix += "; or " + own;
  f.saving = static_cast<std::int64_t>(*o.outside);
  f.saving_basis = "memory held outside this process at the failure (capacity - free - this process's use)";
  return f;
}

// A message with no figures whose failed call says the memory was gone before the job held any:
// creating a CUDA context needs context_min to context_max (likelihood.hpp) and is the first
// thing a process does on a GPU, so a GPU that cannot give a context that much is held by other
// processes (or a driver that has not released a dead one's memory). A runtime or library call
// outside every allocator may fail the same way, or for the job's own pool: possible only.
std::optional<finding> from_failed_call(const observe::oom_report& r) {
  if (r.origin == observe::oom_origin::allocator ||
      (r.kind == observe::oom_kind::xla && r.origin != observe::oom_origin::context_creation))
    return std::nullopt;
  const bool context = r.origin == observe::oom_origin::context_creation;
  finding f{"PROC001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process",
            context ? lk::strong : lk::possible, {}, {}};
  f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
  if (r.capacity) f.evidence.push_back(fmt::format("the GPU's total memory: {}", format_bytes(*r.capacity)));
  if (r.capacity && r.free)
    f.evidence.push_back(fmt::format("free when the device was created: {} of {}", format_bytes(*r.free),
                                     format_bytes(*r.capacity)));
  if (context) {
    f.support.push_back(fmt::format("creating a CUDA context ({} to {}) failed: the GPU was full before this process "
                                    "held anything", format_bytes(lk::context_min), format_bytes(lk::context_max)));
  } else {
    f.support.push_back("a CUDA call outside the framework's allocator ran out: memory the framework does not hold "
                        "was gone");
    f.against.push_back("the message gives no figures: the process's own pool may have taken the GPU");
  }
  f.cause = "memory on this GPU is held by other processes (another user's job, a stale or zombie run, a "
            "notebook kernel), so not even the CUDA context or library workspace this process needs fits";
  f.fix = fix_listed;
  // What the device's creation measured (TensorFlow's "Total memory" / "Free memory", read after
  // its own context was made): in use then was the other processes' memory and this process's
  // context, which holds at most context_max (likelihood.hpp), the bound from_message takes for
  // its own context too. Stopping the others releases the rest; a message without the two
  // figures has no basis for a number and states none.
  if (context && r.capacity && r.free && *r.capacity > *r.free + lk::context_max) {
    f.saving = static_cast<std::int64_t>(*r.capacity - *r.free - lk::context_max);
    f.saving_basis = fmt::format(
        "memory in use when the device was created (total - free) less this process's "
        "own context (at most {}): what the other processes held",
        format_bytes(lk::context_max));
  }
  return f;
}

// Another framework's allocator (PaddlePaddle's "Cannot allocate X ... available memory is only
// Z") refusing a request of the small pool's size (below small_request_max, likelihood.hpp) with
// less than that available: a program that filled the GPU itself would fail on a sizeable request
// first, and its next tiny one would find the pieces its own frees left. A
// GPU with nothing left for a few kilobytes was full before, held by other processes; the
// figure the message gives for what the process allocated is read only where the GPU could hold
// it (PaddlePaddle prints an underflowed counter, 127.99 TB, at start-up).
std::optional<finding> from_tiny_refusal(const observe::oom_report& r) {
  if (r.kind != observe::oom_kind::cuda || r.origin != observe::oom_origin::allocator || !r.requested ||
      !r.free || *r.requested >= lk::small_request_max || *r.free >= lk::small_request_max)
    return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process", lk::likely, {}, {}};
  f.evidence.push_back(fmt::format("{}: tried to allocate {} with {} available", where(r),
                                   format_bytes(*r.requested), format_bytes(*r.free)));
  f.support.push_back(fmt::format("a request of {} refused: less than a small-pool request ({}) was left, which a "
                                  "job that filled the GPU itself does not reach before a sizeable request fails",
                                  format_bytes(*r.requested), format_bytes(lk::small_request_max)));
  f.against.push_back("the message does not say what this process held: a job near its own limit may end on a "
                      "tiny request too");
  f.cause = "memory on this GPU is held by other processes (a hidden or stale run of the same program, another "
            "user's job), so not even a few kilobytes were left for this process";
  f.fix = fix_listed;
  return f;
}

// TensorFlow's pool takes the memory free when the device is created, unless allow_growth or a
// memory fraction is set (gpu/gpu_device.cc; GPUOptions in protobuf/config.proto): memory other
// processes held then makes the pool smaller, and the pool's error reads the same either way. A
// paste without what was free at the device's creation (the "Found device ... freeMemory" lines)
// cannot rule them out; with it, tf_region's reading applies (from_failed_call). The pool's own
// request to the driver failing ("failed to allocate ... from device: CUDA_ERROR_OUT_OF_MEMORY")
// outside the device's creation is a pool growing on demand (allow_growth), whose size was not
// fixed then: not this reading.
std::optional<finding> from_tensorflow_pool(const observe::oom_report& r) {
  if (r.kind != observe::oom_kind::xla || !r.tensorflow || r.origin != observe::oom_origin::allocator ||
      r.free || r.raw.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos)
    return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process", lk::weak, {}, {}};
  f.evidence.push_back(fmt::format("{}: TensorFlow's pool ran out, tried to allocate {}", where(r),
                                   size_or_unknown(r.requested)));
  f.support.push_back("TensorFlow sizes its pool from the memory free when the device is created: memory other "
                      "processes held then leaves the pool that much smaller");
  f.against.push_back("the paste does not show what was free when the device was created (TensorFlow's \"Found "
                      "device\" lines), so neither this nor the job's own size is shown");
  // A request of the small pool's size (below small_request_max, likelihood.hpp) refused: as
  // from_tiny_refusal reads another framework's allocator, a program that filled the pool itself
  // fails on a sizeable request first; a pool with not even this left was small from the start.
  if (r.requested && *r.requested < lk::small_request_max) {
    f.likelihood = lk::likely;
    f.support.push_back(
        fmt::format("a request of {} refused: the pool had less than a small-pool request ({}) "
                    "left, which a program that filled it itself does not reach before a sizeable "
                    "request fails",
                    format_bytes(*r.requested), format_bytes(lk::small_request_max)));
  }
  f.cause = "memory held by other processes (another notebook's kernel, a stale run) when TensorFlow created the "
            "device left its pool too small";
  f.fix = fix_listed;
  return f;
}

// The GPU as the program read it before it allocated anything (gpu_observation::before_own_use:
// Kaldi's SelectGpuIdAuto, with only its own context made, at most context_max): in use beyond
// that context was other processes'. Of a failure's GPU when the paste has one, else of the GPU
// the program chose (gpu_observation::selected), else of each GPU so read: a GPU it looked at and
// left is not where it runs.
struct held_at_start {
  const observe::gpu_observation* gpu = nullptr;
  bytes others = 0;  // used - context_max
};

std::optional<held_at_start> others_at_start(const observe::observation& obs,
                                             std::optional<int> gpu) {
  std::optional<held_at_start> out;
  const bool chosen = std::any_of(obs.gpus.begin(), obs.gpus.end(),
                                  [](const auto& g) { return g.before_own_use && g.selected; });
  for (const auto& g : obs.gpus) {
    if (!g.before_own_use || !g.index || !g.used || (gpu && *g.index != *gpu) ||
        (!gpu && chosen && !g.selected))
      continue;
    if (*g.used < lk::context_max + lk::context_min) continue;  // not another context's worth
    const bytes others = *g.used - lk::context_max;
    if (!out || others > out->others) out = held_at_start{&g, others};
  }
  return out;
}

std::string reading_at_start(const held_at_start& h) {
  const auto& g = *h.gpu;
  return fmt::format(
      "GPU {}{}: {} of {} in use when the program chose it, before it allocated anything (its "
      "own context, at most {}, aside: {} held by others)",
      *g.index, g.name.empty() ? "" : " (" + g.name + ")", format_bytes(*g.used),
      size_or_unknown(g.total), format_bytes(lk::context_max), format_bytes(h.others));
}

// The log's warning that the GPU is in the Default compute mode (observation::compute_mode).
const observe::observation::compute_mode* shared_mode(const observe::observation& obs) {
  for (const auto& c : obs.compute_modes)
    if (c.shared) return &c;
  return nullptr;
}

// Kaldi's warning that the GPU is not in compute-exclusive mode: others may allocate beside it.
void weigh_shared_mode(const observe::observation& obs, finding& f) {
  if (const auto* c = shared_mode(obs)) {
    f.likelihood += lk::step;
    f.support.push_back(
        fmt::format("line {}: the GPU is not in compute-exclusive mode, so other processes may "
                    "allocate on it beside this one",
                    c->line));
  }
}

// Kaldi asks, in its own failure message, for compute-exclusive mode and --use-gpu=wait
// (cu-allocator.cc, AllocateNewRegion; cu-device.cc, SelectGpuId waits for a GPU no other process
// holds only in that mode).
constexpr const char* fix_kaldi =
    "run alone on the GPU: stop the other process (list them with nvidia-smi "
    "--query-compute-apps=pid,process_name,used_memory --format=csv), or set the GPUs to "
    "compute-exclusive mode (nvidia-smi -c 3) and pass --use-gpu=wait (steps/nnet3/chain/train.py "
    "takes it) so that each job waits for a GPU of its own";

// Kaldi's allocator failing to grow (kaldi_log.hpp): its message gives the device's total and
// free as measured just before the failed cudaMalloc and, on the line before, what its regions
// hold. The device's used memory beyond those regions and one context is held outside the
// process; the reading at the program's start says the same from before it allocated. The region
// asked for is max(free x 0.5, the request) (cu-allocator.cc, AllocateNewRegion): a region no
// larger than the free memory measured just before its cudaMalloc failed because that memory was
// taken in between, by another process.
std::optional<finding> from_growing_pool(const observe::oom_report& r,
                                         const observe::observation& obs) {
  if (r.allocator != observe::oom_allocator::kaldi || r.origin != observe::oom_origin::allocator ||
      !r.capacity || !r.free)
    return std::nullopt;
  const bytes used = *r.capacity - std::min(*r.capacity, *r.free);
  std::optional<bytes> outside;
  if (r.pool_held)  // used less the regions and one context, 0 when they account for it all
    outside = used > *r.pool_held && used - *r.pool_held > lk::context_max
                  ? used - *r.pool_held - lk::context_max
                  : 0;
  const auto start = others_at_start(obs, r.gpu);
  const bool raced =
      r.requested && *r.free >= lk::small_segment && *r.requested <= *r.free - lk::small_segment;
  const bytes held = outside.value_or(start ? start->others : 0);
  if (held < lk::context_min && !raced) return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {},           {}, {},
            {},        {}, "other_process",   lk::possible, {}, {}};
  f.evidence.push_back(fmt::format("{}: {} of {} in use, tried to allocate a region of {}",
                                   where(r), format_bytes(used), format_bytes(*r.capacity),
                                   size_or_unknown(r.requested)));
  if (r.pool_held)
    f.evidence.push_back(fmt::format(
        "its allocator held {} in regions (the Memory usage line before it): {} in "
        "use beyond them and one context ({} at most)",
        format_bytes(*r.pool_held), format_bytes(*outside), format_bytes(lk::context_max)));
  if (start) f.evidence.push_back(reading_at_start(*start));
  if (r.requested && held + *r.free >= *r.requested && held >= lk::context_min) {
    f.likelihood = lk::likely;
    f.support.push_back(
        fmt::format("the memory held outside this process ({}) would have served the request "
                    "({})",
                    format_bytes(held), format_bytes(*r.requested)));
  } else if (held >= lk::context_min) {
    f.against.push_back(
        "even freed, the memory outside this process would not have served the request");
  }
  if (!r.pool_held && start)
    f.against.push_back(
        "what others held is read at the program's start: they may have freed or taken more since");
  if (raced) {
    f.likelihood += lk::step;
    f.support.push_back(
        fmt::format("the region ({}) was smaller than the free memory measured just before its "
                    "cudaMalloc ({}): that memory was taken in between",
                    size_or_unknown(r.requested), format_bytes(*r.free)));
  }
  weigh_shared_mode(obs, f);
  if (start && r.pool_held && start->others + lk::context_min <= *outside)
    f.support.push_back(
        "others hold more now than at the program's start: another job grew beside this one");
  f.cause =
      "another process on this GPU holds the memory Kaldi's allocator needed to grow (a second "
      "training "
      "job, a decoding run): the GPU is shared";
  f.fix = fix_kaldi;
  f.saving = static_cast<std::int64_t>(held);
  f.saving_basis =
      "memory held outside this process (device in use less the allocator's regions and one "
      "context, or what was in use at its start less its context)";
  return f;
}

// Without a failure: the reading at the program's start alone. Memory others held then leaves
// Kaldi's allocator, which takes half of what is free for its first region (memory_proportion
// 0.5, cu-allocator.h), that much smaller, and the Default compute mode lets them grow beside it.
std::optional<finding> from_reading_at_start(const observe::observation& obs) {
  const auto start = others_at_start(obs, std::nullopt);
  if (!start) return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {},           {}, {},
            {},        {}, "other_process",   lk::possible, {}, {}};
  f.evidence.push_back(reading_at_start(*start));
  f.support.push_back(
      "memory beyond the program's own context was in use before it allocated anything: another "
      "process held it");
  weigh_shared_mode(obs, f);
  f.against.push_back(
      "the paste has no failure: whether the memory others held mattered is not shown");
  f.cause =
      "memory on this GPU was held by another process before this one started (a second job, a "
      "stale "
      "run): the GPU is shared";
  f.fix = fix_kaldi;
  f.saving = static_cast<std::int64_t>(start->others);
  f.saving_basis =
      "memory in use when the program chose the GPU, less its own context (at most 1 GiB)";
  return f;
}

// nvidia-smi alone: per GPU, used memory beyond the listed processes (other containers), and
// large processes that appear on no other GPU beside another large one.
std::optional<finding> from_screen(const observe::observation& obs) {
  std::map<std::pair<std::string, int>, std::vector<const observe::process_observation*>> by_gpu;
  std::map<std::int64_t, std::set<int>> gpus_of;
  for (const auto& p : obs.processes)
    if (p.gpu_index) {
      by_gpu[{p.host, *p.gpu_index}].push_back(&p);
      gpus_of[p.pid].insert(*p.gpu_index);
    }
  finding f{"PROC001", {}, severity::warning, {}, {}, {}, {}, {}, "other_process", 0, {}, {}};
  // The screen's GPU rows with an index and a used figure; a program's own reading before it
  // allocated anything is from_reading_at_start's.
  std::vector<const observe::gpu_observation*> screen;
  for (const auto& g : obs.gpus)
    if (g.index && g.used && !g.before_own_use) screen.push_back(&g);
  bytes held = 0;
  for (const auto* gp : screen) {
    const auto& g = *gp;
    const auto procs = by_gpu.find({g.host, *g.index});
    bytes listed = 0;
    std::size_t large = 0;
    if (procs != by_gpu.end())
      for (const auto* p : procs->second) {
        listed += p->used.value_or(0);
        large += p->used.value_or(0) > lk::context_max && gpus_of[p->pid].size() == 1;
      }
    // Processes N/A (Windows, some containers): nothing to compare.
    if (procs != by_gpu.end() && !procs->second.empty() && !procs->second.front()->used) continue;
    // A process list cut off before this GPU's rows ended cannot say who holds the rest.
    const bool list_cut_here = obs.processes_cut_from_gpu && *g.index >= *obs.processes_cut_from_gpu;
    const bool listed_here = (procs != by_gpu.end() || obs.process_table) && !list_cut_here;
    if (listed_here && *g.used > listed + lk::context_max + lk::driver_reserve_max) {
      held = std::max(held, *g.used - listed);
      f.evidence.push_back(fmt::format("GPU {}: {} used, the listed processes hold {}", *g.index,
                                       format_bytes(*g.used), format_bytes(listed)));
      f.support.push_back(fmt::format("GPU {}: {} in use by processes nvidia-smi does not list (another "
                                      "container or user)", *g.index, format_bytes(*g.used - listed)));
      f.likelihood = std::max(f.likelihood, lk::possible);
    }
    if (large >= 2) {
      bytes others = 0, largest = 0;
      for (const auto* p : procs->second) {
        others += p->used.value_or(0);
        largest = std::max(largest, p->used.value_or(0));
      }
      held = std::max(held, others - largest);
      f.evidence.push_back(fmt::format("GPU {}: {} processes each above a context, none on another GPU", *g.index,
                                       large));
      f.support.push_back(fmt::format("GPU {} runs {} separate workloads", *g.index, large));
      f.likelihood = std::max(f.likelihood, lk::likely);
    }
  }
  // A GPU nearly full beside GPUs of the same machine that hold nothing: a workload landed on a
  // GPU another one occupies, while others are free.
  std::vector<int> empty;
  for (const auto* g : screen)
    if (*g->used < lk::context_min) empty.push_back(*g->index);
  for (const auto* gp : screen) {
    const auto& g = *gp;
    if (!g.total || empty.empty() || f.likelihood >= lk::likely) continue;
    if (static_cast<double>(*g.used) < 0.9 * static_cast<double>(*g.total)) continue;
    held = std::max(held, *g.used);
    f.evidence.push_back(fmt::format("GPU {}: {} of {} used while GPU {} holds nothing", *g.index,
                                     format_bytes(*g.used), format_bytes(*g.total), empty.front()));
    f.support.push_back(fmt::format("GPU {} is taken while {} GPU(s) of the machine are free: run on a free one "
                                    "(CUDA_VISIBLE_DEVICES={})", *g.index, empty.size(), empty.front()));
    f.likelihood = lk::likely;
  }
  // A screen pasted without its process list: memory in use beyond a context is held by some
  // process, and the paste does not say whose (possible, the differential's default reading of a
  // GPU that shows more than expected).
  if (f.evidence.empty() && obs.processes.empty() && !obs.process_table) {
    for (const auto* gp : screen) {
      const auto& g = *gp;
      if (*g.used <= lk::context_max) continue;
      held = std::max(held, *g.used);
      f.evidence.push_back(fmt::format("GPU {}: {} of {} used{}", *g.index, format_bytes(*g.used),
                                       size_or_unknown(g.total),
                                       g.utilization_gpu ? fmt::format(", {} % utilisation", *g.utilization_gpu) : ""));
    }
    if (!f.evidence.empty()) {
      f.likelihood = lk::possible;
      f.support.push_back("memory beyond a CUDA context is in use; the paste has no process list to say by whom");
      f.against.push_back("without the process list the holder may as well be the job itself");
    }
  }
  // The process list pasted without the GPU rows (the table's lower half): the processes it
  // lists hold what they use; whether they should still run is the user's to say, and a run that
  // was stopped leaves exactly this (a worker that outlived Ctrl+C).
  if (f.evidence.empty() && obs.gpus.empty()) {
    for (const auto& p : obs.processes) {
      if (!p.gpu_index || p.used.value_or(0) <= lk::context_max) continue;
      held = std::max(held, *p.used);
      f.evidence.push_back(fmt::format("GPU {}: process {} ({}) holds {}", *p.gpu_index, p.pid,
                                       p.name.empty() ? "no name" : p.name, format_bytes(*p.used)));
    }
    if (!f.evidence.empty()) {
      f.likelihood = lk::possible;
      f.support.push_back("processes hold memory beyond a CUDA context; a run that was stopped but whose workers "
                          "live on reads exactly so");
      f.against.push_back("the paste has the process list only: whether these processes should still be running "
                          "is not in it");
    }
  }
  if (f.evidence.empty()) return std::nullopt;
  f.cause = "memory on the GPU is held by processes other than the job's: another job, a stale run, a "
            "notebook kernel or another container";
  f.fix = fix_listed;
  f.saving = static_cast<std::int64_t>(held);
  f.saving_basis = "memory of the other processes in nvidia-smi";
  return f;
}

// A launch command pasted above the message that starts more processes on a node than it gives
// GPUs: Slurm's srun ("-n N" / "--ntasks=N", "-N nodes", "--gpu-bind=map_gpu:a,b,..." whose list
// is reused from its start when the tasks outnumber it, "--gpus-per-node=G", "--gres=gpu:G";
// srun's documentation), mpirun / mpiexec ("-np N"), torchrun ("--nproc_per_node N") beside
// CUDA_VISIBLE_DEVICES=a,b. Every process then has its own context and pool on a GPU it shares
// with the others its launch put there: memory this process does not hold.
struct launch {
  int per_gpu = 0;  // processes each GPU gets, at most
  int ranks = 0, gpus = 0;
  std::string line;
};

std::optional<int> whole(std::string_view s) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return std::stoi(std::string(s));
}

// The number of items of a comma list ("3,2,1,0" -> 4 distinct).
int distinct_items(std::string_view list) {
  std::set<std::string_view> items;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) items.insert(list.substr(at, comma - at));
    at = comma + 1;
  }
  return static_cast<int>(items.size());
}

std::optional<launch> launch_in(const std::vector<std::string>& context) {
  for (const auto& line : context) {
    const std::size_t colon = line.find(": ");
    const std::string_view text = colon == std::string::npos
                                      ? std::string_view(line)
                                      : std::string_view(line).substr(colon + 2);
    std::vector<std::string_view> tokens;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find(' ', at), text.size());
      if (end > at) tokens.push_back(text.substr(at, end - at));
      at = end + 1;
    }
    const auto value = [&](std::size_t k, std::string_view flag) -> std::optional<int> {
      if (tokens[k] == flag && k + 1 < tokens.size()) return whole(tokens[k + 1]);
      if (tokens[k].starts_with(flag) && tokens[k].size() > flag.size() &&
          tokens[k][flag.size()] == '=')
        return whole(tokens[k].substr(flag.size() + 1));
      return std::nullopt;
    };
    std::optional<int> ranks, nodes, gpus;
    bool launcher = false;
    for (std::size_t k = 0; k < tokens.size(); ++k) {
      const std::string_view t = tokens[k];
      if (t == "srun" || t == "mpirun" || t == "mpiexec" || t == "torchrun" ||
          t.ends_with("/torchrun"))
        launcher = true;
      if (t.starts_with("CUDA_VISIBLE_DEVICES=")) gpus = distinct_items(t.substr(21));
      if (!launcher) continue;
      for (std::string_view flag :
           {"-n", "-np", "--np", "--ntasks", "--nproc_per_node", "--nproc-per-node"})
        if (const auto v = value(k, flag)) ranks = v;
      for (std::string_view flag : {"-N", "--nodes"})
        if (const auto v = value(k, flag)) nodes = v;
      for (std::string_view flag : {"--gpus-per-node", "--gpus"})
        if (const auto v = value(k, flag)) gpus = v;
      if (t.starts_with("--gres=gpu:")) {
        const std::string_view g = t.substr(t.rfind(':') + 1);
        if (const auto v = whole(g)) gpus = v;
      }
      if (const std::size_t m = t.find("map_gpu:");
          t.starts_with("--gpu-bind=") && m != std::string_view::npos)
        gpus = distinct_items(t.substr(m + 8));
    }
    if (!launcher || !ranks || !gpus || *gpus <= 0 || *ranks <= 0) continue;
    const int per_node =
        (*ranks + std::max(1, nodes.value_or(1)) - 1) / std::max(1, nodes.value_or(1));
    if (per_node <= *gpus) continue;
    return launch{(per_node + *gpus - 1) / *gpus, per_node, *gpus, line};
  }
  return std::nullopt;
}

std::optional<finding> from_launch(const observe::oom_report& r) {
  const auto l = launch_in(r.context);
  if (!l) return std::nullopt;
  finding f{"PROC001", {}, severity::warning, {},         {}, {},
            {},        {}, "other_process",   lk::likely, {}, {}};
  f.evidence.push_back(fmt::format("line {}", l->line.substr(0, 200)));
  f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
  f.support.push_back(fmt::format(
      "the launch starts {} processes on a node with {} GPU(s) for them: up to {} share each GPU, "
      "each with "
      "its own context and memory pool, so this process had only what the others on its GPU left{}",
      l->ranks, l->gpus, l->per_gpu,
      r.pool_held
          ? fmt::format(" (its own pool held {} when it failed)", format_bytes(*r.pool_held))
          : ""));
  f.against.push_back("the paste does not show what the other processes on the GPU held");
  f.cause = fmt::format(
      "the job's own processes share each GPU, up to {} a GPU, and together exhaust its memory",
      l->per_gpu);
  f.fix =
      "let no more ranks use the GPU than the number of GPUs (one process per GPU: fewer ranks, or "
      "a limit on "
      "the ranks that use the GPU, the others on the CPU), or give each process a memory limit "
      "that leaves room for "
      "the rest (CuPy: set_limit; PyTorch: set_per_process_memory_fraction)";
  return f;
}

}  // namespace

std::vector<finding> memory_outside_process(const doctor_input& in) {
  if (!in.observed) return {};
  std::vector<finding> out;
  for (const auto& o : in.observed->ooms) {
    if (o.kind == observe::oom_kind::torch || o.allocator == observe::oom_allocator::cudajl_pool)
      if (auto f = from_message(facts_of(o))) out.push_back(std::move(*f));
    if (auto f = from_failed_call(o)) out.push_back(std::move(*f));
    if (auto f = from_tiny_refusal(o)) out.push_back(std::move(*f));
    if (auto f = from_tensorflow_pool(o)) out.push_back(std::move(*f));
    if (auto f = from_launch(o)) out.push_back(std::move(*f));
    if (auto f = from_growing_pool(o, *in.observed)) out.push_back(std::move(*f));
  }
  if (out.empty())
    if (auto f = from_screen(*in.observed)) out.push_back(std::move(*f));
  if (out.empty())
    if (auto f = from_reading_at_start(*in.observed)) out.push_back(std::move(*f));
  return out;
}

}  // namespace vramscope::doctor::rules
