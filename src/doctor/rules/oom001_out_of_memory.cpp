// OOM001: an out-of-memory message whose own process fills the GPU: its live tensors plus the
// request are more than the memory it could have had, so the job does not fit at that point.
// The other readings of the same message (fragmentation, memory held by others, a phase outside
// the step) are FRAG001, PROC001, GPU001 and the phase rules; the differential ranks them on
// the same facts (doctor/oom_facts.hpp).
#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

finding explain_torch(const oom_facts& o, const doctor_input& in) {
  namespace lk = likelihood;
  const auto& r = *o.report;
  finding f{"OOM001", "CUDA out of memory: the job's own memory fills the GPU", severity::error,
            {}, {}, {}, {}, {}, "does_not_fit", lk::possible, {}, {}};
  // A message cut before its "(GPU N; ..." names no GPU: none is shown.
  f.evidence.push_back(fmt::format("line {}: tried to allocate {}{}, {} free of {}", r.line,
                                   size_or_unknown(o.requested),
                                   r.gpu ? fmt::format(" on GPU {}", *r.gpu) : "",
                                   size_or_unknown(o.free), size_or_unknown(o.capacity)));
  if (o.allocated && r.malloc_async)
    f.evidence.push_back(fmt::format("allocated by PyTorch {} (cudaMallocAsync's message gives no reserved figure)",
                                     format_bytes(*o.allocated)));
  else if (o.allocated)
    f.evidence.push_back(fmt::format("allocated by PyTorch {}, reserved but unallocated {}",
                                     format_bytes(*o.allocated), size_or_unknown(o.cached)));
  if (o.requested && o.cached && !o.cache_covers()) {
    f.likelihood = lk::strong;
    f.support.push_back(fmt::format("free {} + cached {} < the request {}: no allocator could have served it",
                                    size_or_unknown(o.free), format_bytes(*o.cached), format_bytes(*o.requested)));
  } else if (o.cache_covers()) {
    const bytes room = o.free.value_or(0) + *o.cached - *o.requested;
    if (room < *o.requested) {
      f.likelihood = lk::likely;
      f.support.push_back(fmt::format("defragmented, the process would have {} left after this request: the "
                                      "next allocation would fail the same way",
                                      format_bytes(room)));
    } else if (!o.reserved_far_above_allocated()) {
      f.likelihood = lk::likely;
      // A cache of a gigabyte or more is room for more than a few allocations: what it would
      // give the step is said, and that the message does not tell whether it reaches the peak.
      if (*o.cached >= lk::cache_sizeable_min && o.allocated && *o.allocated > 0)
        f.support.push_back(fmt::format(
            "the live tensors ({}) are most of what the process reserved ({}): the job is near "
            "what the GPU "
            "gives it; defragmented, the {} of cache would give the step {:.0f} % more room, and "
            "the message "
            "does not say whether its peak was that near",
            format_bytes(*o.allocated), size_or_unknown(o.reserved), format_bytes(*o.cached),
            100.0 * static_cast<double>(*o.cached) / static_cast<double>(*o.allocated)));
      else
        f.support.push_back(fmt::format(
            "the live tensors ({}) are most of what the process reserved ({}): the "
            "job is near what the GPU gives it, and {} of cache moves the wall only a "
            "few allocations on",
            size_or_unknown(o.allocated), size_or_unknown(o.reserved), format_bytes(*o.cached)));
    } else {
      f.likelihood = lk::weak;
      f.against.push_back(fmt::format("the cache holds {} unused, room for this request and more: the "
                                      "allocator, not the amount, failed", format_bytes(*o.cached)));
    }
  }
  if (r.origin != observe::oom_origin::allocator) {
    f.likelihood = lk::weak;
    f.against.push_back("\"CUDA error: out of memory\" is raised outside the caching allocator (a context, a "
                        "cuBLAS or cuDNN workspace, a kernel's module): the memory PyTorch holds did not run out");
  } else if (!o.requested && !o.capacity) {
    f.against.push_back("the message gives no figures: whether the job's own memory fills the GPU cannot be "
                        "read from it");
  }
  // A memory fraction (cudaMallocAsync prints its limit): the tensors and the request above it.
  const bool over_fraction = r.fraction_limit && o.allocated && o.requested &&
                             *o.allocated + *o.requested > *r.fraction_limit;
  if (over_fraction) {
    f.likelihood = lk::strong;
    f.support.push_back(fmt::format("the process's tensors ({}) and this request ({}) exceed the {} that "
                                    "set_per_process_memory_fraction allows it",
                                    format_bytes(*o.allocated), format_bytes(*o.requested),
                                    format_bytes(*r.fraction_limit)));
  }
  // No cache figure (cudaMallocAsync): the tensors and the request against the GPU less a context.
  if (!over_fraction && !o.cached && o.allocated && o.requested && o.capacity &&
      *o.allocated + *o.requested + lk::context_max <= *o.capacity) {
    f.likelihood = std::min(f.likelihood, lk::weak);
    f.against.push_back(fmt::format("the process's tensors ({}) and this request ({}) fit in the GPU's {} beside a "
                                    "CUDA context: memory its tensors do not hold took the rest",
                                    format_bytes(*o.allocated), format_bytes(*o.requested),
                                    format_bytes(*o.capacity)));
  }
  if (o.allocated && o.capacity && *o.allocated * 4 < *o.capacity) {
    f.likelihood = std::min(f.likelihood, lk::weak);
    f.against.push_back(fmt::format("the process's tensors are only {} of the GPU's {}", format_bytes(*o.allocated),
                                    format_bytes(*o.capacity)));
  }
  if (o.outside_covers()) {
    f.likelihood -= lk::step;
    f.against.push_back(fmt::format("{} of the GPU is held outside this process", format_bytes(*o.outside)));
  }
  // The paste places the failure outside the training step (a frame, the script, a status line
  // naming a save, a load or an evaluation): the step's own size is one reading less likely.
  if (o.phase != oom_phase::unknown) {
    f.likelihood -= lk::step;
    f.against.push_back(fmt::format("the paste places the failure outside the training step ({})",
                                    o.phase_line.substr(0, 120)));
  }
  // Raised while torch.nn.Module moved a model's tensors to the GPU (oom_facts' placing_model):
  // before any step; on a GPU other than 0, in a job of several GPUs whose ranks each placed it
  // whole (FSDP001 weighs that reading).
  if (!o.placing_model.empty() && r.gpu && *r.gpu > 0) {
    f.likelihood -= lk::step;
    f.against.push_back(
        fmt::format("the error is raised while a model's tensors move to GPU {} ({}), before any "
                    "step: a job of several GPUs placing its whole model on each",
                    *r.gpu, o.placing_model.substr(0, 120)));
  }
  // A training loop's first iteration that fails in backward: the step never fit once, where
  // kept tensors or a phase after the loop fail only after iterations that ran.
  if (o.at_first_iteration() && o.in_backward) {
    f.likelihood += lk::step;
    f.support.push_back(
        fmt::format("the progress before the error ({}) is at the loop's first iteration ({}/{}) "
                    "and the traceback runs backward: the training step failed the first time it "
                    "ran",
                    o.progress->line, o.progress->done, o.progress->total));
  }
  // A loop that completed iterations before failing ran the same step that many times: something
  // grew since (inputs of another size, tensors kept across iterations).
  if (o.after_iterations()) {
    f.likelihood -= lk::step;
    f.against.push_back(
        fmt::format("the progress before the error ({}) counts {} iterations that completed: the "
                    "step fit that many times, so something grew since (a larger input, tensors "
                    "kept across iterations)",
                    o.progress->line, o.progress->done));
  }
  // With a job: the plan's verdict for the step weighs for or against.
  if (in.prediction) {
    // A plan whose steps fit and which fails only after them (a save, an evaluation) argues for
    // that phase, not for the step's size.
    if (const auto after = predict::failing_phase_after_steps(*in.prediction); !after.empty()) {
      f.likelihood -= lk::step;
      f.against.push_back(
          fmt::format("the plan of the job fits its training steps and fails only in {}", after));
    } else if (!in.prediction->fits) {
      f.likelihood += lk::step;
      f.support.push_back("the plan of the job does not fit either");
    } else {
      f.likelihood -= lk::step;
      f.against.push_back("the plan of the job fits its training step");
    }
  }
  f.cause = "the job's live tensors and this request need more than the GPU has at this point";
  // A message with no line above it: the phase rules have nothing to read, so the finding says
  // which readings the message alone leaves open and what decides them.
  if (r.context.empty() && o.phase == oom_phase::unknown)
    f.cause += "; the message alone cannot tell this from an evaluation without no_grad, tensors kept across "
               "iterations, or a checkpoint save or load: the traceback above the message decides (paste it), "
               "and the message at two iterations shows growth";
  f.fix = fmt::format(
      "a smaller batch (with gradient accumulation) or inputs, activation checkpointing, "
      "bf16/fp16, FSDP / "
      "ZeRO-3 or CPU offload: the smallest that fits ({})",
      where_fixes_are_priced(in));
  // Without a job, the GPU it would take as it is: its tensors and the request alone.
  if (!in.job && o.allocated && o.requested)
    f.fix += fmt::format("; else a GPU with over {}", format_bytes(*o.allocated + *o.requested));
  return f;
}

