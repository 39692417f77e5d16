#pragma once
// Rules that read a call stack: which frames are torch internals or Python/C++ runtime (hidden
// when showing where an allocation came from) and which frames hint at a category (parameters,
// gradients, optimizer, activations, communication). The rules are a table in
// snapshot_frames.cpp and are listed in docs/formats/snapshot.md.

#include <cstdint>
#include <string_view>

#include <vramscope/observe/torch_snapshot.hpp>

namespace vramscope::observe::detail {

enum frame_flag : std::uint8_t {
  frame_internal = 1,       // torch internals, the Python runtime, C++ frames
  frame_communication = 2,  // NCCL / c10d collectives
  frame_optimizer = 4,      // torch.optim, optimizer steps
  frame_backward = 8,       // autograd backward
  frame_parameters = 16,    // module construction, .to()/.cuda(), checkpoint loading
  frame_forward = 32,       // module forward
  frame_plumbing = 64,      // stack capture, the caching allocator, op dispatch, the interpreter
};

/// Flags of one frame (a bit set of frame_flag).
std::uint8_t classify_frame(std::string_view name, std::string_view filename);

/// The category of a stack whose frames' flags were OR-ed together. Priority: communication,
/// optimizer, parameters, gradients (backward), activations (forward), other.
memory_category category_of(std::uint8_t flags);

}  // namespace vramscope::observe::detail
