#pragma once
// FSDP wrapping: which units form one FSDP unit (FSDP1 FlatParameter / FSDP2 parameter group).
// With wrap "block" each transformer block is its own group and the root group holds every
// other parameter (embedding, final norm, head, vision extras); with wrap "none" the whole
// model is one root group. parallel.shard_separately takes the embedding and the head out of
// the root into groups of their own (torchtune's custom_sharded_layers).

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
  bool head = false;                       // the output projection's own group

  friend bool operator==(const fsdp_group&, const fsdp_group&) = default;
};

struct fsdp_wrapping {
  std::vector<fsdp_group> groups;          // groups[0] is the root
  std::vector<std::size_t> group_of_unit;  // unit index -> group index
  // Under expert parallelism each block's routed experts are a group of their own, sharded over
  // the ranks left after the ep split (torchtitan: fully_shard(moe.experts, dp_mod_ep mesh)),
  // placed after every other group; unit index -> that group (0 when none).
  std::vector<std::size_t> experts_of_unit;

  /// The group of the last unit that is neither the root's nor the head's own (0 when there is
  /// none): the last block's, whose forward ends before the root's (and the head's), which the
  /// root's pre-backward prefetches.
  [[nodiscard]] std::size_t last_block_group() const {
    for (std::size_t u = group_of_unit.size(); u-- > 0;)
      if (group_of_unit[u] != 0 && !groups[group_of_unit[u]].head) return group_of_unit[u];
    return 0;
  }
  /// The head's own group (parallel.shard_separately), 0 when the head is in the root.
  [[nodiscard]] std::size_t head_group() const {
    for (std::size_t g = 1; g < groups.size(); ++g)
      if (groups[g].head) return g;
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
