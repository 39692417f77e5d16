#pragma once
// The text PyTorch prints when the caching allocator gives up, built from the model's figures.

#include <string>

#include <vramscope/alloc/allocator_model.hpp>

namespace vramscope::alloc::detail {

/// "CUDA out of memory. Tried to allocate <segment>. GPU <d> has a total capacity of <total>
/// of which <capacity - reserved> is free. [<allowed> allowed; ]Of the allocated memory ..."
/// `allowed` is the memory-fraction limit, 0 when unset.
std::string torch_oom_message(const oom_info& info, bytes device_total, bytes allowed, int device);

}  // namespace vramscope::alloc::detail
