#pragma once
// Pipeline parallelism: which units each stage holds and in what order a rank runs the
// forward and backward passes of its micro-batches (torch.distributed.pipelining's schedules).

#include <cstdint>
#include <string_view>
#include <vector>

#include <vramscope/core/units.hpp>

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

/// How a framework splits a decoder's units over pipeline stages.
enum class pipeline_split {
  torchtitan,  // the embedding and the output weigh one block each (above)
  megatron,    // Megatron-LM: only transformer layers are split; embedding and head ride along
};

/// The virtual stage of every unit under `split`. Megatron-LM (get_num_layers_to_build in
/// megatron/core/transformer/transformer_block.py, without --account-for-embedding-in-pipeline-
/// split or --account-for-loss-in-pipeline-split) gives every one of the pp x vp stages
/// num_layers / (pp x vp) transformer layers in order and builds the embedding on the first
/// stage and the final norm and head on the last, in addition to their layers; it asserts that
/// the layers divide evenly, and so does this (an error naming the counts otherwise).
result<std::vector<int>> stage_of_units(const model::model_spec& model, int stages,
                                        pipeline_split split);

/// The rank (0 .. pp-1 along the pipeline dimension) holding virtual stage `stage` of `2 pp`
/// or more: round-robin ("loop" placement: rank r holds stages r, r + pp, r + 2 pp, ...), or,
/// for the V-shaped schedules (job::v_shaped), rank r holds stages r and 2 pp - 1 - r, so rank
/// 0 holds the first and the last stage. Either way the stage is the rank's local stage
/// `stage / pp`.
inline int pipeline_rank_of_stage(int stage, int pp, job::pp_schedule schedule) {
  if (job::v_shaped(schedule) && stage >= pp) return 2 * pp - 1 - stage;
  return stage % pp;
}

/// What one step of a pipeline schedule computes (torch.distributed.pipelining's F, B, I, W).
enum class pass {
  forward,          // F: the stage's forward; its saved activations are held from here
  backward,         // B: input and weight gradients at once; the activations are released
  backward_input,   // I: the input gradient only (stage_backward_input); the autograd graph is
                    //    retained for the weight gradient
  backward_weight,  // W: the weight gradient (stage_backward_weight); released from here
};

/// One step of a rank's pipeline schedule: pass `kind` of micro-batch `micro` through the
/// rank's local stage `chunk` (0 .. stages_per_rank-1, in model order).
struct pipeline_op {
  pass kind = pass::forward;
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
///    backward in turn, then the remaining backwards (ScheduleInterleaved1F1B);
///  - interleaved_zero_bubble, zbv_zero_bubble, dualpipev: the orders of
///    ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble and ScheduleDualPipeV
///    (see pipeline_orders.cpp), with backward_input / backward_weight passes.
/// Requires: the combination passes job validation (dualpipev: micro_batches >= 2 pp;
/// the V-shaped schedules: stages_per_rank == 2).
std::vector<pipeline_op> pipeline_ops(job::pp_schedule schedule, int pp, int rank,
                                      int stages_per_rank, int micro_batches);

/// The most micro-batch passes whose activations a schedule holds at once: forwards run less
/// full backwards and weight-gradient passes run (an input-gradient pass keeps the graph).
int peak_in_flight(const std::vector<pipeline_op>& ops);

/// The most passes at once whose input gradient has run and weight gradient has not (each
/// holding the gradients its weight-gradient pass needs).
int peak_awaiting_weight(const std::vector<pipeline_op>& ops);

/// What stage_backward_input keeps for the weight gradient of unit `unit`, beside the saved
/// activations: the gradient reaching each operation that reads a weight (its prehook stores
/// it in the parameter group until stage_backward_weight). One output row per token for each
/// weight of `model`'s unit: out_features of a matrix (the last two dimensions' first, for
/// stacked experts), the length of a vector other than a bias; `element_bytes` each (the
/// compute dtype's), split over `tp` ranks.
bytes weight_gradient_inputs(const model::model_spec& model, std::string_view unit,
                             std::uint64_t tokens, int tp, bytes element_bytes);

}  // namespace vramscope::schedule
