#pragma once
// JAX on GPUs: one process takes a BFC pool of fraction x total memory on every GPU it can see
// (or grows one on demand up to that size, or allocates exactly with the platform allocator).
// The working set inside the pool comes from the same schedule as FSDP2 with the FSDP mesh
// axis as the sharding group (OpenPI's fsdp_devices).

#include <vramscope/predict/prediction.hpp>

namespace vramscope::predict {

result<prediction> plan_jax(const model::model_spec& model, const job::job_spec& job,
                            const predict_options& options);

/// The GPU indices (within a node) a process sees: CUDA_VISIBLE_DEVICES, or all of them.
result<std::vector<int>> visible_devices(const job::job_spec& job);

/// The pool fraction in force: XLA_CLIENT_MEM_FRACTION / XLA_PYTHON_CLIENT_MEM_FRACTION, or
/// the jaxlib default (0.9 up to 0.4.13, 0.75 from 0.4.14).
result<double> jax_mem_fraction(const job::job_spec& job);

}  // namespace vramscope::predict
