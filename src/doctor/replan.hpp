#pragma once
// Pricing a fix: re-plan the job with the fix applied and compare the busiest GPU.

#include <optional>
#include <string>
#include <vector>

#include <vramscope/doctor/finding.hpp>

namespace vramscope::doctor {

struct replanned {
  predict::prediction after;
  std::int64_t saving = 0;  // busiest device before - after (positive = the fix saves memory)
  bool on_need = false;     // `saving` compares the whole step's needs (the job does not fit)
};

/// Applies `overrides` ("parallel.sync_module_states=true", "env.X=1") to the input's job and
/// plans again. Empty when there is no job/model/prediction or the fix does not apply. For a job
/// that does not fit, `saving` compares what the whole step needs before and after
/// (unbounded_need), since its plan ends at the out-of-memory error.
std::optional<replanned> replan(const doctor_input& in, const std::vector<std::string>& overrides);

/// What the whole step needs on the busiest GPU (device bytes): the job planned on a GPU without
/// limit (job::with_unlimited_memory), or doctor_input::need where diagnose() planned it. A plan
/// that runs out of memory ends at that error, so its busiest GPU holds only what came before;
/// this figure is what a fix for a job that does not fit is measured against. Empty where the
/// job does not plan.
std::optional<bytes> unbounded_need(const doctor_input& in);

/// Where the changes that make a job fit are priced, for a finding that names them in general:
/// MEM001 on the job given when its plan does not fit either, the failing phase's own finding
/// (CKPT001, EVAL001) when the plan fails only after its steps, and without a job the command
/// that prices them. A job whose plan fits is no help there, and the words say so.
std::string where_fixes_are_priced(const doctor_input& in);

/// "re-planned with a=b, c=d".
std::string replan_basis(const std::vector<std::string>& overrides);

/// "1.25 GiB", or "?" for a figure the input did not give.
std::string size_or_unknown(const std::optional<bytes>& b);

/// Observed bytes of the busiest GPU / rank helpers.
std::optional<bytes> observed_used(const observe::observation& o, int gpu);

}  // namespace vramscope::doctor
