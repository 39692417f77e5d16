#pragma once
// What one rank holds, before any timing: the units of the model as this rank sees them after
// tensor-parallel splitting and LoRA, and the dtypes each kind of state is kept in.

#include <cstdint>
#include <string>
#include <vector>

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::schedule {

/// A rank's coordinates in the job's mesh.
struct rank_info {
  int rank = 0;
  int world = 1;
  int tp = 1;
  int dp_shard = 1;      // size of the sharding group (FSDP / ZeRO)
  int dp_replicate = 1;  // replicas of the sharding group
  int local_rank = 0;
};

/// One unit (FSDP wrap / ZeRO-3 gather granule) on this rank, after the TP split.
struct unit_layout {
  std::string name;
  model::unit_kind kind = model::unit_kind::other;
  std::vector<std::uint64_t> tensors;    // element counts of its tensors (TP-split)
  std::vector<std::uint64_t> trainable;  // element counts of tensors that get gradients
  std::uint64_t numel = 0;               // sum of `tensors`
  std::uint64_t trainable_numel = 0;     // sum of `trainable`
  bytes frozen_bytes = 0;                // frozen base weights in their (maybe quantised) dtype
};

/// Dtype sizes in bytes of each kind of state (see docs/job-spec.md, "precision").
struct state_dtypes {
  int compute = 2;     // dtype parameters are used in by forward/backward
  int stored = 2;      // persistent trainable parameters (sharded ones for FSDP/ZeRO)
  int grad = 2;        // persistent gradients
  int reduce = 4;      // gradient reduction
  int master = 0;      // extra master copy held by the optimizer (0 = none)
  int frozen = 2;      // frozen base weights (LoRA)
  int state = 4;       // optimizer state: job.optimizer.state, as resolve_job decided it
};

struct layout {
  std::vector<unit_layout> units;  // forward order
  state_dtypes dtypes;
  std::uint64_t numel = 0;
  std::uint64_t trainable_numel = 0;
};

rank_info make_rank_info(const job::job_spec& job, int rank);
state_dtypes make_state_dtypes(const job::job_spec& job);
layout make_layout(const model::model_spec& model, const job::job_spec& job, const rank_info& r);

/// True when the strategy shards parameters over the data-parallel group.
bool shards_parameters(const job::job_spec& job);

}  // namespace vramscope::schedule
