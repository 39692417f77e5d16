#include "schedule/optimizer_state.hpp"

#include <algorithm>

namespace vramscope::schedule {

namespace {

using job::optimizer_kind;

// bitsandbytes Optimizer2State (bitsandbytes/optim/optimizer.py, init_state and
// get_state_buffer): two moments; fp32 below min_8bit_size or for 32-bit optimizers, else uint8
// plus one fp32 absmax per 256-element block and moment (plain torch tensors, never paged).
state_buffers bnb_adam(std::uint64_t numel, bool eight_bit, bool paged) {
  const bool quantised = eight_bit && numel >= bnb_min_8bit_size;
  const bool managed = paged && numel >= bnb_paging_min_numel;
  const state_buffer moment{quantised ? numel : numel * 4, managed};
  state_buffers out{moment, moment};
  if (quantised) {
    const state_buffer absmax{ceil_div(numel, bnb_block_size) * 4, false};
    out.push_back(absmax);
    out.push_back(absmax);
  }
  return out;
}

}  // namespace

state_buffers optimizer_state_buffers(optimizer_kind optimizer, std::uint64_t numel,
                                      int element_bytes) {
  const bytes e = static_cast<bytes>(element_bytes);
  switch (optimizer) {
    case optimizer_kind::adamw:
    case optimizer_kind::adam: return {{numel * e, false}, {numel * e, false}};  // exp_avg, exp_avg_sq
    case optimizer_kind::sgd_momentum: return {{numel * e, false}};               // momentum_buffer
    case optimizer_kind::sgd: return {};
    // Factored second moment: about a row and a column vector per matrix; for an unknown shape
    // assume a square matrix (2 * sqrt(n)) values in fp32.
    case optimizer_kind::adafactor: {
      std::uint64_t side = 1;
      while (side * side < numel) side *= 2;
      return {{std::min(numel, 2 * side) * 4, false}};
    }
    case optimizer_kind::adamw_8bit: return bnb_adam(numel, true, false);
    case optimizer_kind::paged_adamw: return bnb_adam(numel, false, true);
    case optimizer_kind::paged_adamw_8bit: return bnb_adam(numel, true, true);
  }
  return {};
}

bytes optimizer_state_bytes(optimizer_kind optimizer, std::uint64_t numel, int element_bytes) {
  bytes total = 0;
  for (const auto& b : optimizer_state_buffers(optimizer, numel, element_bytes)) total += b.size;
  return total;
}

}  // namespace vramscope::schedule
