#pragma once
// The pass orders of torch.distributed.pipelining's zero-bubble schedules, one rank at a time
// (torch/distributed/pipelining/schedules.py, each class's _calculate_single_rank_operations).
// The no-op slots upstream pads with to align ranks in time are left out: they hold nothing.

#include <vector>

#include "schedule/pipeline.hpp"

namespace vramscope::schedule {

/// ScheduleInterleavedZeroBubble (ZB1P): interleaved 1F1B's rounds of micro-batches with one
/// warm-up forward per hop instead of two, every backward an input-gradient pass, and from
/// the (rank + 1)-th steady step on, the oldest weight-gradient pass after each backward.
/// Requires: pp >= 1, 0 <= rank < pp, stages >= 1, micro_batches >= 1 and a multiple of
/// max(1, micro_batches / pp).
std::vector<pipeline_op> interleaved_zero_bubble_ops(int pp, int rank, int stages,
                                                     int micro_batches);

/// ScheduleZBVZeroBubble: two local stages in a V (chunk 0 = stage rank, chunk 1 = stage
/// 2 pp - 1 - rank), 2 (pp - rank) - 1 warm-up forwards of chunk 0, then forwards, input and
/// weight gradients of both chunks in turn; the order is built for max(2 pp - 1,
/// micro_batches) and the passes of micro-batches beyond micro_batches dropped, as upstream.
std::vector<pipeline_op> zbv_zero_bubble_ops(int pp, int rank, int micro_batches);

/// ScheduleDualPipeV: DeepSeek's DualPipe folded into a V over the same two local stages; its
/// overlapped forward-backward pairs run forward first, as _PipelineScheduleRuntime runs an
/// OVERLAP_F_B's sub-actions one after the other. Requires: micro_batches >= 2 pp.
std::vector<pipeline_op> dualpipev_ops(int pp, int rank, int micro_batches);

}  // namespace vramscope::schedule
