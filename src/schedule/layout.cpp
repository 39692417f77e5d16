#include "schedule/layout.hpp"

#include <vramscope/model/modules.hpp>

#include <algorithm>

namespace vramscope::schedule {

namespace {

using job::strategy;

int size_of(dtype t) { return static_cast<int>(bytes_of(t, 1)); }

// Tensor parallelism splits the matrices of blocks and the vocabulary of embedding and head;
// norms and other vectors are replicated (Megatron-style layout).
std::uint64_t tp_split(const model::tensor& t, model::unit_kind kind, int tp) {
  const std::uint64_t n = t.numel();
  if (tp <= 1 || t.shape.size() < 2) return n;
  const bool split = kind == model::unit_kind::block || kind == model::unit_kind::embedding ||
                     kind == model::unit_kind::head || kind == model::unit_kind::vision_block;
  return split ? ceil_div(n, static_cast<std::uint64_t>(tp)) : n;
}

// Frozen base weights quantised as in QLoRA: nf4/int4 with one 8-bit absmax per 64 values
// (double quantisation), int8 with one fp32 scale per row (approximated per 4096 values).
bytes quantised_bytes(dtype q, std::uint64_t numel) {
  if (q == dtype::nf4 || q == dtype::int4) return bytes_of(q, numel) + ceil_div(numel, 64);
  return bytes_of(q, numel) + ceil_div(numel, 4096) * 4;
}

}  // namespace

rank_info make_rank_info(const job::job_spec& job, int rank) {
  rank_info r;
  r.rank = rank;
  r.world = job.world_size();
  r.tp = std::max(1, job.parallel.tp);
  r.dp_replicate = std::max(1, job.parallel.dp_replicate);
  r.dp_shard = job.parallel.dp_shard > 0 ? job.parallel.dp_shard
                                         : std::max(1, r.world / (r.tp * r.dp_replicate));
  if (job.parallel.kind == strategy::ddp || job.parallel.kind == strategy::single) r.dp_shard = 1;
  if (job.parallel.kind == strategy::fsdp1 && job.parallel.fsdp_sharding == job::sharding::hybrid_shard)
    r.dp_shard = std::min(r.dp_shard, job.hardware.gpus_per_node);
  if (job.parallel.kind == strategy::fsdp1 && job.parallel.fsdp_sharding == job::sharding::no_shard)
    r.dp_shard = 1;
  r.local_rank = rank % std::max(1, job.hardware.gpus_per_node);
  return r;
}

state_dtypes make_state_dtypes(const job::job_spec& job) {
  const auto& p = job.precision;
  state_dtypes d;
  d.compute = size_of(p.params);
  d.reduce = size_of(p.reduce);
  d.frozen = size_of(p.params);
  d.state = size_of(job.optimizer.state);
  switch (job.parallel.kind) {
    case strategy::fsdp1:
    case strategy::fsdp2:
    case strategy::jax:
      d.stored = size_of(p.master);
      d.grad = size_of(p.master);
      break;
    case strategy::zero1:
    case strategy::zero2:
    case strategy::zero3:
      d.stored = size_of(p.params);
      d.grad = size_of(p.params);
      d.master = p.master != p.params ? size_of(p.master) : 0;
      break;
    case strategy::ddp:
    case strategy::single:
      d.stored = p.autocast ? size_of(p.master) : size_of(p.params);
      d.grad = d.stored;
      d.master = (!p.autocast && p.master != p.params) ? size_of(p.master) : 0;
      break;
  }
  return d;
}

bool shards_parameters(const job::job_spec& job) {
  switch (job.parallel.kind) {
    case strategy::fsdp1: return job.parallel.fsdp_sharding != job::sharding::no_shard;
    case strategy::fsdp2:
    case strategy::zero3:
    case strategy::jax: return true;
    default: return false;
  }
}

layout make_layout(const model::model_spec& model, const job::job_spec& job, const rank_info& r) {
  layout out;
  out.dtypes = make_state_dtypes(job);
  const auto& lora = job.lora;
  // Adapter pairs per tensor (model/modules.hpp); build_program has validated the targets.
  const auto targets = lora.enabled ? model::lora_targets(model, lora.targets) : model::lora_target_set{};
  VRAMSCOPE_EXPECTS(targets, "lora.targets not validated: " + (targets ? "" : targets.error().message));
  for (const auto& u : model.units) {
    unit_layout ul;
    ul.name = u.name;
    ul.kind = u.kind;
    out.units.push_back(std::move(ul));
  }
  auto find_unit = [&](const std::string& name) -> unit_layout* {
    for (auto& ul : out.units)
      if (ul.name == name) return &ul;
    return nullptr;
  };
  for (const auto& t : model.tensors) {
    unit_layout* ul = find_unit(t.unit);
    if (!ul) continue;
    const std::uint64_t n = tp_split(t, ul->kind, r.tp);
    if (!lora.enabled) {
      ul->tensors.push_back(n);
      ul->trainable.push_back(n);
      continue;
    }
    // LoRA: the base tensor is frozen; each target matrix gains A (r x in) and B (out x r),
    // trainable and kept in the master dtype (adapters are upcast to fp32 by default).
    const dtype base = lora.base_quantization.value_or(job.precision.params);
    ul->frozen_bytes += lora.base_quantization ? quantised_bytes(base, n) : bytes_of(base, n);
    if (const int pairs = targets->adapters[static_cast<std::size_t>(&t - model.tensors.data())]) {
      const auto rank = static_cast<std::uint64_t>(lora.rank) * static_cast<std::uint64_t>(pairs);
      const std::uint64_t adapter = ceil_div(rank * (t.shape[0] + t.shape[1]),
                                             static_cast<std::uint64_t>(r.tp));
      ul->tensors.push_back(adapter);
      ul->trainable.push_back(adapter);
    }
  }
  for (auto& ul : out.units) {
    for (auto n : ul.tensors) ul.numel += n;
    for (auto n : ul.trainable) ul.trainable_numel += n;
    out.numel += ul.numel;
    out.trainable_numel += ul.trainable_numel;
  }
  if (lora.enabled) out.dtypes.stored = out.dtypes.grad = size_of(job.precision.master);
  return out;
}

}  // namespace vramscope::schedule
