// JAX001: one JAX process preallocates fraction x total memory on every GPU it can see.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

// A GPU holding what a JAX process preallocates: a context plus the pool (reference/jax.md 2.1
// and 3). Since jaxlib 0.4.1 the pool is fraction x the total CUDA reports, which is nvidia-smi's
// total less the driver's reserve (up to driver_reserve_max), so the GPU shows from context_min
// + f x (total - driver_reserve_max) to context_max + f x total. Before, it was fraction x the
// memory free at start, after the context: context + f x (total - reserve - context), which
// reads lower, down to (1 - f) x context_min + f x (total - driver_reserve_max). XLA's 0.75
// came with jaxlib 0.4.14, long after 0.4.1, so it has only the first window; 0.9 and a job's
// own fraction have both.
struct pool_fraction {
  double value;
  bool of_free_memory_too;  // the fraction may be of the memory free at start (jaxlib < 0.4.1)
};

std::optional<double> preallocated_fraction(const observe::gpu_observation& g, const std::vector<pool_fraction>& fractions) {
  if (!g.used || !g.total || *g.total == 0) return std::nullopt;
  const auto used = static_cast<double>(*g.used), total = static_cast<double>(*g.total);
  const auto ctx_min = static_cast<double>(lk::context_min), ctx_max = static_cast<double>(lk::context_max);
  // A GPU with less than a context free is full: TensorFlow's default pool (the free memory at
  // its start) and any job that filled it leave it so, and on a small GPU the 0.9 window with a
  // large context reaches it too. Full, it is no mark of XLA's fraction.
  if (total - used < ctx_min) return std::nullopt;
  for (const auto& f : fractions) {
    const double seen = total - static_cast<double>(lk::driver_reserve_max);
    const double low = f.of_free_memory_too ? (1 - f.value) * ctx_min + f.value * seen : ctx_min + f.value * seen;
    const double high = ctx_max + f.value * total;
    if (used >= low && used <= high) return f.value;
  }
  return std::nullopt;
}

std::vector<pool_fraction> fractions_of(const doctor_input& in) {
  std::vector<pool_fraction> out{{lk::jax_default_fractions[0], false}, {lk::jax_default_fractions[1], true}};
  if (!in.job) return out;
  for (const char* name : {"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION"})
    if (const auto v = in.job->env.find(name); v != in.job->env.end()) {
      char* end = nullptr;
      const double f = std::strtod(v->second.c_str(), &end);
      if (end != v->second.c_str() && f > 0 && f <= 1) out.insert(out.begin(), {f, true});
    }
  return out;
}

// What the screens show of a pool. A GPU is told by its index; readings without one (usage
// quoted in prose) of the same total are taken as one GPU read several times.
struct screens {
  std::size_t held = 0;   // GPUs holding a context plus a pool
  std::size_t shown = 0;  // GPUs shown
  bool from_zero = true;  // every GPU shown is GPU 0 or unnumbered: all of a one-GPU machine
  std::optional<bytes> context_before;  // an earlier reading of a held GPU: a context, no pool
};

screens observed_evidence(const doctor_input& in, finding& f) {
  screens out;
  if (!in.observed) return out;
  const auto fractions = fractions_of(in);
  std::set<std::pair<int, bytes>> shown, held;
  std::map<std::pair<int, bytes>, bytes> smallest;
  for (const auto& g : in.observed->gpus) {
    if (!g.used || !g.total) continue;
    const std::pair<int, bytes> key{g.index.value_or(-1), *g.total};
    shown.insert(key);
    if (g.index && *g.index != 0) out.from_zero = false;
    const auto fraction = preallocated_fraction(g, fractions);
    if (!fraction) {
      if (const auto s = smallest.find(key); s == smallest.end() || *g.used < s->second) smallest[key] = *g.used;
      continue;
    }
    if (!held.insert(key).second) continue;
    f.evidence.push_back(fmt::format("{}: {} of {} used ({:.0f} %, XLA's {:.2f} pool plus a context)",
                                     g.index ? fmt::format("GPU {}", *g.index) : std::string("the GPU"),
                                     format_bytes(*g.used), format_bytes(*g.total),
                                     100.0 * static_cast<double>(*g.used) / static_cast<double>(*g.total), *fraction));
  }
  for (const auto& key : held)
    if (const auto s = smallest.find(key); s != smallest.end() && s->second <= lk::context_max)
      out.context_before = s->second;
  out.held = held.size();
  out.shown = shown.size();
  return out;
}

