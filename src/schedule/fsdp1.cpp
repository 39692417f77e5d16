// FSDP1 (FullyShardedDataParallel, flat parameters). One FlatParameter per wrapped unit, padded
// so every rank holds padded_numel / W elements; unshard allocates the padded full parameter on
// the unshard stream and reshard frees it with record_stream from the compute stream, so the
// block is reusable only once the compute stream has passed that point. The rate limiter
// (limit_all_gathers) makes the CPU wait until at most two such frees are outstanding.
// Facts: torch/distributed/fsdp/_flat_param.py, _runtime_utils.py, _limiter_utils.py,
// _init_utils.py (see docs/schedule.md, "Per strategy").
#include <algorithm>

#include "schedule/fsdp_groups.hpp"
#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

constexpr bytes sync_bucket = 250_MiB;  // sync_module_states broadcast bucket

class fsdp1_strategy final : public strategy {
 public:
  explicit fsdp1_strategy(step_context& ctx)
      : strategy(ctx), wrapping_(shared_wrapping(ctx.lay_owner, ctx.job)), wrap_(*wrapping_) {
    const auto& p = job().parallel;
    world_ = static_cast<std::uint64_t>(ctx.rank.dp_shard);
    sharded_ = p.fsdp_sharding != job::sharding::no_shard && world_ > 1;
    reshard_after_forward_ = p.fsdp_sharding == job::sharding::full_shard ||
                             p.fsdp_sharding == job::sharding::hybrid_shard;
    const auto& d = lay().dtypes;
    mixed_ = d.compute != d.stored;
    // A head tied to the embedding is one Parameter reached from two modules. A rank that builds
    // on the meta device materialises module by module with to_empty(recurse=False)
    // (_init_utils._materialize_meta_module, and the usual param_init_fn), and nn.Module._apply
    // gives each module a new Parameter: embed_tokens and lm_head end up with one each, so the
    // root FlatParameter flattens the embedding's matrix twice (the H200 allocator history of
    // fsdp1-meta-init-sync rank 1: two 1002 MiB fp32 originals, a 2004 MiB flat parameter).
    const auto& in = job().init;
    meta_rank_ = in.meta_device && in.load == job::weight_load::rank0 && ctx.rank.rank() != 0;
    if (const std::size_t u = tied_embedding_unit(ctx.model, lay());
        u < lay().units.size() && wrap_.group_of_unit[u] == 0)
      tied_numel_ = lay().units[u].trainable.front();
    untied_ = meta_rank_ && tied_numel_ > 0;
    for (const auto& g : wrap_.groups) {
      // use_orig_params pads each original parameter to 16 bytes; the flat tensor is padded to
      // a multiple of the world size.
      const auto align = static_cast<std::uint64_t>(p.use_orig_params ? std::max(1, 16 / d.stored) : 1);
      const auto pad = [&](std::uint64_t n) { return (n + align - 1) / align * align; };
      std::uint64_t trainable = 0, frozen = 0;
      for (auto t : g.tensors) trainable += pad(t);
      if (g.root && untied_) trainable += pad(tied_numel_);
      // Frozen (LoRA base) parameters are flattened and sharded like the others, counted in
      // elements of the flat parameter's dtype.
      for (auto u : g.units)
        for (const auto& f : lay().units[u].frozen) frozen += pad(ceil_div(f.stored, static_cast<bytes>(d.stored)));
      const auto round = [&](std::uint64_t n) { return (n + world_ - 1) / world_ * world_; };
      padded_.push_back(round(trainable + frozen));
      // With use_orig_params a FlatParameter may mix frozen and trainable parameters, and its
      // gradient then covers all of it ("gradient memory usage ... equivalent to not freezing
      // those parameters", FSDP docs); without it frozen parameters need units of their own
      // (PEFT's fsdp_auto_wrap_policy), and only the trainable flat parameter has a gradient.
      grad_padded_.push_back(p.use_orig_params && trainable > 0 ? padded_.back() : round(trainable));
      trainable_.push_back(trainable);
    }
    state_.resize(wrap_.groups.size());
  }