finding explain_xla(const oom_facts& o) {
  namespace lk = likelihood;
  const auto& r = *o.report;
  finding f{"OOM001", "XLA out of memory (RESOURCE_EXHAUSTED)", severity::error, {}, {}, {}, {}, {},
            "does_not_fit", lk::likely, {}, {}};
  f.evidence.push_back(fmt::format("line {}: tried to allocate {}; pool limit {}, in use {}", r.line,
                                   size_or_unknown(r.requested), size_or_unknown(r.capacity),
                                   size_or_unknown(r.in_use)));
  if (r.origin != observe::oom_origin::allocator) {
    f.likelihood = lk::weak;
    f.against.push_back("the allocation was made outside XLA's pool (StreamExecutorMemoryAllocator, a cuDNN or "
                        "cuBLAS workspace): it failed in what the pool leaves of the GPU, not in the pool");
  }
  if (r.requested && r.largest_free_block && *r.largest_free_block >= *r.requested) {
    f.likelihood = lk::weak;
    f.against.push_back(fmt::format("the pool's largest free block {} could hold the request",
                                    format_bytes(*r.largest_free_block)));
  }
  // The pool's limit left room for the request beyond what was in use, and the paste lacks the
  // regions' total that would say where that room was: free chunks too small for it (FRAG001).
  if (const auto room = o.bfc_room_in_limit()) {
    f.likelihood -= lk::step;
    f.against.push_back(
        fmt::format("the pool's limit left {} beyond what was in use, more than the request: "
                    "the pool was nearly full, but its free chunks were too small for it",
                    format_bytes(*room)));
  }
  f.cause = "the program's buffers at this point need more than the XLA pool (XLA_PYTHON_CLIENT_MEM_FRACTION "
            "x total) holds";
  f.fix = "less memory per step (jax.checkpoint / remat, a smaller batch), or a larger "
          "XLA_PYTHON_CLIENT_MEM_FRACTION when nothing else shares the GPU";
  // TensorFlow's BFC pool takes the GPU's free memory at the device's creation unless
  // allow_growth or per_process_gpu_memory_fraction is set (tensorflow/core/common_runtime/gpu/
  // gpu_device.cc; GPUOptions in tensorflow/core/protobuf/config.proto), so a pool that runs out
  // is the model's own tensors filling it, unless others held the GPU when it was made.
  if (o.placed_by == phase_source::batch_shape) {
    f.likelihood -= lk::step;
    f.against.push_back(
        fmt::format("the failed tensor's batch of {} is a whole data split, not a training step's: "
                    "batching its input, not a smaller model, is what makes it fit",
                    o.tensor_shape.front()));
  }
  // A limit somebody set (likelihood.hpp, pool_limit_set): the GPU may hold more than the pool
  // may take (JAX001 weighs the limit).
  if (r.capacity && lk::pool_limit_set(*r.capacity)) {
    f.likelihood -= lk::step;
    f.against.push_back(fmt::format(
        "the pool's limit is exactly {}, a size set in the program's configuration, not one the "
        "GPU's memory gives: the GPU may have more than the pool was allowed",
        format_bytes(*r.capacity)));
  }
  if (r.tensorflow) {
    // A request of the small pool's size refused (PROC001's from_tensorflow_pool reads why).
    if (r.requested && *r.requested < lk::small_request_max && !r.free) {
      f.likelihood -= lk::step;
      f.against.push_back(
          fmt::format("a request of {} refused: a pool the program filled itself fails on a "
                      "sizeable request first",
                      format_bytes(*r.requested)));
    }
    f.title = "TensorFlow out of memory (BFC allocator)";
    f.cause = "the model's tensors at this point need more than TensorFlow's BFC pool holds (by default the "
              "GPU's free memory when the device was created)";
    f.fix = "a smaller batch or input size (or a smaller model); allow_growth does not add memory, it only "
            "grows the pool on demand";
  }
  return f;
}

