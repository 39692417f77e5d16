// DeepSpeed ZeRO stages 1-3. Parameters in the compute dtype (full on every rank for stages 1
// and 2, partitioned for stage 3 and gathered per unit), an fp32 master partition and optimizer
// state partition, gradients reduced through bucket buffers (reduce_bucket_size elements,
// double-buffered with contiguous_gradients) into a partition for stages 2 and 3.
// Offload moves the master weights and optimizer state (offload_optimizer) or the stage-3
// parameters (offload_param) to the CPU.
// Facts: deepspeed/runtime/zero/stage_1_and_2.py, stage3.py (see docs/schedule.md).
#include <algorithm>

#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

class zero_strategy final : public strategy {
 public:
  explicit zero_strategy(step_context& ctx) : strategy(ctx) {
    stage_ = job().parallel.kind == job::strategy::zero1 ? 1 : job().parallel.kind == job::strategy::zero2 ? 2 : 3;
    world_ = static_cast<std::uint64_t>(std::max(1, ctx.rank.dp_shard));
  }

  void init() override {
    // Stage 3 partitions every parameter, frozen ones included (a LoRA base is gathered per
    // module like the rest); stages 1 and 2 keep whole frozen weights on every rank.
    if (stage_ == 3 && job().parallel.offload_param)  // partitions on the host, constants stay
      frozen_ = alloc_quant_states(out(), lay());
    else
      frozen_ = alloc_frozen(out(), lay(), stage_ == 3 ? world_ : 1);
    const auto& d = lay().dtypes;
    for (const auto& u : lay().units) {
      if (stage_ < 3) {
        params_.push_back(alloc_each(out(), u.trainable, d.compute, category::parameters));
      } else if (!job().parallel.offload_param) {
        params_.push_back({out().alloc(part(u.trainable_numel) * compute(), category::parameters)});
      }
    }
    if (!job().parallel.offload_optimizer) {
      master_ = out().alloc(part(lay().trainable_numel) * 4, category::optimizer);
    }
    if (stage_ >= 2) {
      const bytes bucket = std::min<bytes>(job().parallel.reduce_bucket_size, lay().trainable_numel) * compute();
      for (int i = 0; i < (job().parallel.contiguous_gradients ? 2 : 1); ++i)
        buckets_.push_back(out().alloc(bucket, category::communication));
    }
  }

  void pre_forward(std::size_t unit) override { gather(unit); }
  void post_forward(std::size_t unit) override { release(unit); }
  void pre_backward(std::size_t unit) override { gather(unit); }

  void post_backward(std::size_t unit) override {
    const auto& u = lay().units[unit];
    release(unit);
    if (stage_ == 1) {
      if (grads_.size() < lay().units.size()) grads_.resize(lay().units.size());
      if (grads_[unit].empty()) grads_[unit] = alloc_each(out(), u.trainable, lay().dtypes.compute, category::gradients);
      return;
    }
    // Gradients flow through the reduce buckets; the rank keeps only its partition.
    auto transient = alloc_each(out(), u.trainable, lay().dtypes.compute, category::gradients);
    free_all(out(), transient);
    if (grad_partition_ == 0 && !job().parallel.offload_optimizer)
      grad_partition_ = out().alloc(part(lay().trainable_numel) * compute(), category::gradients);
  }

