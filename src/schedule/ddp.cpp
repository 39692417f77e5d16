// DDP (and a single GPU, which is DDP without communication): full replicas of parameters,
// gradients and optimizer state; one gradient bucket holding every gradient allocated at
// construction, replaced in the second forward by buckets of bucket_cap_mb in gradient-ready
// order (the first one 1 MiB when bucket_cap_mb is not passed); `.grad` tensors beside them
// unless gradient_as_bucket_view.
// Facts: torch/nn/parallel/distributed.py, c10d/reducer.hpp (see docs/schedule.md).
#include <algorithm>
#include <deque>

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
    broadcast_states();
    // Without find_unused_parameters, DDP's constructor buckets with the limit sys.maxsize: the
    // first iteration has one bucket per dtype, all the gradients in one flat buffer
    // (_ddp_init_helper, "we only disable bucketing for the first iteration"; measured: one
    // 4.6 GiB block for Llama-3.2-1B's fp32 gradients, bench/data/snapshots).
    if (const bytes all = trainable_bytes(lay().dtypes.grad); all > 0) buckets_.push_back(out().alloc(all, category::gradients));
  }

  // A tied head's linear is the first to use the embedding's weight (the lookup is not an
  // autocast op): under autocast it casts the weight here and the matmul keeps the cast until
  // its backward.
  void pre_loss() override {
    find_tied_weight();
    if (job().precision.autocast && tied_numel_ > 0)
      tied_cast_ =
          out().alloc(tied_numel_ * static_cast<bytes>(lay().dtypes.compute), category::parameters);
  }

  // The head's backward makes the tied weight's first gradient, which AccumulateGrad keeps as
  // its `.grad` (torch/csrc/autograd/functions/accumulate_grad.h: a new gradient is stolen when
  // the variable has none, added in place when it has one); the embedding's gradient comes at
  // the end of backward and is added into it. Measured under autocast (ddp-bf16mixed-sgd,
  // bench/data/snapshots): the fp32 gradient of Qwen2.5-0.5B's tied weight (519 MiB) is made in
  // the head's backward, and the embedding's backward adds a second one into it and frees it.
  void post_loss_backward() override {
    out().free(tied_cast_);
    if (tied_numel_ > 0 && tied_grad_ == 0 && keeps_grads())
      tied_grad_ =
          out().alloc(tied_numel_ * static_cast<bytes>(lay().dtypes.grad), category::gradients);
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
    if (tied_numel_ > 0 && unit == tied_unit_) {  // the embedding's own gradient of the tied weight
      auto own =
          out().alloc(tied_numel_ * static_cast<bytes>(lay().dtypes.grad), category::temporary);
      out().free(own);
    }
    if (keeps_grads() && grads_[unit].empty()) {
      auto trainable = u.trainable;
      if (tied_numel_ > 0 && unit == tied_unit_)
        trainable.erase(trainable.begin() + static_cast<std::ptrdiff_t>(tied_index_));
      grads_[unit] = alloc_each(out(), trainable, lay().dtypes.grad, category::gradients);
    }
    // The bucket all-reduce works in place on persistent buffers: nothing new to allocate.
  }

  void optimizer_step(int step) override {
    out().phase("optimizer");
    steps_ = step + 1;
    if (job().optimizer.in_backward) {  // stepped in backward; the state exists from now on
      opt_.created = true;
      return;
    }
    create_optimizer_state();
    optimizer_step_transient(out(), job(), trainable(), lay().dtypes.state);
  }

  bool create_optimizer_state() override {
    if (job().optimizer.in_backward) return false;
    optimizer_first_step(out(), job(), trainable(), lay().dtypes.state, lay().dtypes.master, opt_);
    return true;
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
    const bool cast_here = unit >= ctx_.casts_in_forward.size() || !ctx_.casts_in_forward[unit];
    if (job().precision.autocast && cast_here &&
        lay().units[unit].kind != model::unit_kind::embedding) {
      // autocast caches the low-precision copy of every weight it casts for the rest of the
      // forward; the copies are saved by the matmuls and live until the unit's backward. The
      // embedding lookup is not an autocast op (aten/src/ATen/autocast_mode.cpp lists no
      // embedding): it reads the fp32 weight as it is. A unit run op by op casts its own
      // (step_context::casts_in_forward).
      if (casts_.size() < lay().units.size()) casts_.resize(lay().units.size());
      casts_[unit] = alloc_each(out(), lay().units[unit].trainable, lay().dtypes.compute, category::parameters);
    }
  }

  void zero_grad() override {
    for (auto& g : grads_) free_all(out(), g);  // set_to_none=True (default since torch 2.0)
    out().free(tied_grad_);
  }

  // A full state dict holds references to what the rank already has, so saving one allocates
  // nothing; except under job_spec::saves_int8_copies, where bitsandbytes' Linear8bitLt, for
  // each int8 weight in turn (bitsandbytes 0.38.0 nn/modules.py, autograd/_functions.py):
  // clones the weight (the clone becomes the parameter's data and stays, the original staying
  // referenced by its matmul state), then undo_layout makes the row-major copy the state dict
  // keeps: an empty tensor the permuted values are scattered into, and its reshape into a
  // contiguous one, after which the first goes. The copies live until the state dict has been
  // written and dropped. The quantisation scales are stored by reference.
  void save_checkpoint() override {
    if (!job().saves_int8_copies()) return;
    out().phase("checkpoint_save");
    std::vector<tensor_id> copies;
    for (const auto& u : lay().units)
      for (const auto& f : u.frozen) {
        if (!f.quantised) continue;
        clones_.push_back(out().alloc(f.stored, category::parameters));
        tensor_id scattered = out().alloc(f.stored, category::temporary);
        copies.push_back(out().alloc(f.stored, category::parameters));
        out().free(scattered);
      }
    free_all(out(), copies);
  }

 private:
  std::vector<std::uint64_t> trainable() const {
    std::vector<std::uint64_t> out;
    for (const auto& u : lay().units) out.insert(out.end(), u.trainable.begin(), u.trainable.end());
    return out;
  }

  // The module states' broadcast from rank 0 at construction (_sync_module_states ->
  // dist._broadcast_coalesced, torch/csrc/distributed/c10d/comm.cpp broadcast_coalesced): the
  // tensors in module order go into buckets of 250 MiB by compute_bucket_assignment_by_size (a
  // bucket closes with the tensor that makes it reach the limit), each bucket is flattened into
  // one tensor (a bucket of one tensor is a view of it), and at most two are in flight: the
  // oldest finishes, and its flat tensor goes, before the next is made. Measured (Qwen2.5-0.5B,
  // bench/data/snapshots): the embedding alone, then +251 +261 -251 +251 -261 +261 -251 +251
  // -261 +90 -251 -90 MiB. The trainable tensors are planned; a frozen base (LoRA), also
  // broadcast, is not.
  void broadcast_states() {
    const auto element = static_cast<bytes>(lay().dtypes.stored);
    std::deque<tensor_id> in_flight;
    bytes current = 0;
    int tensors = 0;
    auto launch = [&] {
      if (in_flight.size() >= 2) {
        out().free(in_flight.front());
        in_flight.pop_front();
      }
      in_flight.push_back(tensors > 1 ? out().alloc(current, category::communication) : 0);
      current = 0;
      tensors = 0;
    };
    for (const auto& u : lay().units)
      for (auto n : u.trainable) {
        current += n * element;
        ++tensors;
        if (current >= broadcast_bucket) launch();
      }
    if (tensors > 0) launch();
    for (auto& id : in_flight) out().free(id);
  }

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

  // `.grad` tensors beside the buckets (not views of them), unless the optimizer steps each
  // gradient in backward.
  bool keeps_grads() const {
    return !job().optimizer.in_backward &&
           !(job().parallel.gradient_as_bucket_view && !buckets_.empty());
  }

  // The weight a tied head shares with the embedding, when the model has no head unit: the
  // embedding unit's largest trainable tensor (its vocabulary matrix).
  void find_tied_weight() {
    if (tied_searched_) return;
    tied_searched_ = true;
    if (!ctx_.model.text.tied_embeddings) return;
    const auto& units = lay().units;
    if (std::any_of(units.begin(), units.end(),
                    [](const auto& u) { return u.kind == model::unit_kind::head; }))
      return;
    for (std::size_t i = 0; i < units.size(); ++i) {
      if (units[i].kind != model::unit_kind::embedding || units[i].trainable.empty()) continue;
      const auto& t = units[i].trainable;
      const auto largest = std::max_element(t.begin(), t.end());
      const std::uint64_t matrix = ctx_.model.text.vocab * ctx_.model.text.hidden;
      const auto tp = static_cast<std::uint64_t>(std::max(1, ctx_.rank.tp));
      if (*largest != matrix && *largest * tp != matrix) return;  // frozen (LoRA): no gradient
      tied_unit_ = i;
      tied_index_ = static_cast<std::size_t>(largest - t.begin());
      tied_numel_ = *largest;
      return;
    }
  }

  std::vector<tensor_id> frozen_;
  std::vector<tensor_id> clones_;  // int8 weights' clones made by a save (saves_int8_copies)
  std::vector<std::vector<tensor_id>> params_;
  std::vector<std::vector<tensor_id>> grads_;
  std::vector<tensor_id> buckets_;
  std::vector<std::vector<tensor_id>> casts_;
  optimizer_state opt_;
  int steps_ = 0;
  bool rebuilt_ = false;
  bool tied_searched_ = false;
  std::size_t tied_unit_ = 0, tied_index_ = 0;
  std::uint64_t tied_numel_ = 0;  // elements of the tied weight; 0 without a tied head
  tensor_id tied_cast_ = 0, tied_grad_ = 0;
};

}  // namespace

std::unique_ptr<strategy> make_ddp(step_context& ctx) { return std::make_unique<ddp_strategy>(ctx); }

}  // namespace vramscope::schedule
