// FSDP2 (fully_shard): per-parameter shards padded on dim 0; one all-gather per parameter group
// into a flat output on the copy-in stream, copied out into per-parameter unsharded tensors on
// the compute stream; reduce-scatter input on the compute stream (kept until the next group's
// post-backward) and output on the reduce-scatter stream. No record_stream anywhere.
// Facts: torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, _fsdp_param_group.py.
#include <algorithm>
#include <cstdint>
#include <numeric>

#include <vramscope/core/version.hpp>

#include "schedule/fsdp_groups.hpp"
#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

class fsdp2_strategy final : public strategy {
 public:
  explicit fsdp2_strategy(step_context& ctx)
      : strategy(ctx), wrapping_(shared_wrapping(ctx.lay_owner, ctx.job)), wrap_(*wrapping_) {
    world_ = static_cast<std::uint64_t>(std::max(1, ctx.rank.dp_shard));
    state_.resize(wrap_.groups.size());
    // Each group's tensors padded to a multiple of its shard count, asked for at every unshard
    // and reduce-scatter.
    padded_.resize(wrap_.groups.size());
    for (std::size_t g = 0; g < wrap_.groups.size(); ++g) {
      const std::uint64_t w = world_of(g);
      for (auto n : wrap_.groups[g].tensors) padded_[g].push_back((n + w - 1) / w * w);
    }
    // The root group's tensors, unit by unit (wrap_units adds them in unit order).
    root_first_.assign(lay().units.size() + 1, 0);
    std::size_t next = 0;
    for (std::size_t u = 0; u < lay().units.size(); ++u) {
      root_first_[u] = next;
      if (wrap_.group_of_unit[u] == 0) next += lay().units[u].trainable.size();
    }
    root_first_.back() = next;
    root_unit_grads_.assign(lay().units.size(), false);
    if (const std::size_t u = tied_embedding_unit(ctx.model, lay());
        torch_hooks() && u < lay().units.size() && wrap_.group_of_unit[u] == 0)
      tied_index_ = root_first_[u];
    head_ = wrap_.head_group();
    embedding_own_ = torch_hooks() && !lay().units.empty() &&
                     lay().units[0].kind == model::unit_kind::embedding &&
                     wrap_.group_of_unit[0] != 0;
  }

  void init() override {
    const auto& in = job().init;
    for (const std::size_t g : shard_order()) {
      auto& s = state_[g];
      // Without meta-device construction each full parameter exists beside its new shard
      // while fully_shard runs; with it only shards are ever materialised. Frozen (LoRA base)
      // parameters are sharded like any other (fully_shard does not look at requires_grad).
      std::vector<tensor_id> full;
      if (!in.meta_device && in.load != job::weight_load::none) {
        full = alloc_each(out(), wrap_.groups[g].tensors, lay().dtypes.stored, category::parameters);
        for (auto u : wrap_.groups[g].units)
          for (const auto& f : lay().units[u].frozen) full.push_back(load_frozen(out(), f, lay().dtypes.compute));
      }
      if (!job().parallel.cpu_offload) {
        s.shards = alloc_each(out(), shard_numels(g), lay().dtypes.stored, category::parameters);
        if (!is_experts(g))
          for (auto u : wrap_.groups[g].units)
            for (const auto& f : lay().units[u].frozen)
              s.shards.push_back(out().alloc(frozen_shard_bytes(f, world_), category::parameters));
      }
      if (!is_experts(g))
        for (auto u : wrap_.groups[g].units)  // quantisation constants stay whole on every rank
          s.shards.push_back(out().alloc(lay().units[u].quant_state_bytes, category::parameters));
      free_all(out(), full);
      // Loading a full state dict from rank 0 broadcasts one parameter at a time.
      if (in.meta_device && in.load == job::weight_load::rank0) {
        for (auto n : wrap_.groups[g].tensors) {
          auto t = out().alloc(n * static_cast<bytes>(lay().dtypes.stored), category::communication);
          out().free(t);
        }
      }
    }
  }

  // set_requires_gradient_sync(False): unsharded gradients accumulate across micro-batches
  // and are reduce-scattered at the synchronised one (_fsdp_param_group.post_backward).
  void begin_micro_batch(bool last) override { sync_ = last || !job().parallel.no_sync; }