  void optimizer_step(int) override {
    out().phase("optimizer");
    if (job().parallel.offload_optimizer) return;
    const std::uint64_t n = part(lay().trainable_numel);
    if (stage_ == 1 && grad_partition_ == 0)  // stage 1 reduces full gradients, then partitions
      grad_partition_ = out().alloc(n * compute(), category::gradients);
    optimizer_first_step(out(), job(), {n}, lay().dtypes.state, 0, opt_);
    // The fp32 copy of the gradient the step reads. Stages 1 and 2 make it for the whole
    // partition (stage_1_and_2.py). Stage 3 steps its partition sub-group by sub-group
    // (stage3.py: _create_fp16_sub_groups, then for each sub-group
    // _prepare_fp32_grad_for_sub_group, _optimizer_step and _release_sub_group, which drops the
    // fp32 gradient): the largest sub-group's copy and step temporaries at a time.
    const std::uint64_t chunk = stage_ == 3 ? largest_sub_group(n) : n;
    auto fp32_grad = out().alloc(chunk * 4, category::temporary);
    optimizer_step_transient(out(), job(), {chunk}, lay().dtypes.state);
    out().free(fp32_grad);
  }

  void zero_grad() override {
    for (auto& g : grads_) free_all(out(), g);
  }

  void save_checkpoint() override {
    // stage3_gather_16bit_weights_on_model_save (deepspeed/runtime/engine.py,
    // _zero3_consolidated_16bit_state_dict): module by module, GatheredParameters materialises
    // the module's own parameters in the 16-bit compute dtype on every rank; rank 0 copies
    // them to the host (param.detach().cpu()) and the partition is restored before the next
    // module. Stages 1 and 2 hold whole 16-bit weights already: their save adds nothing.
    if (job().checkpoint.save != job::state_dict_kind::full || stage_ < 3) return;
    out().phase("checkpoint_save");
    for (const auto& u : lay().units) {
      for (auto n : u.trainable) {
        auto full = out().alloc(n * compute(), category::parameters, streams::unshard);
        out().free(full);
      }
      for (const auto& f : u.frozen) {
        auto full = out().alloc(f.gathered, category::parameters, streams::unshard);
        out().free(full);
      }
    }
  }

 private:
  bytes compute() const { return static_cast<bytes>(lay().dtypes.compute); }
  std::uint64_t part(std::uint64_t n) const { return (n + world_ - 1) / world_; }

  // The largest of stage3.py's sub-groups (_create_fp16_sub_groups): whole parameters in
  // order, each with its partition of ceil(numel / world) elements; a sub-group closes once it
  // holds sub_group_size elements or more (or at the last parameter), so a sub-group can pass
  // sub_group_size by up to one parameter's partition, and a parameter whose partition alone
  // passes it is a sub-group of its own. When sub_group_size covers every partition there is
  // one sub-group: the whole partition `n`.
  std::uint64_t largest_sub_group(std::uint64_t n) const {
    const std::uint64_t limit = job().parallel.sub_group_size;
    std::uint64_t total = 0;
    for (const auto& u : lay().units)
      for (auto t : u.trainable) total += part(t);
    if (limit >= total) return n;
    std::uint64_t largest = 0, open = 0;
    for (const auto& u : lay().units)
      for (auto t : u.trainable) {
        open += part(t);
        if (open < limit) continue;
        largest = std::max(largest, open);
        open = 0;
      }
    return std::max(largest, open);
  }

  void gather(std::size_t unit) {
    if (stage_ < 3) return;
    if (gathered_.size() < lay().units.size()) gathered_.resize(lay().units.size());
    const auto& u = lay().units[unit];
    if (gathered_[unit] == 0)
      gathered_[unit] = out().alloc(u.trainable_numel * compute() + u.frozen_gathered_bytes,
                                    category::parameters, streams::unshard);
  }
  void release(std::size_t unit) {
    if (stage_ < 3 || unit >= gathered_.size()) return;
    out().free(gathered_[unit]);
  }

  int stage_ = 1;
  std::uint64_t world_ = 1;
  std::vector<tensor_id> frozen_, buckets_, gathered_;
  std::vector<std::vector<tensor_id>> params_, grads_;
  tensor_id master_ = 0, grad_partition_ = 0;
  optimizer_state opt_;
};

}  // namespace

std::unique_ptr<strategy> make_zero(step_context& ctx) { return std::make_unique<zero_strategy>(ctx); }

}  // namespace vramscope::schedule
