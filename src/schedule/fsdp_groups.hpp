#pragma once
// FSDP wrapping: which units form one FSDP unit (FSDP1 FlatParameter / FSDP2 parameter group).
// With wrap "block" each transformer block is its own group and the root group holds every
// other parameter (embedding, final norm, head, vision extras); with wrap "none" the whole
// model is one root group.

#include <cstdint>
#include <memory>
#include <vector>

#include "schedule/layout.hpp"

namespace vramscope::schedule {

struct fsdp_group {
  std::vector<std::size_t> units;          // indices into layout::units
  std::vector<std::uint64_t> tensors;      // element counts of its trainable tensors
  std::vector<bool> float8;                // per tensor: a Float8Linear's weight
  bool root = false;
  std::uint64_t shard_divisor = 1;         // shards over (sharding group / this) ranks

  friend bool operator==(const fsdp_group&, const fsdp_group&) = default;
};

struct fsdp_wrapping {
  std::vector<fsdp_group> groups;          // groups[0] is the root
  std::vector<std::size_t> group_of_unit;  // unit index -> group index
  // Under expert parallelism each block's routed experts are a group of their own, sharded over
  // the ranks left after the ep split (torchtitan: fully_shard(moe.experts, dp_mod_ep mesh)),
  // placed after every other group; unit index -> that group (0 when none).
  std::vector<std::size_t> experts_of_unit;

  /// The group of the last unit that is not the root's (0 when every unit is the root's): the
  /// one whose forward ends just before the root's, which the root's pre-backward prefetches.
  [[nodiscard]] std::size_t last_block_group() const {
    for (std::size_t u = group_of_unit.size(); u-- > 0;)
      if (group_of_unit[u] != 0) return group_of_unit[u];
    return 0;
  }

  friend bool operator==(const fsdp_wrapping&, const fsdp_wrapping&) = default;
};

fsdp_wrapping wrap_units(const layout& lay, const job::job_spec& job);
/// wrap_units of a shared layout (shared_layout), kept per thread with that layout and the two
/// settings it reads (parallel.wrap, parallel.ep): the rows of a what-if grid that share a
/// layout share its wrapping.
std::shared_ptr<const fsdp_wrapping> shared_wrapping(const std::shared_ptr<const layout>& lay,
                                                     const job::job_spec& job);

}  // namespace vramscope::schedule