// Runtimes other than JAX that reserve a pool at start, each told by what it prints in the log
// (its banner, or its own frames in the trace) and its documented default:
//  - TensorFlow maps nearly all the memory free at start into its BFC pool unless memory growth
//    is on (TensorFlow guide "Use a GPU", limiting GPU memory growth:
//    per_process_gpu_memory_fraction, TF_FORCE_GPU_ALLOW_GROWTH); it logs "Created TensorFlow
//    device ... with N MB memory".
//  - Theano's CNMeM pool takes lib.cnmem of the memory at start and says so ("CNMeM is enabled
//    with initial size: 95.0% of memory"); libgpuarray's takes gpuarray.preallocate ("Preallocating
//    N/M Mb (f) on cuda") (Theano's config documentation).
//  - The RAPIDS Accelerator for Apache Spark builds an RMM pool of
//  spark.rapids.memory.gpu.allocFraction
//    of the GPU at executor start (0.9 of the total in its early releases, of the free memory
//    since; the plugin's configuration docs); its classes (com.nvidia.spark.rapids, ai.rapids.cudf)
//    are in the trace of whatever fails under it.
// A failure the banner's own runtime did not raise from inside its pool (a CUDA call's error, a
// library's status, another runtime's allocator in the same process) is memory the pool left no
// room for.
struct up_front_runtime {
  std::string_view marker;  // the runtime's own words in the log
  std::string_view also;    // words the same line has too (none when empty)
  std::string_view name;
  std::string_view fix;
  // The marker is the runtime's frames in a trace, not a banner: over an allocator's own message
  // they are that allocator's pool refusing, not a pool beside it.
  bool frames = false;
};

constexpr std::string_view rapids_name = "the RAPIDS Accelerator's RMM pool";
constexpr std::string_view rapids_fix =
    "a lower spark.rapids.memory.gpu.allocFraction (e.g. 0.8) so the pool leaves what other "
    "processes and kernels outside it hold, or a larger spark.rapids.memory.gpu.reserve";

constexpr up_front_runtime up_front_runtimes[] = {
    {"Created TensorFlow device", "", "TensorFlow",
     "TF_FORCE_GPU_ALLOW_GROWTH=true (or tf.config.experimental.set_memory_growth) so TensorFlow "
     "grows its pool "
     "on demand, or cap it with per_process_gpu_memory_fraction / a logical device's memory_limit"},
    {"CNMeM is enabled with initial size", "", "Theano's CNMeM pool",
     "a smaller lib.cnmem in THEANO_FLAGS (lib.cnmem=0 turns the pool off), leaving room outside "
     "it"},
    {"Preallocating ", ") on cuda", "libgpuarray's pool (Theano)",
     "a smaller gpuarray.preallocate in THEANO_FLAGS (0 or below turns preallocation off)"},
    {"com.nvidia.spark.rapids", "", rapids_name, rapids_fix, true},
    {"ai.rapids.cudf", "", rapids_name, rapids_fix, true},
};

// The line of the report (its text or the log before it) that names the runtime, if any.
std::optional<std::string> runtime_line(const observe::oom_report& r, const up_front_runtime& rt) {
  const auto names = [&rt](std::string_view text) {
    const auto at = text.find(rt.marker);
    return at != std::string_view::npos &&
           (rt.also.empty() || text.find(rt.also, at) != std::string_view::npos);
  };
  if (names(r.raw)) return fmt::format("line {}: {}", r.line, r.raw.substr(0, 160));
  for (const auto& c : r.context)
    if (names(c)) return c.substr(0, 200);
  return std::nullopt;
}