// Kaldi's allocator failing to grow (observe/kaldi_log.hpp): the message's total and free are
// the device's, read just before the failed cudaMalloc (cu-allocator.cc, AllocateNewRegion), and
// the Memory usage line before it gives what the allocator's regions held. Regions and one
// context (context_max) that account for all the device had in use leave no one else: the job
// filled the GPU itself. Memory beyond them is other processes' (PROC001 weighs it). Kaldi's own
// message for an exclusive GPU proposes a smaller minibatch; its training scripts set it
// (steps/nnet3/chain/train.py --trainer.num-chunk-per-minibatch, steps/nnet3/train_dnn.py
// --trainer.optimization.minibatch-size).
void explain_kaldi(const observe::oom_report& r, finding& f) {
  namespace lk = likelihood;
  f.title = "Kaldi allocator out of memory";
  if (r.pool_held) {
    f.evidence.back() = fmt::format("its allocator held {} in regions, {} of them in use",
                                    format_bytes(*r.pool_held), size_or_unknown(r.in_use));
    if (r.capacity && r.free) {
      const bytes used = *r.capacity - std::min(*r.capacity, *r.free);
      if (used <= *r.pool_held || used - *r.pool_held <= lk::context_max) {
        f.likelihood = lk::likely;
        f.support.push_back(fmt::format(
            "its regions and one context ({} at most) account for all {} in use of "
            "the GPU's {}: nothing else held it",
            format_bytes(lk::context_max), format_bytes(used), format_bytes(*r.capacity)));
      } else {
        f.likelihood = lk::weak;
        f.against.push_back(
            fmt::format("{} in use beyond its regions and one context: other processes hold part "
                        "of the GPU",
                        format_bytes(used - *r.pool_held - lk::context_max)));
      }
    }
  } else {
    f.evidence.pop_back();
    f.against.push_back(
        "the paste lacks the allocator's Memory usage line: what the job itself held is not "
        "shown, other processes may hold the rest");
  }
  f.cause =
      "the job's matrices at this point need more than the GPU has: Kaldi's allocator could not "
      "add the "
      "region it needed";
  f.fix =
      "a smaller minibatch (steps/nnet3/chain/train.py --trainer.num-chunk-per-minibatch, "
      "steps/nnet3/train_dnn.py --trainer.optimization.minibatch-size) or shorter chunks, or a GPU "
      "with "
      "more memory";
}

