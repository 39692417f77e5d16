#pragma once
// GPU memory outside the framework's allocator: the CUDA context, NCCL communicator buffers,
// and the cuBLAS workspace (which does go through the allocator; its size is decided here).
// Numbers and their upstream sources: docs/schedule.md, "Outside the allocator".

#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::predict {

/// One process's CUDA context on one GPU.
bytes cuda_context_bytes(const job::job_spec& job);

/// Number of NCCL communicators a rank of this job creates.
int nccl_communicators(const job::job_spec& job);

/// NCCL buffers of one rank: connections x channels x FIFO sizes per communicator, plus NVLS.
bytes nccl_bytes(const job::job_spec& job, int compute_capability);

/// The symmetric-memory workspace of async tensor parallelism (parallel.async_tp), outside the
/// caching allocator; 0 without it. Reported with the NCCL buffers.
bytes symmetric_memory_bytes(const job::job_spec& job, const model::model_spec& model);

/// cuBLAS workspace per stream (allocated through the caching allocator).
bytes cublas_workspace_bytes(const job::job_spec& job, int compute_capability);

}  // namespace vramscope::predict