std::optional<finding> banner_reservation(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    // The pool's own refusal is the job not fitting in it (OOM001, FRAG001 weigh that).
    if (r.tensorflow || r.kind == observe::oom_kind::xla) continue;
    for (const auto& rt : up_front_runtimes) {
      const auto line = runtime_line(r, rt);
      if (!line) continue;
      // Another runtime's pool and this allocator's message: both in the process, TensorFlow's
      // taken first. The runtime's own frames over an allocator's message are its pool's.
      if (r.origin == observe::oom_origin::allocator && rt.frames) continue;
      finding f{"JAX001", {}, severity::warning,   {},         {}, {},
                {},       {}, "jax_preallocation", lk::strong, {}, {}};
      f.evidence.push_back(fmt::format("{} in the log: {}", rt.name, *line));
      f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
      f.support.push_back(
          fmt::format("{} reserves its pool at start; the failed allocation was not made from "
                      "that pool, so it had only what the pool left",
                      rt.name));
      f.cause = fmt::format(
          "{} reserved most of the GPU up front; what runs outside its pool (another runtime in "
          "the process, a library's workspace, a CUDA call, another process) has only the rest",
          rt.name);
      f.fix = std::string(rt.fix);
      return f;
    }
  }
  return std::nullopt;
}

// A runtime other than JAX that reserves its pool up front, told by its own message: PaddlePaddle
// (likelihood.hpp, paddle_default_fractions). Its message without the allocated figure
// ("Cannot allocate X memory on GPU N, available memory is only Z.") is an older release's, from
// the years its default allocator (naive_best_fit) or Paddle Inference's initial pool took a fixed
// share up front; a request above what is available while the device still had more than a
// context free is one the pool's chunks did not serve: it went to the device beside a pool that
// holds the share it took at start, idle or not. Less than a context left is a device full for
// any reason (PROC001, GPU001 weigh that).
std::optional<finding> runtime_reservation(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    if (r.allocator != observe::oom_allocator::paddle || !r.requested || !r.free) continue;
    if (r.raw.find("has been allocated") != std::string::npos) continue;  // auto_growth-era wording
    if (*r.free < lk::context_min || *r.requested <= *r.free) continue;
    finding f{"JAX001",
              {},
              severity::warning,
              {},
              {},
              {},
              {},
              {},
              "jax_preallocation",
              lk::possible + lk::step,
              {},
              {}};
    f.evidence.push_back(
        fmt::format("{}: PaddlePaddle could not allocate {} with {} still available on the "
                    "device",
                    where(r), format_bytes(*r.requested), format_bytes(*r.free)));
    f.support.push_back(
        fmt::format("the message's wording (no allocated figure) is an older PaddlePaddle's, whose "
                    "default allocator before 2.0 "
                    "took FLAGS_fraction_of_gpu_memory_to_use ({:.2f} on Linux, {:.2f} on Windows) "
                    "of the free memory up "
                    "front, as Paddle Inference's initial pool does; a request larger than its "
                    "chunks goes to the device and "
                    "finds only what the pool left",
                    lk::paddle_default_fractions[0], lk::paddle_default_fractions[1]));
    f.against.push_back(
        "the message does not say how much of the pool was in use: the job may need it all");
    f.cause =
        "the runtime reserved most of the GPU as a fixed pool at start (PaddlePaddle's "
        "FLAGS_fraction_of_gpu_memory_to_use, or Paddle Inference's initial pool size), so a large "
        "request "
        "outside its chunks has only the rest";
    f.fix =
        "export FLAGS_allocator_strategy=auto_growth (or FLAGS_fraction_of_gpu_memory_to_use=0) so "
        "the pool "
        "grows on demand, and give Paddle Inference a small initial pool "
        "(enable_use_gpu(memory_pool_init_size_mb))";
    return f;
  }
  return std::nullopt;
}

