// Megatron-LM's data parallelism (megatron/core/distributed/distributed_data_parallel.py,
// param_and_grad_buffer.py) and its optimizers (megatron/core/optimizer/distrib_optimizer.py,
// optimizer.py Float16OptimizerWithFloat16Params). See docs/schedule.md, "Megatron-LM".
//
// - The model is held in the compute dtype (`--bf16` / `--fp16` cast the model, Float16Module).
// - DDP allocates one contiguous gradient buffer (`main_grad`) for every trainable parameter in
//   the reduce dtype (fp32 with `--accumulate-allreduce-grads-in-fp32`, Megatron's default under
//   bf16) at construction, and keeps it: backward accumulates each parameter's gradient into it
//   (the bf16 `.grad` autograd produces is freed by the hook, or never made with gradient
//   accumulation fusion), and zero_grad zeroes it in place. Reduce-scatter (distributed
//   optimizer) or all-reduce (plain) run in place on it.
// - With the distributed optimizer DDP also moves the parameters into one contiguous buffer,
//   param by param, so that the post-step all-gather writes into place.
// - The optimizer holds fp32 main parameters, created with it, and Adam's two fp32 moments,
//   created at the first step: the rank's 1/dp shard of each with `--use-distributed-optimizer`,
//   all of them without. The main gradients are views of the fp32 buffer (`.float()` of an fp32
//   tensor); an fp16 buffer is copied to fp32 for the step. Megatron's Adam is a fused kernel
//   (apex / Transformer Engine FusedAdam), so the step has no state-sized temporaries.
//
// Bytes per trainable parameter, as Megatron's docs/source/api-guide/dist_optimizer.md states
// them: bf16 parameters with fp32 gradients 18 (plain) or 6 + 12/dp (distributed); fp16 with
// fp16 gradients 20 or 4 + 16/dp; fp32 16 or 8 + 8/dp.
//
// Under expert parallelism (--expert-model-parallel-size, parallel.ep) a rank holds its share of
// each MoE layer's routed experts (the layout keeps only those), and the distributed optimizer
// shards them over the expert-data-parallel ranks, dp x cp x tp / (ep x etp) of them (their own
// buffers; etp is --expert-tensor-parallel-size, tp by default, which splits each expert;
// distributed_data_parallel.py expert_parallel_buffers; parallel_state's expert data-parallel
// group), while the other parameters shard over dp x cp.
//
// Float8 training (--fp8-format; precision.float8) runs the block linears as Transformer Engine
// modules. Megatron passes them `is_first_microbatch` (schedules.py set_is_first_microbatch;
// transformer_engine.py TELinear.forward, unless --disable-parameter-transpose-cache), so each
// module quantizes its weight on a step's first micro-batch into a workspace it keeps
// (TransformerEngineBaseModule._fp8_workspaces, module/base.py quantize_weight) and reuses it
// after: the layout for the forward matmul and the one for the backward's data gradient (on
// Hopper the transpose; one layout serves both on Blackwell with per-tensor or per-block scales),
// one byte a value each, with MXFP8's e8m0 scale per 32 values or the fp32 scale of each
// 128 x 128 block. The bf16 weights stay. With --fp8-param-gather (parallel.float8_all_gather)
// the parameters themselves are float8 tensors and no workspace is made (quantize_weight
// returns them as they are); their storage is planned at the compute dtype's two bytes, which
// the two float8 layouts take on Hopper.
#include <algorithm>

#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

class megatron_strategy final : public strategy {
 public:
  explicit megatron_strategy(step_context& ctx) : strategy(ctx) {
    if (job().parallel.distributed_optimizer) {
      dp_ = static_cast<std::uint64_t>(std::max(1, ctx.rank.dp_shard));
      const auto ep = static_cast<std::uint64_t>(std::max(1, ctx.rank.ep));
      const auto tp = static_cast<std::uint64_t>(std::max(1, ctx.rank.tp));
      const auto etp = static_cast<std::uint64_t>(job::expert_tp(job().parallel));
      expert_dp_ = std::max<std::uint64_t>(1, dp_ * tp / (ep * etp));
    }
    for (const auto& u : lay().units)
      for (std::size_t i = 0; i < u.trainable.size(); ++i)
        if (i < u.expert.size() && u.expert[i]) expert_numel_ += u.trainable[i];
  }

