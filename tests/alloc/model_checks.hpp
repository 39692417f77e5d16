#pragma once
// Checks every allocator model must satisfy at any moment, used by the conformance suite and
// the rule tests: the stat levels are ordered, peaks are not below currents, and the debug
// block view agrees with the stats and never shows two blocks on the same bytes.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <vramscope/alloc/allocator_model.hpp>

namespace vramscope::alloc::testing {

/// `live` maps each live handle to the block size allocate() reported for it.
inline void expect_consistent(const allocator_model& model, const std::map<handle, bytes>& live,
                              const std::string& where = "") {
  SCOPED_TRACE(model.name() + " " + where);
  const allocator_stats& s = model.stats();
  EXPECT_LE(s.allocated.current, s.active.current);
  EXPECT_LE(s.active.current, s.reserved.current);
  EXPECT_LE(s.reserved.current, model.capacity());
  EXPECT_LE(s.requested.current, s.active.current);
  EXPECT_GE(s.allocated.peak, s.allocated.current);
  EXPECT_GE(s.active.peak, s.active.current);
  EXPECT_GE(s.reserved.peak, s.reserved.current);
  EXPECT_GE(s.requested.peak, s.requested.current);
  EXPECT_EQ(s.allocations, live.size());

  bytes total = 0, allocated = 0, active = 0;
  std::map<handle, bytes> seen;
  const auto blocks = model.blocks();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const block_info& b = blocks[i];
    total += b.size;
    if (b.state != block_state::cached) active += b.size;
    if (b.state == block_state::allocated) {
      allocated += b.size;
      seen[b.id] = b.size;
    }
    if (i + 1 < blocks.size()) {
      EXPECT_LE(b.address + b.size, blocks[i + 1].address) << "blocks overlap at " << b.address;
    }
  }
  EXPECT_EQ(total, s.reserved.current) << "blocks do not add up to reserved";
  EXPECT_EQ(allocated, s.allocated.current);
  EXPECT_EQ(active, s.active.current);
  EXPECT_EQ(seen, live) << "live handles and allocated blocks differ";
}

/// The block holding `id`, or a default block_info with size 0.
inline block_info block_of(const allocator_model& model, handle id) {
  for (const block_info& b : model.blocks())
    if (b.state == block_state::allocated && b.id == id) return b;
  return {};
}

inline std::size_t count_state(const allocator_model& model, block_state state) {
  std::size_t n = 0;
  for (const block_info& b : model.blocks()) n += b.state == state ? 1 : 0;
  return n;
}

}  // namespace vramscope::alloc::testing