// A pool that could not be made at start, or a library that found no room beside one:
//  - CNMeM's creation failing ("cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY",
//    observe/failure_line.hpp): Theano's old back-end asks for lib.cnmem of the GPU's total at
//    start (Theano's config documentation: a fraction up to 1, clipped to 0.95 for the driver),
//    and anything already on the GPU (a display, another process) leaves less than that. The
//    pool's size, not the job, failed: strong.
//  - a CUDA library's handle not created (cudnnCreate, cusolverDnCreate, cublasCreate allocate
//    device memory, each library's API reference) under
//    a runtime whose pool is taken at start: TensorFlow maps nearly all free memory by default
//    (TensorFlow guide "Use a GPU"), JAX 0.75 of it (reference/jax.md 2.1), Theano on request
//    (lib.cnmem, gpuarray.preallocate). The handle is created at the library's first use, after
//    the pool: with TensorFlow's or JAX's default a pool leaving no room is likely; with Theano's
//    an option the paste does not show, possible.
//  - TensorFlow's pool asking for its first region right at the device's creation: with memory
//    growth off, the BFC allocator maps its whole limit (per_process_gpu_memory_fraction of the
//    memory, nearly all that is free by default) as one region at its first allocation (TensorFlow
//    guide "Use a GPU"; bfc_allocator.cc, Extend), so a device allocation that fails on the line
//    after "Creating TensorFlow device" is the pool's own size, not a tensor. Where the log gives
//    the memory free at the device's start and the request fits in it, the GPU was full before
//    (PROC001 weighs that); a request above it is a fraction set above what others left: likely.
std::optional<finding> tensorflow_pool_at_creation(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    if (!r.tensorflow || r.raw.find("from device") == std::string::npos || r.context.empty() ||
        !r.requested || r.origin == observe::oom_origin::context_creation)
      continue;
    if (r.context.back().find("Creating TensorFlow device") == std::string::npos) continue;
    if (r.free && *r.requested <= *r.free) continue;
    finding f{"JAX001", {}, severity::warning,   {},         {}, {},
              {},       {}, "jax_preallocation", lk::likely, {}, {}};
    f.evidence.push_back(fmt::format("line {}", r.context.back().substr(0, 160)));
    f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
    f.support.push_back(fmt::format(
        "the first device allocation after TensorFlow created the device failed, asking {} at "
        "once: with memory "
        "growth off that is its pool's whole region, sized by per_process_gpu_memory_fraction{}",
        format_bytes(*r.requested),
        r.free
            ? fmt::format(", above the {} free when the device was created", format_bytes(*r.free))
            : ""));
    f.against.push_back("the paste does not show the fraction set or what else held the GPU");
    f.cause =
        "TensorFlow's pool asked at start for more of the GPU than was free (a memory fraction "
        "near 1 on a GPU a "
        "display or another process also uses)";
    f.fix =
        "a per_process_gpu_memory_fraction below 1 (e.g. 0.8), or TF_FORCE_GPU_ALLOW_GROWTH=true "
        "(allow_growth) "
        "so the pool grows on demand";
    return f;
  }
  return std::nullopt;
}

// DyNet allocates device memory only through its memory pools (dynet/mem.cc, GPUAllocator): the
// forward, backward, parameter and scratch pools, sized at start by --dynet-mem (512 MB by
// default, split among the four, or one size per pool; DyNet's command-line options
// documentation), each grown by a new block when full. A failed cudaMalloc under DyNet is a pool
// taking its size at once: its start size or a whole block, not a tensor.
std::optional<finding> dynet_pool(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    if (r.runtime != "dynet" || r.status != "cudaMalloc failed") continue;
    finding f{"JAX001", {}, severity::warning,   {},         {}, {},
              {},       {}, "jax_preallocation", lk::likely, {}, {}};
    f.title = "DyNet's memory pools reserved up front";
    f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
    f.support.push_back(
        "DyNet's cudaMalloc is its memory pools' own (forward, backward, parameters, scratch): "
        "each takes its share of --dynet-mem at start and grows by whole blocks");
    f.against.push_back("the paste does not show --dynet-mem or the size asked");
    f.cause =
        "DyNet's memory pools asked the GPU for more than was free: --dynet-mem split into fixed "
        "pools reserves their sizes up front, whether the computation needs them or not";
    f.fix =
        "a small --dynet-mem (e.g. --dynet-mem 4) so each pool starts small and grows on demand, "
        "or one size per pool (--dynet-mem FOR,BACK,PARAM[,SCRATCH]) fitted to what each needs";
    return f;
  }
  return std::nullopt;
}