// The driver or a CUDA library ran out, under no allocator's message: the figures that would
// tell the job's own share are missing, and the call that failed says where the memory went.
finding explain_cuda(const oom_facts& o, const doctor_input& in) {
  namespace lk = likelihood;
  const auto& r = *o.report;
  const bool context = r.origin == observe::oom_origin::context_creation;
  finding f{"OOM001", "CUDA driver or library out of memory", severity::error, {}, {}, {}, {}, {},
            "does_not_fit", context ? lk::weak - lk::step : lk::weak, {}, {}};
  f.evidence.push_back(fmt::format("line {}: {}", r.line, r.raw.substr(0, 160)));
  // Another framework's allocator (Theano's "Error allocating N bytes of device memory"): its
  // own request failed, so the job's memory is the first reading; the free figure says how
  // little was left, not who held the rest.
  if (r.origin == observe::oom_origin::allocator) {
    f.title = "framework allocator out of memory";
    f.likelihood = lk::possible;
    f.evidence.back() = fmt::format("line {}: tried to allocate {}, {} free of {}", r.line,
                                    size_or_unknown(r.requested), size_or_unknown(r.free),
                                    size_or_unknown(r.capacity));
    // A pool that says what it held (CuPy's "allocated so far", MPS's "MPS allocated") leaves
    // out only the device's other users, and a limit it was held to.
    // CUDA.jl's capacity is the device's total, the others' the limit set on their pool.
    const bool device_total = o.allocator == observe::oom_allocator::cudajl_pool;
    if (o.reserved || o.allocated)
      f.evidence.push_back(fmt::format(
          "the {} held {}{}", observe::allocator_name(o.allocator),
          format_bytes(o.reserved ? *o.reserved : *o.allocated),
          r.capacity ? fmt::format(fmt::runtime(device_total ? " of the device's {}"
                                                             : " under its limit of {}"),
                                   format_bytes(*r.capacity))
                     : ""));
    if (!(o.reserved || o.allocated))
      f.against.push_back(
          "the message does not say how much the framework itself held: other processes may "
          "hold the rest");
    else if (!r.capacity)
      f.against.push_back(
          "the message gives what the pool held but not the device's capacity: other processes "
          "may hold the rest");
    f.cause = "the job needs more than the GPU has at this point";
    f.fix = "a smaller batch or input, or a GPU with more memory (or running on the CPU)";
    if (o.allocator == observe::oom_allocator::kaldi) {
      explain_kaldi(r, f);
      return f;
    }
    if (auto own = runtime_fix(o.allocator, fix_kind::does_not_fit); !own.empty()) {
      f.title = fmt::format("{} out of memory", observe::allocator_name(o.allocator));
      f.fix = std::move(own);
    }
    // CUDA.jl's cap on its pool (JULIA_CUDA_HARD_MEMORY_LIMIT, before 3.4 JULIA_CUDA_MEMORY_LIMIT)
    // is checked before each allocation (memory.jl, memory_limit_exceeded): what the pool holds
    // and the request above it fail however much the device has free.
    if (device_total && r.fraction_limit && o.reserved && o.requested &&
        *o.reserved + *o.requested > *r.fraction_limit) {
      f.likelihood = lk::likely;
      f.support.push_back(fmt::format(
          "the pool's {} and the request's {} exceed the memory limit of {} set "
          "on it{}",
          format_bytes(*o.reserved), format_bytes(*o.requested), format_bytes(*r.fraction_limit),
          o.free ? fmt::format(", with {} free on the device", format_bytes(*o.free)) : ""));
      f.cause =
          "the pool reached the memory limit set on it (JULIA_CUDA_HARD_MEMORY_LIMIT), not the "
          "GPU's "
          "capacity";
      f.fix =
          "a higher JULIA_CUDA_HARD_MEMORY_LIMIT (JULIA_CUDA_MEMORY_LIMIT before CUDA.jl 3.4) "
          "where the "
          "GPU is not shared, or " +
          f.fix;
    }
    return f;
  }
  f.against.push_back(context ? "creating a CUDA context failed: the process had allocated nothing of its own yet"
                              : "raised by a CUDA call outside any framework's allocator: the job's own tensors "
                                "are not what ran out");
  f.cause = "the job needs more than the GPU has at this point";
  f.fix =
      "the smallest change that makes the job fit (a smaller batch, activation checkpointing, "
      "sharding "
      "or offload); " +
      where_fixes_are_priced(in);
  return f;
}

}  // namespace

std::vector<finding> out_of_memory_message(const doctor_input& in) {
  if (!in.observed) return {};
  std::vector<finding> out;
  for (const auto& o : in.observed->ooms) {
    const auto facts = facts_of(o);
    switch (o.kind) {
      case observe::oom_kind::torch: out.push_back(explain_torch(facts, in)); break;
      case observe::oom_kind::xla: out.push_back(explain_xla(facts)); break;
      case observe::oom_kind::cuda:
        out.push_back(explain_cuda(facts, in));
        break;
    }
  }
  return out;
}

}  // namespace vramscope::doctor::rules
