#pragma once
// Out-of-memory messages inside a pasted log. Two families are recognised:
//
//   PyTorch (2.1+):  "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity
//                     of 79.15 GiB of which 1.25 GiB is free. Process 1234 has 77.89 GiB memory in
//                     use. Of the allocated memory 70.12 GiB is allocated by PyTorch, and 6.51 GiB
//                     is reserved by PyTorch but unallocated. ..."
//   PyTorch (older): "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total
//                     capacity; 70.12 GiB already allocated; 1.25 GiB free; 76.63 GiB reserved in
//                     total by PyTorch)"
//   JAX / XLA:       "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184
//                     bytes." with the BFC allocator's dump before it when present ("Allocator
//                     (GPU_0_bfc) ran out of memory trying to allocate ...", "Limit:", "InUse:",
//                     "MaxInUse:", "LargestFreeBlock:").
//
// A message may be wrapped over several lines and each line may carry a "[rankN]: " prefix.
// Pure function; thread-safe; linear time.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::observe {

/// Every out-of-memory report in `text`, in order of appearance. The same PyTorch message
/// repeated for the same rank (launchers print it twice) is reported once. A message whose
/// figures cannot be read is still reported, with the unread fields empty, and a warning
/// naming its line is added to `found_warnings`. Returns an empty vector when there is none.
std::vector<oom_report> find_oom_reports(std::string_view text, const std::string& source,
                                         warnings& found_warnings);

}  // namespace vramscope::observe
