// DDP (and a single GPU, which is DDP without communication): full replicas of parameters,
// gradients and optimizer state; one gradient bucket holding every gradient allocated at
// construction, replaced in the second forward by buckets of bucket_cap_mb in gradient-ready
// order (the first one 1 MiB when bucket_cap_mb is not passed); `.grad` tensors beside them
// unless gradient_as_bucket_view.
// Facts: torch/nn/parallel/distributed.py, c10d/reducer.hpp (see docs/schedule.md).
#include <algorithm>

#include "schedule/strategy.hpp"

namespace vramscope::schedule {

namespace {

constexpr bytes first_bucket = 1_MiB;      // dist._DEFAULT_FIRST_BUCKET_BYTES
constexpr double default_bucket_cap_mb = 25;  // DDP's bucket_cap_mb when none is passed
constexpr bytes broadcast_bucket = 250_MiB;  // module-state sync at construction (250 MB)

class ddp_strategy final : public strategy {
 public:
  using strategy::strategy;

  void init() override {
    const bool single = job().parallel.kind == job::strategy::single;
    frozen_ = alloc_frozen(out(), lay());
    for (const auto& u : lay().units)
      params_.push_back(alloc_each(out(), u.trainable, lay().dtypes.stored, category::parameters));
    if (single) return;
    // Parameter broadcast from rank 0 in coalesced 250 MiB buckets.
    auto b = out().alloc(std::min(broadcast_bucket, trainable_bytes(lay().dtypes.stored)), category::communication);
    out().free(b);
    // Without find_unused_parameters, DDP's constructor buckets with the limit sys.maxsize: the
    // first iteration has one bucket per dtype, all the gradients in one flat buffer
    // (_ddp_init_helper, "we only disable bucketing for the first iteration"; measured: one
    // 4.6 GiB block for Llama-3.2-1B's fp32 gradients, bench/data/snapshots).
    if (const bytes all = trainable_bytes(lay().dtypes.grad); all > 0) buckets_.push_back(out().alloc(all, category::gradients));
  }

  void post_backward(std::size_t unit) override {
    const auto& u = lay().units[unit];
    if (unit < casts_.size()) free_all(out(), casts_[unit]);
    if (job().optimizer.in_backward) {  // each gradient is stepped and freed as it arrives
      for (auto n : u.trainable) {
        auto grad = out().alloc(n * static_cast<bytes>(lay().dtypes.grad), category::gradients);
        optimizer_step_in_backward(out(), job(), n, lay().dtypes.state, lay().dtypes.master,
                                   !opt_.created, opt_);
        out().free(grad);
      }
      return;
    }
    if (grads_.size() < lay().units.size()) grads_.resize(lay().units.size());
    const bool as_view = job().parallel.gradient_as_bucket_view && !buckets_.empty();
    if (!as_view && grads_[unit].empty())
      grads_[unit] = alloc_each(out(), u.trainable, lay().dtypes.grad, category::gradients);
    // The bucket all-reduce works in place on persistent buffers: nothing new to allocate.
  }

  void optimizer_step(int step) override {
    out().phase("optimizer");
    steps_ = step + 1;
    if (job().optimizer.in_backward) {  // stepped in backward; the state exists from now on
      opt_.created = true;
      return;
    }
    std::vector<std::uint64_t> trainable;
    for (const auto& u : lay().units) trainable.insert(trainable.end(), u.trainable.begin(), u.trainable.end());
    optimizer_first_step(out(), job(), trainable, lay().dtypes.state, lay().dtypes.master, opt_);
    optimizer_step_transient(out(), job(), trainable, lay().dtypes.state);
  }

  void pre_forward(std::size_t unit) override {
    // The second forward rebuilds the buckets in gradient-ready order (Reducer::rebuild_buckets,
    // with a static graph too): the one first-iteration buffer is released, then the buckets of
    // bucket_cap_mb are allocated, so the layout changes, not the size.
    if (unit == 0 && steps_ == 1 && !rebuilt_ && !buckets_.empty()) {
      rebuilt_ = true;
      free_all(out(), buckets_);
      buckets_ = make_buckets();
    }
    if (job().precision.autocast) {
      // autocast caches the low-precision copy of every weight it casts for the rest of the
      // forward; the copies are saved by the matmuls and live until the unit's backward.
      if (casts_.size() < lay().units.size()) casts_.resize(lay().units.size());
      casts_[unit] = alloc_each(out(), lay().units[unit].trainable, lay().dtypes.compute, category::parameters);
    }
  }

  void zero_grad() override {
    for (auto& g : grads_) free_all(out(), g);  // set_to_none=True (default since torch 2.0)
  }

 private:
  // The rank's trainable parameters at `dtype_bytes` each.
  bytes trainable_bytes(int dtype_bytes) const {
    bytes total = 0;
    for (const auto& u : lay().units) total += u.trainable_numel * static_cast<bytes>(dtype_bytes);
    return total;
  }

  // The rebuilt buckets (Reducer::rebuild_buckets -> compute_bucket_assignment_by_size), in the
  // order backward produces the gradients, the last unit's first. The first bucket's limit is
  // 1 MiB only when DDP was given no bucket_cap_mb; a value passed limits the first bucket too
  // (bucket_bytes_cap_default; measured: the rebuilt buckets of ddp-bf16mixed-sgd, 33.25 MiB
  // then 40.26 MiB, bench/data/snapshots).
  std::vector<tensor_id> make_buckets() {
    const auto& mb = job().parallel.bucket_cap_mb;
    const auto cap = static_cast<bytes>(mb.value_or(default_bucket_cap_mb) * 1024.0 * 1024.0);
    std::vector<tensor_id> ids;
    bytes current = 0, limit = mb ? cap : first_bucket;
    const auto g = static_cast<bytes>(lay().dtypes.grad);
    for (auto u = lay().units.rbegin(); u != lay().units.rend(); ++u)
      for (auto n = u->trainable.rbegin(); n != u->trainable.rend(); ++n) {
        current += *n * g;  // a bucket closes once it reaches its limit, with the tensor that did it
        if (current >= limit) {
          ids.push_back(out().alloc(current, category::gradients));
          current = 0;
          limit = cap;
        }
      }
    if (current > 0) ids.push_back(out().alloc(current, category::gradients));
    return ids;
  }

  std::vector<tensor_id> frozen_;
  std::vector<std::vector<tensor_id>> params_;
  std::vector<std::vector<tensor_id>> grads_;
  std::vector<tensor_id> buckets_;
  std::vector<std::vector<tensor_id>> casts_;
  optimizer_state opt_;
  int steps_ = 0;
  bool rebuilt_ = false;
};

}  // namespace

std::unique_ptr<strategy> make_ddp(step_context& ctx) { return std::make_unique<ddp_strategy>(ctx); }

}  // namespace vramscope::schedule
