#pragma once
// A what-if row that changes parallel.strategy starts from a job written for another strategy:
// an accelerate FSDP config sets FSDP1's sync_module_states, a DeepSpeed one ZeRO's offload
// flags. Planned as they are, such rows are refused ("applies to fsdp1 only"). This rewrites
// the base job's strategy-specific options for the row's strategy: an option with a counterpart
// becomes it (FSDP1's SHARD_GRAD_OP is FSDP2's reshard_after_forward=False, FSDP's cpu_offload
// is ZeRO's offload_optimizer and offload_param), one without is put back to its default, and
// each change is a note for the row. Private to the whatif module.

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::whatif {

/// `row` is the base job with the row's `settings` applied, not resolved; `base` the base job
/// resolved. When the row's strategy differs from the base's, carries the base's options that
/// have a counterpart over to the row's strategy and resets those that have none, leaving alone
/// any key the row sets itself (its own setting is the user's, and is refused as given). Appends
/// one note per change to `notes`. Fails only when a counterpart cannot be set.
status translate_strategy(const job::job_spec& base, const std::vector<std::string>& settings,
                          job::job_spec& row, std::vector<std::string>& notes);

}  // namespace vramscope::whatif
