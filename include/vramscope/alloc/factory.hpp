#pragma once
// One place to build the allocator models the simulator replays events through.

#include <memory>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/alloc/bfc_allocator.hpp>
#include <vramscope/alloc/caching_options.hpp>

namespace vramscope::alloc {

/// PyTorch's allocator as PYTORCH_CUDA_ALLOC_CONF configures it: a caching_allocator, or, for
/// backend:cudaMallocAsync, an exact_allocator named "torch-cuda-malloc-async" with the same
/// capacity (CUDA's pool releases memory at stream synchronisation by default, so exact is its
/// closest model; the native-only options do not apply to it).
std::unique_ptr<allocator_model> make_caching_allocator(caching_allocator_options options);

/// PYTORCH_NO_CUDA_MEMORY_CACHING=1: every allocation is its own cudaMalloc.
std::unique_ptr<allocator_model> make_exact_allocator(bytes capacity);

/// XLA's BFC pool as the JAX GPU client configures it (see jax_bfc_options).
std::unique_ptr<allocator_model> make_bfc_allocator(bfc_options options);

}  // namespace vramscope::alloc
