#pragma once
// The state an optimizer creates for one trainable tensor, buffer by buffer, and where each
// buffer lives: in the caching allocator (torch.zeros_like) or in CUDA unified memory outside
// it (bitsandbytes paged optimizers). Facts and sources: docs/schedule.md, "Optimizer state".

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include <vramscope/core/units.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::schedule {

/// bitsandbytes pages a state buffer only when its tensor has at least this many elements;
/// smaller ones are ordinary torch tensors (bitsandbytes/optim/optimizer.py, get_state_buffer:
/// `if not self.is_paged or p.numel() < 1e5`).
inline constexpr std::uint64_t bnb_paging_min_numel = 100'000;
/// bitsandbytes 8-bit optimizers keep fp32 state for tensors below this many elements
/// (Optimizer2State min_8bit_size, default 4096).
inline constexpr std::uint64_t bnb_min_8bit_size = 4096;
/// Elements per fp32 absmax of 8-bit blockwise state (Optimizer2State.init_state, blocksize).
inline constexpr std::uint64_t bnb_block_size = 256;

/// One buffer of optimizer state.
struct state_buffer {
  bytes size = 0;
  bool managed = false;  // cudaMallocManaged (paged): outside the caching allocator
};

/// The buffers of one tensor's state: at most four (two moments and, for 8-bit state, their
/// absmax), kept in place, since the schedule asks for them once per tensor of every row.
class state_buffers {
 public:
  state_buffers() = default;
  state_buffers(std::initializer_list<state_buffer> buffers) {
    for (const auto& b : buffers) push_back(b);
  }
  void push_back(const state_buffer& b) {
    assert(count_ < items_.size());
    items_[count_++] = b;
  }
  [[nodiscard]] const state_buffer* begin() const { return items_.data(); }
  [[nodiscard]] const state_buffer* end() const { return items_.data() + count_; }
  [[nodiscard]] std::size_t size() const { return count_; }

 private:
  std::array<state_buffer, 4> items_{};
  std::size_t count_ = 0;
};

/// The state buffers `optimizer` creates for a trainable tensor of `numel` elements (a shard
/// or partition when the strategy shards), with torch-created state in elements of
/// `element_bytes` (job.optimizer.state). bitsandbytes optimizers ignore `element_bytes`: their
/// 32-bit state is fp32 whatever the parameter dtype. Empty for SGD without momentum.
state_buffers optimizer_state_buffers(job::optimizer_kind optimizer, std::uint64_t numel,
                                      int element_bytes);

/// Sum of optimizer_state_buffers' sizes, managed or not.
bytes optimizer_state_bytes(job::optimizer_kind optimizer, std::uint64_t numel, int element_bytes);

}  // namespace vramscope::schedule