// A BFC pool (TensorFlow's or XLA's) that ran out at a limit somebody set (likelihood.hpp,
// pool_limit_set): the pool was allowed that much, whatever the GPU has. A logical device's
// memory_limit is the usual way (an application capping TensorFlow beside another runtime in the
// process, a notebook sharing the GPU); raising or removing it is the fix, unless the limit is
// near the GPU's size already, which the paste does not show.
std::optional<finding> pool_at_set_limit(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    const bool bfc = r.allocator == observe::oom_allocator::tf_bfc ||
                     r.allocator == observe::oom_allocator::xla_bfc;
    if (!bfc || !r.capacity || !lk::pool_limit_set(*r.capacity)) continue;
    finding f{"JAX001", {}, severity::warning,   {},           {}, {},
              {},       {}, "jax_preallocation", lk::possible, {}, {}};
    f.title = "the allocator's pool ran out at a limit that was set";
    f.evidence.push_back(fmt::format("{}: the BFC pool's limit is {} ({} bytes)", where(r),
                                     format_bytes(*r.capacity), *r.capacity));
    f.likelihood += lk::step;
    f.support.push_back(fmt::format(
        "a limit of exactly {} is a size somebody set (a logical device's memory_limit, in MiB); "
        "the pool's default, the memory free at start less a reserve, or a fraction of the total, "
        "is not a round figure",
        format_bytes(*r.capacity)));
    if (r.in_use &&
        static_cast<double>(*r.in_use) >= lk::pool_full_share * static_cast<double>(*r.capacity)) {
      f.likelihood += lk::step;
      f.support.push_back(fmt::format("the pool was full: {} in use of its {}",
                                      format_bytes(*r.in_use), format_bytes(*r.capacity)));
    }
    f.against.push_back(
        "the paste does not show the GPU's size: a limit already near it leaves nothing to raise");
    f.cause = fmt::format(
        "the program (or an application around it) capped the allocator's pool at {}; the job "
        "needs more than that cap, not necessarily more than the GPU has",
        format_bytes(*r.capacity));
    f.fix =
        "raise the cap where it is set (the memory_limit of "
        "tf.config.set_logical_device_configuration, per_process_gpu_memory_fraction, "
        "XLA_PYTHON_CLIENT_MEM_FRACTION) or remove it; if the cap is near the GPU's size, "
        "a smaller batch or input instead";
    return f;
  }
  return std::nullopt;
}

