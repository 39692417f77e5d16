#pragma once
// Pipeline parallelism: which units each stage holds and in what order a rank runs the
// forward and backward passes of its micro-batches (torch.distributed.pipelining's schedules).

#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::schedule {

/// The virtual stage of every unit of `model` when split into `stages` stages as torchtitan
/// splits a decoder (generate_llm_fqn_per_model_part with input and output weights of 1): the
/// embedding counts as one layer of the first stage, the final norm and head as one layer of
/// the last, and the blocks fill the stages evenly in order, the first stages taking one more
/// when they do not divide. Fails for units other than an embedding, blocks, a norm and a head,
/// and when a stage would hold no block (job::check_against_model says so first).
result<std::vector<int>> stage_of_units(const model::model_spec& model, int stages);

/// The rank (0 .. pp-1 along the pipeline dimension) holding virtual stage `stage`: stages are
/// placed round-robin ("loop" placement), so rank r holds stages r, r + pp, r + 2 pp, ...
inline int pipeline_rank_of_stage(int stage, int pp) { return stage % pp; }

/// One step of a rank's pipeline schedule: the forward or backward pass of micro-batch `micro`
/// through the rank's local stage `chunk` (0 .. stages_per_rank-1, in model order).
struct pipeline_op {
  bool forward = true;
  int chunk = 0;
  int micro = 0;
};

/// The order in which pipeline rank `rank` of `pp` runs its passes for `micro_batches`
/// micro-batches:
///  - gpipe: every forward, then every backward (ScheduleGPipe);
///  - 1f1b: min(micro_batches, pp - rank) forwards, then one backward and one forward in turn,
///    then the remaining backwards (Schedule1F1B);
///  - interleaved_1f1b: forwards go round the rank's `stages_per_rank` stages in rounds of `pp`
///    micro-batches, backwards the same rounds with the stages reversed; (stages_per_rank - 1)
///    pp + 2 (pp - 1 - rank) warm-up forwards (capped at all of them), then one forward and one
///    backward in turn, then the remaining backwards (ScheduleInterleaved1F1B).
std::vector<pipeline_op> pipeline_ops(job::pp_schedule schedule, int pp, int rank,
                                      int stages_per_rank, int micro_batches);

/// The most micro-batch passes whose activations a schedule holds at once (forwards run, their
/// backwards not yet).
int peak_in_flight(const std::vector<pipeline_op>& ops);

}  // namespace vramscope::schedule
