#include <vramscope/job/resolve.hpp>

#include <vramscope/job/gpu_catalog.hpp>
#include <vramscope/job/job_names.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "job/field_table.hpp"
#include "job/validation.hpp"

namespace vramscope::job {

void detail::mark_derived(job_spec& job, const std::string& path) {
  auto& derived = job.provenance.derived;
  if (std::find(derived.begin(), derived.end(), path) == derived.end()) derived.push_back(path);
}

namespace {

using detail::mark_derived;

using detail::field_error;
using detail::is_set;

// The jax version assumed when a jax job names none (memory defaults change at 0.4.14).
constexpr const char* default_jax_version = "0.5.0";

// Values derived by an earlier resolution go back to their defaults, so they follow overrides.
void reset_derived(job_spec& job) {
  const job_spec defaults;
  for (const auto& path : job.provenance.derived)
    if (const auto* f = detail::find_field(path)) f->copy(job, defaults);
  job.provenance.derived.clear();
}

maybe_error derive_hardware(job_spec& job, warnings& notes) {
  auto& hw = job.hardware;
  const gpu_info* gpu = lookup_gpu(hw.gpu);
  if (gpu != nullptr) hw.gpu = std::string(gpu->name);  // "h100" is written back as H100-80GB
  if (hw.capacity == 0) {
    if (gpu == nullptr) return field_error(job, "hardware.gpu", find_gpu(hw.gpu).error().message);
    hw.capacity = gpu->memory;
    mark_derived(job, "hardware.gpu_memory");
  } else if (gpu != nullptr && hw.capacity > gpu->memory) {
    notes.push_back(field_error(
        job, "hardware.gpu_memory",
        fmt::format("{} is more than the {} reports ({})", format_bytes(hw.capacity), gpu->name,
                    format_bytes(gpu->memory))));
  }
  if (!is_set(job, "hardware.driver_reserved")) {
    // A gpu_memory other than the catalog's describes part of a GPU (MIG) or another board:
    // the catalog's reservation belongs to the whole catalog GPU only.
    hw.driver_reserved = gpu != nullptr && hw.capacity == gpu->memory ? gpu->reserved : 0;
    mark_derived(job, "hardware.driver_reserved");
  } else if (hw.driver_reserved >= hw.capacity) {
    return field_error(job, "hardware.driver_reserved",
                       fmt::format("{} is not less than the GPU's memory ({})",
                                   format_bytes(hw.driver_reserved), format_bytes(hw.capacity)));
  }
  if (hw.compute_capability == 0) {
    hw.compute_capability = gpu != nullptr ? gpu->compute_capability : 80;
    if (gpu == nullptr)
      notes.push_back(field_error(job, "hardware.compute_capability",
                                  fmt::format("GPU \"{}\" is not in the catalog: assuming 8.0; set "
                                              "hardware.compute_capability", hw.gpu)));
    mark_derived(job, "hardware.compute_capability");
  }
  return std::nullopt;
}

maybe_error derive_framework(job_spec& job) {
  auto& fw = job.framework;
  const bool jax = job.parallel.kind == strategy::jax;
  if (jax && fw.name == "torch" && !is_set(job, "framework.name")) {
    fw.name = "jax";
    mark_derived(job, "framework.name");
    if (!is_set(job, "framework.version")) {
      fw.version = default_jax_version;
      mark_derived(job, "framework.version");
    }
  }
  if (jax && fw.name != "jax")
    return field_error(job, "parallel.strategy",
                       fmt::format("jax needs framework.name: jax (framework.name is {})", fw.name));
  if (!jax && fw.name == "jax")
    return field_error(job, "framework.name",
                       fmt::format("jax needs parallel.strategy: jax (parallel.strategy is {})",
                                   name_of(job.parallel.kind)));
  if (fw.name != "jax" && !fw.jaxlib.empty())
    return field_error(job, "framework.jaxlib", "applies to jax jobs only (framework.name is torch)");
  if (fw.name == "jax" && fw.jaxlib.empty()) {
    fw.jaxlib = fw.version;
    mark_derived(job, "framework.jaxlib");
  }
  return std::nullopt;
}

// IA3's targets default to PEFT's for decoder models (TRANSFORMERS_MODELS_TO_IA3_TARGET_MODULES
// _MAPPING, llama: k_proj, v_proj, down_proj) rather than LoRA's q_proj, v_proj.
void derive_peft(job_spec& job) {
  if (job.lora.method != "ia3" || is_set(job, "lora.targets")) return;
  job.lora.targets = {"k_proj", "v_proj", "down_proj"};
  mark_derived(job, "lora.targets");
}

// DDP and a single GPU have no parameter-dtype option: lower-precision compute over
// higher-precision weights is torch.autocast.
void derive_precision(job_spec& job) {
  const auto kind = job.parallel.kind;
  auto& p = job.precision;
  if ((kind == strategy::ddp || kind == strategy::single) && p.params != p.master && !p.autocast &&
      !is_set(job, "precision.autocast") && !is_set(job, "precision")) {
    p.autocast = true;
    mark_derived(job, "precision.autocast");
  }
}

// The dtype of the optimizer state follows the parameters the optimizer updates: torch
// optimizers create it with torch.zeros_like(param) (torch/optim/adamw.py, _init_group). Those
// parameters are the master weights for every strategy modelled: FSDP's sharded parameters,
// the weights of DDP / a single GPU (or the master copy beside them), LoRA adapters. DeepSpeed
// ZeRO steps its fp32 master partition (zero.cpp), whatever precision.master says.
// bitsandbytes keeps its 32-bit state (and 8-bit state of small tensors) in fp32 whatever the
// parameters are (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state); a given value
// is overruled, with the warning of check_training, so that the spec shows what is planned.
void derive_optimizer_state(job_spec& job) {
  if (is_bitsandbytes(job.optimizer.kind)) {
    job.optimizer.state = dtype::f32;
    mark_derived(job, "optimizer.state");
    return;
  }
  if (is_set(job, "optimizer.state")) return;
  const auto kind = job.parallel.kind;
  // Megatron-LM's optimizer steps fp32 main parameters too (megatron/core/optimizer).
  const bool fp32_main = is_zero(kind) || kind == strategy::megatron;
  job.optimizer.state = fp32_main ? dtype::f32 : job.precision.master;
  mark_derived(job, "optimizer.state");
}

std::string world_text(const job_spec& job) {
  return fmt::format("{} GPUs (hardware.nodes {} x hardware.gpus_per_node {})", job.world_size(),
                     job.hardware.nodes, job.hardware.gpus_per_node);
}

maybe_error derive_single(job_spec& job) {
  // A single-device job runs one GPU per pipeline stage.
  const int stages = std::max(1, job.parallel.pp);
  if (job.parallel.kind != strategy::single || job.world_size() == stages) return std::nullopt;
  if (!is_set(job, "hardware.gpus_per_node") && !is_set(job, "hardware.nodes")) {
    job.hardware.gpus_per_node = stages;
    mark_derived(job, "hardware.gpus_per_node");
    return std::nullopt;
  }
  const std::string path = is_set(job, "hardware.nodes") ? "hardware.nodes" : "hardware.gpus_per_node";
  return field_error(job, path,
                     stages == 1 ? fmt::format("strategy single runs on one GPU, but the job has {}",
                                               world_text(job))
                                 : fmt::format("strategy single runs one GPU per pipeline stage "
                                               "(parallel.pp {}), but the job has {}",
                                               stages, world_text(job)));
}

// FSDP1 HYBRID_SHARD shards within a node and replicates across nodes by default.
void derive_hybrid(job_spec& job) {
  auto& par = job.parallel;
  if (par.kind != strategy::fsdp1 || par.fsdp_sharding != sharding::hybrid_shard ||
      par.dp_replicate != 1 || is_set(job, "parallel.dp_replicate"))
    return;
  const int world = job.world_size();
  if (par.dp_shard == 0 && job.hardware.gpus_per_node % par.tp == 0) {
    par.dp_shard = job.hardware.gpus_per_node / par.tp;
    mark_derived(job, "parallel.dp_shard");
  }
  if (par.dp_shard > 0 && world % (par.tp * par.dp_shard) == 0) {
    par.dp_replicate = world / (par.tp * par.dp_shard);
    mark_derived(job, "parallel.dp_replicate");
  }
}

// Interleaved schedules give each rank two virtual stages unless told otherwise (torchtitan's
// default for multi-stage schedules); the others one.
// A pipeline stage reduces its gradients at the last micro-batch's backward only
// (torch.distributed.pipelining, _PipelineStageBase.backward_maybe_with_nosync): under FSDP2
// the unsharded gradients of the earlier ones are kept, as with no_sync.
void derive_pipeline(job_spec& job) {
  auto& par = job.parallel;
  if (par.pp > 1 && par.kind == strategy::fsdp2 && !is_set(job, "parallel.no_sync")) {
    par.no_sync = true;
    mark_derived(job, "parallel.no_sync");
  }
  if (par.pp_stages_per_rank != 0) return;
  if (par.pp > 1 && par.pp_layers_per_stage > 0)
    return;  // from the model's blocks (complete_with_model)
  par.pp_stages_per_rank = par.pp > 1 && multi_stage(par.pp_sched) ? 2 : 1;
  mark_derived(job, "parallel.pp_stages_per_rank");
}

maybe_error derive_layout(job_spec& job) {
  if (auto err = derive_single(job)) return err;
  derive_hybrid(job);
  auto& par = job.parallel;
  derive_pipeline(job);
  const int world = job.world_size();
  if (par.pp > 1 && world % par.pp != 0)
    return field_error(job, "parallel.pp",
                       fmt::format("{} pipeline stages do not divide the job's {}", par.pp,
                                   world_text(job)));
  const int tp_rep = par.tp * par.dp_replicate * par.pp * par.cp;
  const std::string others = fmt::format("{}{}", par.pp > 1 ? fmt::format(" x pp {}", par.pp) : "",
                                         par.cp > 1 ? fmt::format(" x cp {}", par.cp) : "");
  if (world % tp_rep != 0) {
    // Blame the dimension most likely just set: context, pipeline, tensor, then replicas.
    const std::string path = par.cp > 1   ? "parallel.cp"
                             : par.pp > 1 ? "parallel.pp"
                             : par.tp > 1 || par.dp_replicate == 1 ? "parallel.tp"
                                                                    : "parallel.dp_replicate";
    return field_error(job, path,
                       fmt::format("tp {} x dp_replicate {}{} = {} does not divide the job's {}",
                                   par.tp, par.dp_replicate, others, tp_rep, world_text(job)));
  }
  if (par.dp_shard == 0) {
    par.dp_shard = world / tp_rep;
    mark_derived(job, "parallel.dp_shard");
  } else if (static_cast<long long>(tp_rep) * par.dp_shard != world) {
    return field_error(job, "parallel.dp_shard",
                       fmt::format("tp {} x dp_replicate {}{} x dp_shard {} = {} ranks, but the "
                                   "job has {}", par.tp, par.dp_replicate, others, par.dp_shard,
                                   static_cast<long long>(tp_rep) * par.dp_shard, world_text(job)));
  }
  return std::nullopt;
}

}  // namespace

status resolve_job(job_spec& job, warnings* notes) {
  warnings found;
  reset_derived(job);
  if (auto err = derive_hardware(job, found)) return *err;
  if (auto err = derive_framework(job)) return *err;
  derive_precision(job);
  derive_peft(job);
  derive_optimizer_state(job);
  if (auto err = derive_layout(job)) return *err;
  if (auto err = detail::check_parallel(job, found)) return *err;
  if (auto err = detail::check_training(job, found)) return *err;
  if (auto err = detail::check_env(job, found)) return *err;
  if (notes != nullptr) notes->insert(notes->end(), found.begin(), found.end());
  return ok();
}

}  // namespace vramscope::job