  void init() override {
    quant_state_ = alloc_quant_states(out(), lay());  // module attributes, never flattened
    const auto& in = job().init;
    const bool cpu_module = !meta_rank_ && in.load != job::weight_load::random;
    const bool on_gpu_before_sharding = meta_rank_ || !cpu_module || job().parallel.device_id;
    // FSDP wraps bottom-up: every child unit first, the root last.
    for (std::size_t g = 1; g <= wrap_.groups.size(); ++g) {
      const std::size_t gi = g % wrap_.groups.size();
      if (on_gpu_before_sharding) shard_on_gpu(gi);
      else if (!job().parallel.cpu_offload)
        state_[gi].shard = out().alloc(shard_bytes(gi), category::parameters);
    }
  }

  // Inside no_sync() the post-backward hook reshards but neither reduces nor frees the
  // unsharded gradient, which accumulates until the synchronised micro-batch
  // (_runtime_utils._post_backward_hook, _should_sync_gradients).
  void begin_micro_batch(bool last) override { sync_ = last || !job().parallel.no_sync; }

  void pre_forward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    unshard(g);
    if (job().parallel.forward_prefetch && g + 1 < wrap_.groups.size() && is_first(unit, g))
      unshard(g + 1);
  }

  void post_forward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    if (reshard_after_forward_ && !wrap_.groups[g].root && is_last(unit, g)) reshard(g);
  }

  // The root's pre-backward hook is registered on the root module's outputs
  // (_runtime_utils._register_pre_backward_hooks): when transformers computes the loss inside the
  // model's forward (LlamaForCausalLM.forward with labels), the loss is one of them, so the hook
  // runs before the loss's backward, and with BACKWARD_PRE its prefetch all-gathers the last
  // block (_pre_backward_hook -> _prefetch_handle: the handle before the root's in post-forward
  // order). The H200 history of fsdp1-llama7b-case3-bf16true: the last block's 386 MiB
  // unsharded parameter on the unshard stream, then the loss's two 2000 MiB gradients.
  void begin_backward() override {
    if (loss_in_model()) root_pre_backward();
  }

  void pre_backward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    if (wrap_.groups[g].root && is_last(unit, g) && !loss_in_model()) root_pre_backward();
    unshard(g);
    if (job().parallel.backward_prefetch == job::prefetch::pre && g > 1 && is_last(unit, g))
      unshard(g - 1);
    if (!sharded_) {
      if (state_[g].grad == 0)
        state_[g].grad = out().alloc(grad_padded_[g] * compute(), category::gradients);
      return;
    }
    // Autograd gives each original parameter (a view of the unsharded FlatParameter) a gradient
    // of its own on the compute stream; a head tied to the embedding gets its gradient first,
    // from the loss's backward, before any root unit (the H200 histories: a 501 MiB bf16
    // gradient on stream 0 right after the loss, kept to the end of backward).
    auto& s = state_[g];
    if (wrap_.groups[g].root && tied_numel_ > 0 && s.param_grads.empty())
      s.param_grads.push_back(out().alloc(tied_numel_ * compute(), category::gradients));
    for (auto id :
         alloc_each(out(), lay().units[unit].trainable, lay().dtypes.compute, category::gradients))
      s.param_grads.push_back(id);
  }

  void post_backward(std::size_t unit) override {
    const std::size_t g = wrap_.group_of_unit[unit];
    if (!is_first(unit, g)) return;  // the hook fires once the whole flat gradient is ready
    if (sharded_) flatten_gradient(g);
    if (job().parallel.backward_prefetch == job::prefetch::post && g > 1) unshard(g - 1);
    if (sharded_) reshard(g);
    if (sync_) reduce_scatter(g);
  }

  void end_backward() override {
    for (std::size_t g = 0; g < wrap_.groups.size(); ++g)
      if (sharded_) reshard(g);
  }

  void optimizer_step(int) override {
    out().phase("optimizer");
    if (job().parallel.cpu_offload) return;  // the step runs on the CPU
    create_optimizer_state();
    optimizer_step_transient(out(), job(), shards(), lay().dtypes.state);
  }

  bool create_optimizer_state() override {
    if (!job().parallel.cpu_offload)  // else the state is made beside the host's shards
      optimizer_first_step(out(), job(), shards(), lay().dtypes.state, 0, opt_);
    return true;
  }

  void zero_grad() override {
    for (auto& s : state_) out().free(s.grad_shard);
  }

  void save_checkpoint() override {
    // FULL_STATE_DICT (torch/distributed/fsdp/_state_dict_utils.py): module.state_dict() runs
    // an FSDP unit's pre-hook before its children's state dicts and its post-hook after them.
    // The pre-hook unshards the unit's flat parameter in full precision (_unshard_params), the
    // post-hook clones every original parameter into the state dict
    // (_full_post_state_dict_hook) and the reshard frees the full one: the root's stays
    // unsharded while every other unit is saved, and its clones are made last. offload_to_cpu
    // moves the parameters to the host before the clones (FlatParamHandle.to_cpu), the padded
    // unsharded buffer staying on the GPU, so the clones are host tensors; rank0_only reshards
    // every other rank at once, which then keeps nothing. A head tied to the embedding has a
    // name of its own in the state dict: the matrix is cloned twice and one clone is dropped at
    // once (the H200 history of fsdp1-save-full-gpu: the root's 1002 MiB flat parameter held
    // through the blocks' 232 MiB ones, then two 1002 MiB clones, one freed with the root's).
    // The clones live until the state dict has been written and dropped, at the end.
    if (job().checkpoint.save != job::state_dict_kind::full) return;
    out().phase("checkpoint_save");
    const auto& c = job().checkpoint;
    const bool holds = !c.rank0_only || ctx_.rank.rank() == 0;
    const bool keeps = !c.offload_to_cpu && holds;
    const auto stored = static_cast<bytes>(lay().dtypes.stored);
    std::vector<tensor_id> clones;
    const auto unshard = [&](std::size_t g) {
      return out().alloc(padded_[g] * stored, category::parameters);
    };
    tensor_id root = holds ? unshard(0) : 0;
    for (std::size_t g = holds ? 1 : 0; g < wrap_.groups.size(); ++g) {
      auto full = unshard(g);
      if (keeps) clones.push_back(out().alloc(padded_[g] * stored, category::parameters));
      out().free(full);
    }
    tensor_id second = 0;
    if (keeps) {
      clones.push_back(out().alloc(padded_[0] * stored, category::parameters));
      if (tied_numel_ > 0 && !untied_)
        second = out().alloc(tied_numel_ * stored, category::parameters);
    }
    out().free(root);
    out().free(second);
    free_all(out(), clones);
  }

 private:
  struct group_state {
    tensor_id shard = 0, full = 0, grad = 0, grad_shard = 0;
    std::vector<tensor_id> param_grads;  // the original parameters' gradients (sharded only)
  };

  bytes compute() const { return static_cast<bytes>(lay().dtypes.compute); }
  std::vector<std::uint64_t> shards() const {
    std::vector<std::uint64_t> out;
    for (std::size_t g = 0; g < wrap_.groups.size(); ++g)
      out.push_back(sharded_ ? ceil_div(trainable_[g], world_) : trainable_[g]);
    return out;
  }
  std::uint64_t shard_numel(std::size_t g) const { return sharded_ ? padded_[g] / world_ : padded_[g]; }
  std::uint64_t grad_shard_numel(std::size_t g) const {
    return sharded_ ? grad_padded_[g] / world_ : grad_padded_[g];
  }
  bytes shard_bytes(std::size_t g) const { return shard_numel(g) * static_cast<bytes>(lay().dtypes.stored); }
  bytes grad_shard_bytes(std::size_t g) const {
    return grad_shard_numel(g) * static_cast<bytes>(lay().dtypes.stored);
  }
  bool is_first(std::size_t unit, std::size_t g) const { return wrap_.groups[g].units.front() == unit; }
  bool is_last(std::size_t unit, std::size_t g) const { return wrap_.groups[g].units.back() == unit; }
  bool loss_in_model() const { return job().training.loss == job::loss_impl::hf; }

  // The root's pre-backward: its own unshard (a no-op after forward: FSDP1 never frees the
  // root's parameters in its post-forward) and, with BACKWARD_PRE, the prefetch of the last
  // block's group, the one whose forward ended just before the root's.
  void root_pre_backward() {
    unshard(0);
    if (job().parallel.backward_prefetch != job::prefetch::pre) return;
    if (const std::size_t last = wrap_.last_block_group(); last != 0) unshard(last);
  }

  // Materialise the unit on the GPU, broadcast it (sync_module_states), flatten, keep a shard.
  void shard_on_gpu(std::size_t g) {
    const auto& d = lay().dtypes;
    std::vector<tensor_id> originals;
    for (auto u : wrap_.groups[g].units) {
      for (auto ids = alloc_each(out(), lay().units[u].trainable, d.stored, category::parameters);
           auto id : ids)
        originals.push_back(id);
      for (const auto& f : lay().units[u].frozen) originals.push_back(load_frozen(out(), f, d.compute));
    }
    if (wrap_.groups[g].root && untied_)  // lm_head's own copy of the tied matrix (see above)
      originals.push_back(
          out().alloc(tied_numel_ * static_cast<bytes>(d.stored), category::parameters));
    if (job().parallel.sync_module_states) {
      auto bucket = out().alloc(std::min(sync_bucket, padded_[g] * static_cast<bytes>(d.stored)),
                                category::communication);
      out().free(bucket);
    }
    // Flatten, keep the shard, then drop the flat parameter and the unit's original tensors, in
    // that order (the H200 allocator history of fsdp1-full-limit: +232 +29 -232 MiB, then the
    // originals as allocated).
    auto flat = out().alloc(padded_[g] * static_cast<bytes>(d.stored), category::parameters);
    state_[g].shard = sharded_ ? out().alloc(shard_bytes(g), category::parameters) : flat;
    if (sharded_) out().free(flat);
    free_all(out(), originals);
    if (job().parallel.cpu_offload) out().free(state_[g].shard);  // shards move to pinned host memory
  }

  // The original parameters are views that _use_unsharded_views makes of the unsharded
  // FlatParameter inside FlatParamHandle.unshard(), which _runtime_utils._unshard runs on the
  // unshard stream; autograd runs a backward node on the stream of its forward op, so the
  // views' backward concatenates the parameters' gradients into the flat gradient on the
  // unshard stream, once all of them are ready. Two gradients into one view (a tied head and
  // its embedding) are summed there first, out of place, and the summands go. The H200
  // histories (fsdp1-full-limit, fsdp1-cpuoffload, fsdp1-meta-init-sync): each block's 116 MiB
  // flat gradient on the unshard stream after its 8/2/2/8/32/32/32 MiB weight gradients on
  // stream 0; the root's 501 MiB embedding gradient, a
  // 501 MiB sum and a 501 MiB flat gradient on the unshard stream, then the reduce.
  // (Sharded strategies only: NO_SHARD has no measured history.)
  void flatten_gradient(std::size_t g) {
    auto& s = state_[g];
    tensor_id sum = 0;
    if (wrap_.groups[g].root && tied_numel_ > 0 && !untied_ && s.param_grads.size() >= 2) {
      sum = out().alloc(tied_numel_ * compute(), category::gradients, streams::unshard);
      // The head's gradient came first (pre_backward), the embedding's last: its unit is the
      // root's first in forward, so its last in backward.
      for (tensor_id* t : {&s.param_grads.front(), &s.param_grads.back()}) release_on_unshard(*t);
      std::erase(s.param_grads, tensor_id{0});
    }
    if (grad_padded_[g] > 0) {
      auto flat = out().alloc(grad_padded_[g] * compute(), category::gradients, streams::unshard);
      if (s.grad == 0)
        s.grad = flat;
      else
        out().free(flat);  // no_sync: accumulated into the kept unsharded gradient
    }
    out().free(sum);
    for (auto& t : s.param_grads) release_on_unshard(t);
    s.param_grads.clear();
  }

  // A tensor read on the unshard stream by a backward node: autograd records that stream, so
  // the block goes back to the pool only once the stream has passed (the histories:
  // free_requested right after the concatenation, free_completed after the reshard).
  void release_on_unshard(tensor_id& t) {
    out().record_stream(t, streams::unshard);
    out().free(t);
  }

  void unshard(std::size_t g) {
    auto& s = state_[g];
    if (s.full != 0 || !sharded_) return;
    tensor_id staged = 0, low = 0;
    if (job().parallel.cpu_offload)
      staged = out().alloc(shard_bytes(g), category::communication, streams::pre_unshard);
    if (mixed_) low = out().alloc(shard_numel(g) * compute(), category::communication, streams::pre_unshard);
    s.full = out().alloc(padded_[g] * (mixed_ ? compute() : static_cast<bytes>(lay().dtypes.stored)),
                         category::parameters, streams::unshard);
    for (tensor_id* t : {&staged, &low}) {
      out().record_stream(*t, streams::unshard);
      out().free(*t);
    }
  }

  void reshard(std::size_t g) {
    auto& s = state_[g];
    if (s.full == 0) return;
    // The limiter keeps two frees in flight: the CPU waits until the GPU has executed the older
    // ones, and by then every stream has passed the earlier units' work.
    if (job().parallel.limit_all_gathers) out().sync_all();
    out().record_stream(s.full, streams::compute);
    out().free(s.full);
  }

  void reduce_scatter(std::size_t g) {
    auto& s = state_[g];
    const auto& d = lay().dtypes;
    const bytes reduce = static_cast<bytes>(d.reduce);
    if (grad_padded_[g] == 0) return;  // a unit of frozen parameters only
    // _post_backward_hook casts the unsharded gradient to the reduce dtype (the compute-dtype
    // one goes at once); _reduce_grad reduce-scatters it into a new shard, which becomes the
    // saved gradient shard itself (_accumulate_sharded_grad) unless it must be cast to the
    // parameter dtype first, or is added in place to the one saved by an earlier micro-batch;
    // the unsharded gradient goes when _reduce_grad returns. The H200 allocator history of
    // fsdp1-full-limit shows it: each block's 29 MiB shard takes a segment of its own, since the
    // 232 MiB unsharded fp32 gradient still holds the block freed by the previous one.
    out().record_stream(s.grad, streams::reduce);
    tensor_id cast = 0;
    if (d.reduce != d.compute) {
      cast = out().alloc(grad_padded_[g] * reduce, category::communication, streams::reduce);
      out().free(s.grad);
    }
    const bool offload = job().parallel.cpu_offload;
    const bool becomes_saved = s.grad_shard == 0 && d.reduce == d.stored && !offload;
    tensor_id output = out().alloc(grad_shard_numel(g) * reduce,
                                   becomes_saved ? category::gradients : category::communication,
                                   streams::reduce);
    if (!offload && d.reduce != d.stored) {  // _cast_grad_to_param_dtype
      auto shard = out().alloc(grad_shard_bytes(g),
                               s.grad_shard == 0 ? category::gradients : category::temporary,
                               streams::reduce);
      out().free(output);
      output = shard;
    }
    if (!offload && s.grad_shard == 0) {
      s.grad_shard = output;  // kept for the optimizer
    } else {
      out().free(output);  // added in place to the saved shard, or copied to the host
    }
    out().free(cast);
    out().free(s.grad);
  }

  std::shared_ptr<const fsdp_wrapping> wrapping_;
  const fsdp_wrapping& wrap_;
  std::vector<std::uint64_t> padded_;       // elements of each flat parameter, padded
  std::vector<std::uint64_t> grad_padded_;  // elements its gradient covers
  std::vector<std::uint64_t> trainable_;    // trainable elements (the optimizer's share)
  std::vector<group_state> state_;
  std::vector<tensor_id> quant_state_;
  optimizer_state opt_;
  std::uint64_t world_ = 1;
  std::uint64_t tied_numel_ = 0;  // elements of an embedding the head shares (root group), else 0
  bool meta_rank_ = false, untied_ = false;
  bool sharded_ = true, reshard_after_forward_ = true, mixed_ = false, sync_ = true;
};

}  // namespace

std::unique_ptr<strategy> make_fsdp1(step_context& ctx) {
  return std::make_unique<fsdp1_strategy>(ctx);
}

}  // namespace vramscope::schedule
