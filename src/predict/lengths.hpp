#pragma once
// Variable-length training: rank 0's steps replayed at their drawn lengths, with and without
// expandable segments, summarised as the growth of the reserved peak and its percentiles.

#include <functional>
#include <memory>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/predict/prediction.hpp>
#include <vramscope/schedule/schedule.hpp>

#include "predict/replay.hpp"

namespace vramscope::predict {

/// The job's allocator model on rank 0's GPU, with expandable segments on or off.
using allocator_factory =
    std::function<result<std::unique_ptr<alloc::allocator_model>>(bool expandable)>;

/// Requires: job.training.lengths is not "fixed" (else the job has one length). Fails where
/// the lengths cannot be read (job::length_distribution_of) or the program cannot be built.
/// Replays stop where the state repeats for every length (schedule: the steps left out repeat
/// the last step of their length, whose figures they take).
result<length_figures> length_figures_of(const model::model_spec& model, const job::job_spec& job,
                                         const schedule::schedule_options& options,
                                         const allocator_factory& make);

/// The figures of `steps` steps whose lengths are `drawn` from a replay `rr` of a program
/// that marks its steps (`marks`, program::steps): a step after the replayed ones takes the
/// figures of the last replayed step of its length. Exposed for tests.
length_replay summarise_steps(const std::vector<schedule::program::step_mark>& marks,
                              const replay_result& rr, const std::vector<std::uint64_t>& drawn);

}  // namespace vramscope::predict
