#pragma once
// Where each process of the job puts memory, GPU by GPU: the rank's own process on its GPU,
// and what ranks leave on GPU 0 of their node before they select their device.

#include <vector>

#include <vramscope/predict/prediction.hpp>

namespace vramscope::predict {

/// Memory that rank `rank` places on GPU local 0 of its node besides its own GPU (CUDA work
/// before set_device, checkpoints loaded without map_location). Empty for local rank 0.
/// `resume_bytes`: what a resumed training checkpoint that rank 0 wrote holds (weights and
/// optimizer state), which checkpoint.resume_map_location none restores onto cuda:0.
std::vector<process_share> stray_shares(const job::job_spec& job, int rank, bytes checkpoint_bytes,
                                        bytes resume_bytes = 0);

/// Bytes other ranks' processes hold on the GPU of `rank` (non-zero only for local rank 0).
bytes foreign_bytes_on(const job::job_spec& job, int rank, bytes checkpoint_bytes,
                       bytes resume_bytes = 0);

/// Whether a resumed checkpoint lands on GPU 0 of the node for ranks other than local rank 0:
/// torch.load without map_location of a file rank 0 wrote from cuda:0 (a save that is not
/// sharded).
bool resume_lands_on_gpu0(const job::job_spec& job);

}  // namespace vramscope::predict