  void pre_forward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    // The root's pre-forward runs as the model's forward begins, before the first unit's: with
    // the embedding in a group of its own the root's first unit comes later.
    if (unit == 0 && embedding_own_ && !state_[0].gathered && !wrap_.groups[0].units.empty())
      unshard(0, /*forward=*/true);
    if (is_first(unit, g) && !state_[g].gathered) unshard(g, /*forward=*/true);
    if (const std::size_t e = wrap_.experts_of_unit[unit]; e != 0 && !state_[e].gathered)
      unshard(e, /*forward=*/true);
  }

  void post_forward(std::size_t unit) override {
    if (const std::size_t e = wrap_.experts_of_unit[unit]; e != 0) release_after_forward(e);
    const std::size_t g = wrap_.group_of_unit[unit];
    if (!is_last(unit, g) || (wrap_.groups[g].root && !torch_hooks())) return;
    if (g != 0 && g == head_) return;  // its forward is the loss stage's first matmul (pre_loss)
    if (!wrap_.groups[g].root) {
      release_after_forward(g);
    } else if (!loss_in_model() && head_ == 0) {
      root_post_forward();
    }
  }

  // A head of its own (parallel.shard_separately): the schedule computes its matmul with the
  // loss, so its group, gathered at the head's pre-forward, is resharded here, as its
  // post-forward hook does once the projection returns, before the loss; with the loss outside
  // the model the root's post-forward follows, the model's forward being over.
  void pre_loss() override {
    if (head_ == 0) return;
    release_after_forward(head_);
    if (!loss_in_model()) root_post_forward();
  }

  // transformers computes the loss inside the model's forward (LlamaForCausalLM.forward calls
  // self.loss_function when given labels): the root module's post-forward hook runs after the
  // loss, and its pre-backward hook, registered on the output (the loss among it), before the
  // loss's backward (torch/distributed/fsdp/_fully_shard/_fsdp_state.py, _post_forward and
  // _register_pre_backward_hook).
  void end_forward() override {
    if (loss_in_model()) root_post_forward();
  }
  // The head's own group in backward: the root's pre-backward (a hook on the model's output)
  // and the head's come before the projection's backward, which the schedule runs with the
  // loss's: both are gathered from here, and the head's gradients reduce-scattered once the
  // loss's backward is done (post_loss_backward).
  void begin_backward() override {
    if (loss_in_model() || (head_ != 0 && torch_hooks())) root_pre_backward();
    if (head_ == 0) return;
    if (!state_[head_].gathered) unshard(head_, false);
    if (state_[head_].grads.empty())
      state_[head_].grads =
          alloc_each(out(), padded_numels(head_), lay().dtypes.compute, category::gradients);
  }
  void post_loss_backward() override {
    if (head_ != 0) reduce_gradients(head_);
    // A tied head is part of the loss stage (the model has no head unit): its gradient of the
    // embedding's matrix exists from the end of the loss's backward (root_unit_gradients).
    if (head_ == 0 && tied_index_ < padded_numels(0).size() && tied_grad_ == 0)
      tied_grad_ =
          out().alloc(padded_numels(0)[tied_index_] * static_cast<bytes>(lay().dtypes.compute),
                      category::gradients);
  }

  void pre_backward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    if (g != 0 && g == head_) return;  // with the loss's backward (begin_backward)
    if (wrap_.groups[g].root && torch_hooks()) {
      if (is_last(unit, g) && !loss_in_model() && head_ == 0) root_pre_backward();
      root_unit_gradients(unit);
      return;
    }
    if (forward_output_ != 0) out().free(forward_output_);  // last forward group clears it
    if (!is_last(unit, g)) return;
    if (!state_[g].gathered) unshard(g, false);
    if (g > 1 && !state_[g - 1].gathered && !is_experts(g - 1)) unshard(g - 1, false);  // prefetch one ahead
    if (state_[g].grads.empty())
      state_[g].grads = alloc_each(out(), padded_numels(g), lay().dtypes.compute, category::gradients);
    if (const std::size_t e = wrap_.experts_of_unit[unit]; e != 0) {
      if (!state_[e].gathered) unshard(e, false);
      if (state_[e].grads.empty())
        state_[e].grads = alloc_each(out(), padded_numels(e), lay().dtypes.compute, category::gradients);
    }
  }

  void post_backward(std::size_t unit) override {
    if (const std::size_t e = wrap_.experts_of_unit[unit]; e != 0) reduce_gradients(e);
    const std::size_t g = wrap_.group_of_unit[unit];
    if (g != 0 && g == head_) return;
    // The root's post-backward is a callback at the end of backward (after the first unit's),
    // not the backward of its first unit when the embedding is a group of its own.
    const bool root_at_end = embedding_own_;
    if (is_first(unit, g) && !(g == 0 && root_at_end)) reduce_gradients(g);
    if (unit == 0 && root_at_end && !wrap_.groups[0].units.empty()) reduce_gradients(0);
  }

 private:
  // The module hooks below are FSDP2's; predict/jax_plan.cpp plans a JAX step through this
  // strategy too, with the root's gradients at its pre-backward and nothing else of them.
  bool torch_hooks() const { return job().framework.name != "jax"; }
  bool loss_in_model() const { return torch_hooks() && job().training.loss == job::loss_impl::hf; }

  // The root group is resharded after forward only from torch 2.8 on, and there only when
  // fully_shard was given reshard_after_forward (as every job spec gives it): before, and with
  // the argument left at None, _lazy_init sets the root's post_forward_mesh_info to None
  // ("the parameters would be freed and all-gathered immediately"; pytorch/pytorch#154704 and
  // #155319, torch/distributed/fsdp/_fully_shard/_fsdp_state.py, _auto_reshard_after_forward).
  bool root_reshards() const {
    return version_number(job().framework.version) >= version_number("2.8") &&
           job().parallel.reshard_after_forward != 0;
  }

  // The root's post-forward: its own reshard (see root_reshards), and the last all-gather's
  // output, which the root frees once forward is over (_fsdp_state.py _post_forward:
  // `self._comm_ctx.all_gather_state = None`).
  void root_post_forward() {
    if (root_reshards()) release_after_forward(0);
    out().free(forward_output_);
    forward_output_ = 0;
  }

  // The root's pre-backward: its unshard, then the prefetch of the group whose forward ended
  // before the root's, the last block's (FSDPParamGroup._backward_prefetch walks
  // post_forward_order backwards; the root's post-forward is its last entry).
  void root_pre_backward() {
    if (forward_output_ != 0) out().free(forward_output_);
    forward_output_ = 0;
    if (!state_[0].gathered) unshard(0, false);
    const std::size_t last = wrap_.last_block_group();
    if (last != 0 && !state_[last].gathered) unshard(last, false);
  }

  // Autograd creates each unsharded gradient when the backward of the module that uses the
  // parameter runs (AccumulateGrad): the root's units are far apart in backward (the head's
  // gradient comes with the loss's backward, the embedding's last of all), so each gets its
  // own at its backward.
  //
  // A head tied to the embedding uses the embedding's unsharded parameter: the head's backward
  // gives it a gradient first, with the loss's (post_loss_backward), and the embedding's backward,
  // last of all, a second one, which AccumulateGrad adds to the first out of place; the two
  // summands go (the H200 history of fsdp2-save-full-offload, Llama 3.2 1B: a 501 MiB bf16 gradient
  // right after the root's unshard in the loss's backward, kept to the end, then the embedding's
  // 501 MiB and a 501 MiB sum before both are freed).
  void root_unit_gradients(std::size_t unit) {
    if (root_unit_grads_[unit]) return;
    root_unit_grads_[unit] = true;
    const auto compute = static_cast<bytes>(lay().dtypes.compute);
    const auto& padded = padded_numels(0);
    for (std::size_t i = root_first_[unit]; i < root_first_[unit + 1]; ++i) {
      auto grad = out().alloc(padded[i] * compute, category::gradients);
      if (i == tied_index_ && tied_grad_ != 0) {
        auto sum = out().alloc(padded[i] * compute, category::gradients);
        out().free(tied_grad_);
        out().free(grad);
        grad = sum;
      }
      state_[0].grads.push_back(grad);
    }
  }

  // reshard_after_forward for a group whose forward has finished.
  void release_after_forward(std::size_t g) {
    const int raf = job().parallel.reshard_after_forward;
    if (raf == 0) return;
    reshard(g);
    if (raf > 1)  // keep a shard over a group of `raf` ranks until backward
      state_[g].partial = out().alloc((gathered_bytes(g) + frozen_gathered(g)) / static_cast<std::uint64_t>(raf),
                                      category::parameters);
  }

  // The group's backward is done: its gradients are reduce-scattered (or kept under no_sync).
  void reduce_gradients(std::size_t g) {
    auto& s = state_[g];
    const auto& d = lay().dtypes;
    if (!sync_) {  // keep the unsharded gradients; only the parameters are resharded
      reshard(g);
      out().free(s.partial);
      return;
    }
    std::uint64_t total = 0;
    for (auto n : padded_numels(g)) total += n;
    // FSDPParamGroup.post_backward: the reshard first ("post_backward_reshard"), then
    // "post_backward_reduce" drops the previous group's reduce-scatter input
    // (`comm_ctx.reduce_scatter_state = None`) before foreach_reduce allocates this one's and
    // copies the unsharded gradients into it (_fsdp_param_group.py, _fsdp_collectives.py). A
    // JAX step keeps the order its plan was measured with (XLA assigns those buffers).
    if (torch_hooks()) {
      reshard(g);
      out().free(s.partial);
      out().free(pending_input_);
    }
    const tensor_id input =
        out().alloc(total * static_cast<bytes>(d.reduce), category::communication);
    free_all(out(), s.grads);
    if (!torch_hooks()) {
      out().free(pending_input_);
      reshard(g);
      out().free(s.partial);
    }
    if (g == 0) std::fill(root_unit_grads_.begin(), root_unit_grads_.end(), false);
    pending_input_ = input;
    if (total == 0) return;  // only frozen parameters: nothing to reduce
    auto output = out().alloc(total / world_of(g) * static_cast<bytes>(d.reduce), category::communication,
                              streams::reduce);
    if (job().parallel.cpu_offload) {
      out().free(output);
      return;
    }
    if (d.reduce != d.stored) {  // cast to the parameter dtype; the cast becomes the gradient
      auto cast = out().alloc(total / world_of(g) * static_cast<bytes>(d.stored), category::gradients);
      out().free(output);
      output = cast;
    }
    if (job().optimizer.in_backward) {
      // foreach_reduce runs each sharded parameter's post-accumulate-grad hooks under the
      // reduce-scatter stream (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py); the
      // gradients are views of one output, freed once the last of them is set to None.
      for (auto n : shard_numels(g))
        optimizer_step_in_backward(out(), job(), n, d.state, 0, !opt_.created, opt_, streams::reduce);
      out().free(output);
      return;
    }
    if (s.grad_shard == 0) {
      s.grad_shard = output;
    } else {
      out().free(output);  // accumulated into the existing gradient
    }
  }

  void end_backward() override { out().free(pending_input_); }

  void optimizer_step(int) override {
    out().phase("optimizer");
    if (job().parallel.cpu_offload) return;
    if (job().optimizer.in_backward) {  // stepped in backward; the state exists from now on
      opt_.created = true;
      return;
    }
    create_optimizer_state();
    optimizer_step_transient(out(), job(), shards(), lay().dtypes.state);
  }

  bool create_optimizer_state() override {
    if (job().optimizer.in_backward) return false;
    if (!job().parallel.cpu_offload)  // else the state is made beside the host's shards
      optimizer_first_step(out(), job(), shards(), lay().dtypes.state, 0, opt_);
    return true;
  }

  std::vector<std::uint64_t> shards() const {
    std::vector<std::uint64_t> out;
    for (std::size_t g = 0; g < wrap_.groups.size(); ++g)
      for (auto n : shard_numels(g)) out.push_back(n);
    return out;
  }

  void zero_grad() override {
    for (auto& s : state_) out().free(s.grad_shard);
  }

  void save_checkpoint() override {
    // A full state dict of DTensor parameters (torch/distributed/checkpoint/state_dict.py,
    // get_model_state_dict with StateDictOptions(full_state_dict=True); _gather_state_dict in
    // _state_dict_utils.py, as torchtune's gather_cpu_state_dict does it): each parameter in
    // turn is all-gathered (full_tensor) in its own dtype. With cpu_offload rank 0 copies it to
    // the host and the other ranks drop it; without, every rank keeps it on the GPU until the
    // state dict is dropped. A sharded save (torch.distributed.checkpoint) writes the local
    // shards as they are: nothing more on the GPU.
    if (job().checkpoint.save != job::state_dict_kind::full || !torch_hooks()) return;
    out().phase("checkpoint_save");
    const bool keeps = !job().checkpoint.offload_to_cpu;
    const auto stored = static_cast<bytes>(lay().dtypes.stored);
    std::vector<tensor_id> kept;
    const auto gather = [&](bytes size) {
      auto full = out().alloc(size, category::parameters);
      if (keeps) kept.push_back(full);
      else out().free(full);
    };
    for (std::size_t g = 0; g < wrap_.groups.size(); ++g)
      for (auto n : wrap_.groups[g].tensors) gather(n * stored);
    for (const auto& u : lay().units)  // a frozen base is saved too, in its own dtype
      for (const auto& f : u.frozen) gather(f.stored);
    // A head tied to the embedding is gathered again under its own name, lm_head.weight, the
    // state dict's last (get_model_state_dict gathers name by name; the H200 history of
    // fsdp2-save-full-gpu: a second 1002 MiB gather of Llama 3.2 1B's matrix at the end).
    if (const std::size_t u = tied_embedding_unit(ctx_.model, lay()); u < lay().units.size())
      gather(lay().units[u].trainable.front() * stored);
    free_all(out(), kept);
  }

 private:
  // The order fully_shard is applied in: block by block (a block's routed experts before the
  // block itself: torchtitan's apply_fsdp shards transformer_block.moe.experts, then the block),
  // the root last, since fully_shard(model) takes the parameters no inner call has claimed
  // (torchtitan parallelize.py apply_fsdp; bench/groundtruth/torch_wrap.py).
  std::vector<std::size_t> shard_order() const {
    std::vector<std::size_t> order;
    if (!torch_hooks()) {  // a JAX step: its parameters in group order, as before
      for (std::size_t g = 0; g < wrap_.groups.size(); ++g) order.push_back(g);
      return order;
    }
    for (std::size_t u = 0; u < wrap_.group_of_unit.size(); ++u) {
      if (const std::size_t e = wrap_.experts_of_unit[u]; e != 0) order.push_back(e);
      if (const std::size_t g = wrap_.group_of_unit[u]; g != 0 && is_first(u, g))
        order.push_back(g);
    }
    order.push_back(0);
    return order;
  }

  struct group_state {
    std::vector<tensor_id> shards, unsharded, grads;
    tensor_id partial = 0, grad_shard = 0;
    bool gathered = false;
  };

  // Bytes of the group's frozen parameters once gathered for compute.
  bytes frozen_gathered(std::size_t g) const {
    bytes total = 0;
    if (is_experts(g)) return total;
    for (auto u : wrap_.groups[g].units) total += lay().units[u].frozen_gathered_bytes;
    return total;
  }

  void reshard(std::size_t g) {
    free_all(out(), state_[g].unsharded);
    state_[g].gathered = false;
  }

  bytes compute() const { return static_cast<bytes>(lay().dtypes.compute); }
  bool is_first(std::size_t unit, std::size_t g) const { return wrap_.groups[g].units.front() == unit; }
  bool is_last(std::size_t unit, std::size_t g) const { return wrap_.groups[g].units.back() == unit; }

  // A block's routed experts under expert parallelism: a group of their own.
  bool is_experts(std::size_t g) const { return wrap_.groups[g].shard_divisor > 1; }
  // Ranks the group's parameters are sharded over.
  std::uint64_t world_of(std::size_t g) const {
    return std::max<std::uint64_t>(1, world_ / wrap_.groups[g].shard_divisor);
  }

  const std::vector<std::uint64_t>& padded_numels(std::size_t g) const { return padded_[g]; }
  std::vector<std::uint64_t> shard_numels(std::size_t g) const {
    std::vector<std::uint64_t> out = padded_numels(g);
    for (auto& n : out) n /= world_of(g);
    return out;
  }

  // Bytes of each of the group's (padded) tensors once gathered: the compute dtype, or one byte
  // an element for a Float8Linear weight all-gathered in float8 (torchao's
  // WeightWithDynamicFloat8CastTensor: fsdp_pre_all_gather casts the local shard to float8,
  // FSDP2 all-gathers those bytes and fsdp_post_all_gather wraps the unsharded data in a
  // Float8Tensor that the matmul takes as it is).
  std::vector<bytes> gathered_sizes(std::size_t g) const {
    const bool f8 = job().parallel.float8_all_gather;
    const auto& group = wrap_.groups[g];
    const auto& numels = padded_numels(g);
    std::vector<bytes> out;
    for (std::size_t i = 0; i < numels.size(); ++i)
      out.push_back(numels[i] * (f8 && group.float8[i] ? bytes{1} : compute()));
    return out;
  }
  bytes gathered_bytes(std::size_t g) const {
    const auto sizes = gathered_sizes(g);
    return std::accumulate(sizes.begin(), sizes.end(), bytes{0});
  }

  void unshard(std::size_t g, bool forward) {
    const auto& d = lay().dtypes;
    const std::uint64_t world = world_of(g);
    const bool experts = is_experts(g);
    std::uint64_t total = 0;
    for (auto n : padded_numels(g)) total += n;
    const auto sizes = gathered_sizes(g);
    const bytes gathered = std::accumulate(sizes.begin(), sizes.end(), bytes{0});
    const bool cast = d.compute != d.stored || gathered != total * compute();
    // Offloaded shards are copied host-to-device first; mixed precision casts them into one
    // flat low-precision copy-in buffer.
    bytes frozen_stored = 0;
    if (!experts)
      for (auto u : wrap_.groups[g].units)
        for (const auto& f : lay().units[u].frozen) frozen_stored += frozen_shard_bytes(f, world);
    const bytes frozen_full = frozen_gathered(g);
    tensor_id staged = 0, copy_in = 0;
    if (job().parallel.cpu_offload)
      staged = out().alloc(total / world * static_cast<bytes>(d.stored) + frozen_stored,
                           category::communication, streams::unshard);
    if (cast || frozen_full / world < frozen_stored)
      copy_in = out().alloc(gathered / world + frozen_full / world, category::communication,
                            streams::unshard);
    auto output = out().alloc(gathered + frozen_full, category::communication, streams::unshard);
    out().free(copy_in);
    out().free(staged);
    state_[g].unsharded.clear();
    for (const bytes size : sizes) state_[g].unsharded.push_back(out().alloc(size, category::parameters));
    if (!experts)
      for (auto u : wrap_.groups[g].units)
        for (auto id : gather_frozen(out(), lay().units[u])) state_[g].unsharded.push_back(id);
    state_[g].gathered = true;
    // Forward keeps the all-gather output until the next group's copy-out.
    if (forward_output_ != 0) out().free(forward_output_);
    if (forward) forward_output_ = output;
    else out().free(output);
  }

  std::shared_ptr<const fsdp_wrapping> wrapping_;
  const fsdp_wrapping& wrap_;
  std::vector<std::vector<std::uint64_t>> padded_;  // padded_numels, per group
  std::vector<std::size_t> root_first_;             // per unit: its first tensor in the root group
  std::vector<bool> root_unit_grads_;               // per unit: its root gradients exist
  std::size_t tied_index_ = SIZE_MAX;  // the root's tensor a tied head shares, else none
  tensor_id tied_grad_ = 0;            // the head's gradient of it in this backward
  std::vector<group_state> state_;
  optimizer_state opt_;
  tensor_id forward_output_ = 0, pending_input_ = 0;
  std::size_t head_ = 0;  // the head's own group (parallel.shard_separately), 0: in the root
  bool embedding_own_ = false;  // the embedding's too: the root's first unit comes later
  std::uint64_t world_ = 1;
  bool sync_ = true;
};

}  // namespace

std::unique_ptr<strategy> make_fsdp2(step_context& ctx) {
  return std::make_unique<fsdp2_strategy>(ctx);
}

}  // namespace vramscope::schedule