  void init() override {
    const auto& d = lay().dtypes;
    std::vector<std::vector<tensor_id>> built;
    for (const auto& u : lay().units)
      built.push_back(alloc_each(out(), u.trainable, d.compute, category::parameters));
    grad_buffer_ = out().alloc(lay().trainable_numel * static_cast<bytes>(d.grad), category::gradients);
    if (job().parallel.distributed_optimizer) {
      // _ParamAndGradBuffer: each parameter is copied into the buffer and its old storage freed.
      param_buffer_ = out().alloc(lay().trainable_numel * static_cast<bytes>(d.compute), category::parameters);
      for (auto& unit : built) free_all(out(), unit);
    } else {
      params_ = std::move(built);
    }
    // The optimizer's fp32 main parameters exist from its construction.
    if (d.master > 0)
      main_params_ =
          out().alloc(sharded_numel() * static_cast<bytes>(d.master), category::optimizer);
  }

  void pre_forward(std::size_t unit) override {
    if (!job().transformer_engine_float8() || job().parallel.float8_all_gather) return;
    if (workspaces_.empty()) workspaces_.resize(lay().units.size(), false);
    if (unit >= workspaces_.size() || workspaces_[unit]) return;
    workspaces_[unit] = true;
    bytes total = 0;
    for (const auto& l : lay().units[unit].float8_linears) total += weight_workspace(l);
    if (total > 0) out().alloc(total, category::parameters);
  }

  void post_backward(std::size_t unit) override {
    // Each parameter's gradient reaches main_grad through a bf16 `.grad` the hook adds and frees.
    auto transient = alloc_each(out(), lay().units[unit].trainable, lay().dtypes.compute, category::gradients);
    free_all(out(), transient);
  }

  void optimizer_step(int) override {
    out().phase("optimizer");
    const std::uint64_t n = sharded_numel();
    optimizer_first_step(out(), job(), {n}, lay().dtypes.state, 0, opt_);
    if (lay().dtypes.grad < 4) {  // an fp16 gradient buffer: fp32 main gradients for the step
      auto main_grad = out().alloc(n * 4, category::temporary);
      out().free(main_grad);
    }
  }

  void zero_grad() override {}  // the buffer is zeroed in place

 private:
  // This rank's share of the trainable elements the optimizer holds: the routed experts' over
  // the expert-data-parallel ranks, the rest over the data-parallel ones.
  std::uint64_t sharded_numel() const {
    const std::uint64_t dense = lay().trainable_numel - expert_numel_;
    return (dense + dp_ - 1) / dp_ + (expert_numel_ + expert_dp_ - 1) / expert_dp_;
  }

  // One linear's float8 weight workspace: the forward layout and the backward's (see above).
  bytes weight_workspace(const float8_linear& l) const {
    const bytes n = l.numel;
    switch (job().precision.float8) {
      case job::float8_recipe::mxfp8:
        return 2 * (n + ceil_div(n, std::uint64_t{32}));
      case job::float8_recipe::blockwise: {
        const bytes scales =
            4 * ceil_div(l.in, std::uint64_t{128}) * ceil_div(l.out, std::uint64_t{128});
        return (job().hardware.compute_capability >= 100 ? 1 : 2) * (n + scales);
      }
      default:
        return (job().hardware.compute_capability >= 100 ? 1 : 2) * n;
    }
  }

  std::vector<bool> workspaces_;  // per unit: its float8 weight workspace is made
  std::uint64_t dp_ = 1, expert_dp_ = 1;
  std::uint64_t expert_numel_ = 0;  // this rank's routed-expert elements
  std::vector<std::vector<tensor_id>> params_;
  tensor_id grad_buffer_ = 0, param_buffer_ = 0, main_params_ = 0;
  optimizer_state opt_;
};

}  // namespace

std::unique_ptr<strategy> make_megatron(step_context& ctx) { return std::make_unique<megatron_strategy>(ctx); }

}  // namespace vramscope::schedule