std::optional<finding> pool_left_no_room(const observe::observation& o) {
  if (auto f = tensorflow_pool_at_creation(o)) return f;
  if (auto f = pool_at_set_limit(o)) return f;
  if (auto f = dynet_pool(o)) return f;
  for (const auto& r : o.ooms) {
    const bool cnmem_init = r.library == "cnmem" && r.status.starts_with("cnmemInit");
    // A CUDA library's handle (cuDNN's, cuSOLVER's, cuBLAS's, cuSPARSE's): its Create call
    // allocates device memory when the runtime first uses the library (observe/failure_line).
    const bool handle = !r.library.empty() && (r.status.starts_with("cudnnCreate") ||
                                               r.status.find("Create failed") != std::string::npos);
    if (!cnmem_init &&
        !(handle && (r.runtime == "tensorflow" || r.runtime == "jax" || r.runtime == "theano")))
      continue;
    const double likelihood = cnmem_init              ? lk::strong
                              : r.runtime == "theano" ? lk::possible
                                                      : lk::likely;
    finding f{"JAX001", {}, severity::warning,   {},         {}, {},
              {},       {}, "jax_preallocation", likelihood, {}, {}};
    f.evidence.push_back(fmt::format("{}: {}", where(r), r.raw.substr(0, 160)));
    if (cnmem_init) {
      f.support.push_back(
          "CNMeM's pool could not be created: Theano asks for lib.cnmem of the GPU's memory at "
          "start "
          "(1 means all of it, clipped to 95 %), so whatever else holds memory on that GPU (a "
          "display, "
          "another process) makes the request fail before the job allocates anything");
      f.cause =
          "Theano's CNMeM pool asked for more of the GPU than was free at start (lib.cnmem near 1 "
          "on a GPU that also holds a display or another process)";
      f.fix =
          "a smaller lib.cnmem in THEANO_FLAGS (e.g. 0.8), or lib.cnmem=0 to allocate on demand";
      return f;
    }
    f.support.push_back(
        fmt::format("{} could not create its handle, which allocates device memory when the "
                    "runtime first calls the library; "
                    "{} takes its pool at start, so the handle has only what the pool left",
                    r.status.substr(0, r.status.find(' ')),
                    r.runtime == "tensorflow"
                        ? "TensorFlow by default maps nearly all free memory into its pool"
                    : r.runtime == "jax" ? "JAX by default preallocates 75 % of the GPU"
                                         : "Theano with lib.cnmem or gpuarray.preallocate set"));
    f.against.push_back(
        "the status names no lack of memory and the paste gives no figures: a full device for "
        "another "
        "reason (another process, the job itself) or a cuDNN / driver mismatch reads the same");
    if (r.runtime == "theano")
      f.against.push_back(
          "Theano preallocates only when lib.cnmem or gpuarray.preallocate is set, which the "
          "paste does not show");
    f.cause = fmt::format("the runtime's pool, taken at start, left no room for {}'s handle",
                          r.library == "cudnn" ? std::string("cuDNN") : r.library);
    f.fix = r.runtime == "tensorflow"
                ? "TF_FORCE_GPU_ALLOW_GROWTH=true (or tf.config.experimental.set_memory_growth) so "
                  "TensorFlow "
                  "grows its pool on demand, or cap it with a logical device's memory_limit"
            : r.runtime == "jax" ? "a lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. 0.7), or "
                                   "XLA_PYTHON_CLIENT_PREALLOCATE=false"
                                 : "a smaller gpuarray.preallocate or lib.cnmem in THEANO_FLAGS "
                                   "(e.g. 0.8), leaving room for "
                                   "cuDNN's handle and workspaces";
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::vector<finding> jax_preallocation(const doctor_input& in) {
  if (!in.job && in.observed) {
    if (auto f = pool_left_no_room(*in.observed)) return {std::move(*f)};
    if (auto f = banner_reservation(*in.observed)) return {std::move(*f)};
    if (auto f = runtime_reservation(*in.observed)) return {std::move(*f)};
  }
  const bool jax_job = in.job && (in.job->framework.name == "jax" || in.job->parallel.kind == job::strategy::jax);
  finding f{"JAX001", {}, severity::warning, {}, {}, {}, {}, {}, "jax_preallocation", lk::possible, {}, {}};
  const screens seen = observed_evidence(in, f);
  const std::size_t held = seen.held;
  if (held > 1) {
    f.likelihood = lk::strong;
    f.support.push_back(fmt::format("{} GPUs each hold a context plus the same fraction of their memory", held));
  } else if (held == 1) {
    f.support.push_back("the GPU holds a context plus one of XLA's fractions of its memory");
    // A JAX process takes its pool on every GPU it sees, so the mark of one is the same
    // fraction on every GPU shown. GPU 0 alone (or a GPU the paste does not number) is all a
    // one-GPU machine has; another GPU alone leaves the rest of its machine unseen.
    if (!jax_job && (seen.shown > 1 || !seen.from_zero)) {
      f.likelihood -= lk::step;
      f.against.push_back(seen.shown > 1
                              ? "only one GPU is at the fraction: a JAX process takes its pool on every GPU it sees"
                              : "one GPU other than GPU 0 is shown: a pool at the fraction on every GPU would mark a "
                                "JAX process; on one, any process holding this much reads the same");
    } else if (!jax_job) {
      f.likelihood += lk::step;
      f.support.push_back("every GPU the paste shows holds it, as a JAX process's pool on each visible GPU does, "
                          "and the used figure is the mechanism's (context + fraction x total), not any figure");
      f.against.push_back("without a process list any process holding this much reads the same");
    }
    if (seen.context_before) {
      f.likelihood += lk::step;
      f.support.push_back(fmt::format("another reading of the same GPU holds {}, a context only: the pool came at "
                                      "once, as preallocation takes it at the first operation",
                                      format_bytes(*seen.context_before)));
    }
    if (in.observed && in.observed->process_table && !in.observed->processes_cut_from_gpu &&
        in.observed->processes.empty()) {
      f.likelihood = lk::weak;
      f.against.push_back("nvidia-smi lists no process holding it: a JAX process would be listed");
    }
  }
  // A pool of another runtime whose own message says what it held (CuPy's total, CUDA.jl's
  // reserve): the GPU's use is that pool's, whatever fraction of the total it comes to.
  if (held > 0 && in.observed)
    for (const auto& o : in.observed->ooms) {
      if (o.kind != observe::oom_kind::cuda || !o.pool_held) continue;
      f.likelihood = lk::weak;
      f.against.push_back(fmt::format(
          "{} is {}'s, whose own pool held {}: the GPU's memory is that runtime's pool, not XLA's",
          where(o), observe::allocator_name(o.allocator), format_bytes(*o.pool_held)));
      break;
    }
  bool outside_pool = false;
  if (in.observed) {
    for (const auto& o : in.observed->ooms) {
      // TensorFlow's own pool (its runtime's BFC lines, its tensor error) is not JAX's client:
      // XLA_PYTHON_CLIENT_* do not size it.
      if (o.tensorflow) continue;
      if (o.kind == observe::oom_kind::xla && o.origin != observe::oom_origin::allocator) {
        outside_pool = true;
        // Outside the pool: StreamExecutorMemoryAllocator or a cuDNN / cuBLAS workspace allocates
        // from the device beside a preallocated pool, in the (1 - fraction) it leaves.
        f.likelihood = std::max(f.likelihood, lk::likely);
        f.evidence.push_back(fmt::format("line {}: an allocation outside XLA's pool failed ({})", o.line,
                                         o.raw.substr(0, 120)));
        f.support.push_back("the failed allocation was not the pool's: with preallocation (the default) the "
                            "pool holds its fraction of the GPU from the first operation, and cuDNN, cuBLAS "
                            "and direct device allocations share what is left");
      } else if (o.kind == observe::oom_kind::xla) {
        f.likelihood = std::max(f.likelihood, lk::possible);
        f.evidence.push_back(fmt::format("line {}: XLA ran out of memory allocating {}", o.line,
                                         size_or_unknown(o.requested)));
        f.support.push_back("an XLA out-of-memory error: the pool is XLA_PYTHON_CLIENT_MEM_FRACTION of the "
                            "GPU, and whatever runs outside it (cuDNN / cuBLAS workspaces, another process) "
                            "has only the rest");
      }
    }
  }
  // The client's own log line at the pool's creation says whether it was taken up front.
  if (in.observed) {
    bool up_front = false, on_demand = false;
    for (const auto& p : in.observed->xla_pools) {
      (p.preallocated ? up_front : on_demand) = true;
      f.evidence.push_back(fmt::format("{} line {}: XLA's pool of {} on device {} {}", p.source, p.line,
                                       format_bytes(p.size), p.device ? std::to_string(*p.device) : "?",
                                       p.preallocated ? "allocated at creation" : "to grow on demand"));
    }
    if (up_front) {
      f.likelihood = std::max(f.likelihood, lk::likely) + (f.evidence.size() > 1 ? lk::step : 0);
      f.support.push_back("the log shows the client preallocating its pool: nvidia-smi shows the pool whatever "
                          "the program uses, and whatever runs outside it has only the rest");
    } else if (on_demand) {
      f.likelihood = std::min(f.likelihood, lk::weak);
      f.against.push_back("the log shows the pool grown on demand (XLA_PYTHON_CLIENT_PREALLOCATE=false): no "
                          "fraction is taken up front");
    }
  }
  if (jax_job) {
    f.likelihood = std::max(f.likelihood, lk::likely) + (held ? lk::step : 0);
    f.support.push_back("the job runs JAX, whose client preallocates its pool");
  }
  // With a job, only a JAX job whose pool is preallocated; without one, only GPUs held at XLA's
  // fractions.
  if (in.job ? !jax_job : f.evidence.empty()) return {};
  if (in.job) {
    const auto preallocate = in.job->env.find("XLA_PYTHON_CLIENT_PREALLOCATE");
    if (preallocate != in.job->env.end() && preallocate->second == "false") return {};
  }
  f.cause = "the JAX process builds a BFC pool of XLA_PYTHON_CLIENT_MEM_FRACTION x total memory "
            "(0.75 by default, 0.9 before jaxlib 0.4.14) on every GPU in CUDA_VISIBLE_DEVICES at its "
            "first operation; nvidia-smi shows the pool, not what the program uses. fsdp_devices "
            "only sizes the mesh's FSDP axis, which spans every visible GPU";
  std::vector<std::string> fixes;
  if (in.prediction && in.prediction->jax_recommended_fraction) {
    const auto& p = *in.prediction;
    f.evidence.push_back(fmt::format("plan: working set {} per GPU inside a {:.2f} pool",
                                     format_bytes(p.ranks.front().peak.allocated), *p.jax_fraction));
    // The fraction is advice only when the pool is larger than the working set plus 10 % (the
    // two-decimal rounding of the recommendation aside).
    if (p.jax_fraction && *p.jax_fraction > *p.jax_recommended_fraction + 0.005) {
      const std::string fraction =
          fmt::format("env.XLA_PYTHON_CLIENT_MEM_FRACTION={:.2f}", *p.jax_recommended_fraction);
      fixes.push_back(fmt::format("XLA_PYTHON_CLIENT_MEM_FRACTION={:.2f} (the working set plus 10 %)",
                                  *p.jax_recommended_fraction));
      if (auto after = replan(in, {fraction})) {
        f.saving = after->saving;
        f.saving_basis = replan_basis({fraction});
      }
    }
    // GPUs the process holds a pool on: those with memory planned on them (CUDA_VISIBLE_DEVICES
    // leaves the others empty).
    const auto holding = std::count_if(p.gpus.begin(), p.gpus.end(),
                                       [](const predict::gpu_prediction& g) { return g.device > 0; });
    if (holding > 1) fixes.push_back("CUDA_VISIBLE_DEVICES=0 to use one GPU and leave the others free");
    if (fixes.empty()) return {};  // the pool already fits the working set, on the GPUs it needs
  } else if (outside_pool) {
    fixes.push_back("a lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. 0.7) set before JAX starts, so that cuDNN, "
                    "cuBLAS and the kernels outside the pool have room, or XLA_PYTHON_CLIENT_PREALLOCATE=false "
                    "to grow the pool on demand");
  } else {
    fixes.push_back("CUDA_VISIBLE_DEVICES=0 to use one GPU; XLA_PYTHON_CLIENT_MEM_FRACTION sized to the "
                    "real need, or XLA_PYTHON_CLIENT_PREALLOCATE=false to grow on demand");
  }
  f.fix = fmt::format("{}", fmt::join(fixes, "; or "));
  return {f};
}

}  // namespace vramscope::doctor::rules
