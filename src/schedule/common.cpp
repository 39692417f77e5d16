#include "schedule/strategy.hpp"

#include <algorithm>

namespace vramscope::schedule {

std::vector<tensor_id> alloc_each(program_builder& out, const std::vector<std::uint64_t>& tensors,
                                  int element_bytes, category cat, std::uint32_t stream) {
  std::vector<tensor_id> ids;
  ids.reserve(tensors.size());
  for (auto n : tensors) ids.push_back(out.alloc(n * static_cast<bytes>(element_bytes), cat, stream));
  return ids;
}

void free_all(program_builder& out, std::vector<tensor_id>& ids) {
  for (auto& id : ids) out.free(id);
  ids.clear();
}

void optimizer_first_step(program_builder& out, const job::job_spec& job,
                          const std::vector<std::uint64_t>& trainable, int state_bytes,
                          int master_bytes, optimizer_state& st) {
  if (st.created) return;
  st.created = true;
  if (master_bytes > 0)
    for (auto n : trainable)
      st.master.push_back(out.alloc(n * static_cast<bytes>(master_bytes), category::optimizer));
  // torch optimizers create their state lazily, tensor by tensor, at the first step; paged
  // (bitsandbytes) buffers live in unified memory outside the caching allocator.
  for (auto n : trainable)
    for (const auto& b : optimizer_state_buffers(job.optimizer.kind, n, state_bytes)) {
      if (b.managed) out.managed(b.size);
      else st.states.push_back(out.alloc(b.size, category::optimizer));
    }
}

void optimizer_step_transient(program_builder& out, const job::job_spec& job,
                              const std::vector<std::uint64_t>& trainable, int state_bytes,
                              std::uint32_t stream) {
  using job::optimizer_kind;
  const auto kind = job.optimizer.kind;
  std::uint64_t largest = 0;
  for (auto n : trainable) largest = std::max(largest, n);
  const auto e = static_cast<bytes>(state_bytes);
  tensor_id tmp = 0;
  if ((kind == optimizer_kind::adamw || kind == optimizer_kind::adam) && !job.optimizer.fused &&
      job.optimizer.foreach_impl) {
    // _foreach_sqrt(exp_avg_sq) materialises one state-sized list for every tensor at once.
    std::vector<tensor_id> ids;
    for (auto n : trainable) ids.push_back(out.alloc(n * e, category::temporary, stream));
    free_all(out, ids);
    return;
  }
  if (kind == optimizer_kind::adafactor)
    tmp = out.alloc(2 * largest * 4, category::temporary, stream);
  else if (kind == optimizer_kind::adamw || kind == optimizer_kind::adam)
    tmp = out.alloc(largest * e, category::temporary, stream);  // single-tensor loop: one at a time
  out.free(tmp);
}

// torchtune/training/memory.py, register_optim_in_bwd_hooks: `optim_dict[param].step()` then
// `optim_dict[param].zero_grad()` (set_to_none) in each parameter's post-accumulate-grad hook,
// with one optimizer per parameter (recipes/full_finetune_single_device.py, _setup_optimizer).
void optimizer_step_in_backward(program_builder& out, const job::job_spec& job, std::uint64_t numel,
                                int state_bytes, int master_bytes, bool first, optimizer_state& st,
                                std::uint32_t stream) {
  if (first) {
    if (master_bytes > 0)
      st.master.push_back(
          out.alloc(numel * static_cast<bytes>(master_bytes), category::optimizer, stream));
    for (const auto& b : optimizer_state_buffers(job.optimizer.kind, numel, state_bytes)) {
      if (b.managed) out.managed(b.size);
      else st.states.push_back(out.alloc(b.size, category::optimizer, stream));
    }
  }
  optimizer_step_transient(out, job, {numel}, state_bytes, stream);
}

bytes frozen_shard_bytes(const frozen_tensor& f, std::uint64_t world) {
  return ceil_div(f.elements, world) * static_cast<bytes>(f.element_bytes);
}

tensor_id load_frozen(program_builder& out, const frozen_tensor& f, int load_bytes) {
  // Quantising loaders put each weight on the GPU in the load dtype and quantise it there
  // (transformers' bitsandbytes path: Params4bit.to(cuda); torchtune builds the linear, then
  // converts it to NF4): the full-precision copy is freed once the packed one exists.
  tensor_id full = 0;
  if (f.quantised) full = out.alloc(f.numel * static_cast<bytes>(load_bytes), category::temporary);
  const tensor_id id = out.alloc(f.stored, category::parameters);
  out.free(full);
  return id;
}

std::vector<tensor_id> alloc_frozen(program_builder& out, const layout& lay, std::uint64_t world) {
  std::vector<tensor_id> ids;
  for (const auto& u : lay.units) {
    for (const auto& f : u.frozen)
      ids.push_back(world > 1 ? out.alloc(frozen_shard_bytes(f, world), category::parameters)
                              : load_frozen(out, f, lay.dtypes.compute));
    if (u.quant_state_bytes > 0) ids.push_back(out.alloc(u.quant_state_bytes, category::parameters));
  }
  return ids;
}

std::vector<tensor_id> alloc_quant_states(program_builder& out, const layout& lay) {
  std::vector<tensor_id> ids;
  for (const auto& u : lay.units) ids.push_back(out.alloc(u.quant_state_bytes, category::parameters));
  return ids;
}

std::vector<tensor_id> gather_frozen(program_builder& out, const unit_layout& u, std::uint32_t stream) {
  std::vector<tensor_id> ids;
  for (const auto& f : u.frozen) ids.push_back(out.alloc(f.gathered, category::parameters, stream));
  return ids;
}

std::size_t tied_embedding_unit(const model::model_spec& model, const layout& lay) {
  if (!model.text.tied_embeddings) return lay.units.size();
  for (std::size_t u = 0; u < lay.units.size(); ++u)
    if (lay.units[u].kind == model::unit_kind::embedding)
      return lay.units[u].trainable.empty() ? lay.units.size() : u;
  return lay.units.size();
}

}  // namespace vramscope::schedule
