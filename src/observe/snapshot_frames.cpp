#include "observe/snapshot_frames.hpp"

#include <array>
#include <iterator>
#include <string>

#include "observe/text_util.hpp"

namespace vramscope::observe::detail {

namespace {

enum class where : std::uint8_t { name, file, name_prefix, name_exact, file_suffix };

struct frame_rule {
  std::uint8_t flag;
  where in;
  std::string_view pattern;  // matched ignoring ASCII case, except name_prefix/name_exact
};

// Frames of torch itself, the interpreter and native code say little about the user's program.
// Hints name libraries and functions whose allocations have a known purpose.
constexpr frame_rule rules[] = {
    {frame_internal, where::file, "/torch/"},
    {frame_internal, where::file, "\\torch\\"},
    {frame_internal, where::file, "<frozen "},
    {frame_internal, where::file, "<built-in"},
    {frame_internal, where::file, "/lib/python3"},
    {frame_internal, where::file, "??"},
    {frame_internal, where::file_suffix, ".cpp"},
    {frame_internal, where::file_suffix, ".cc"},
    {frame_internal, where::file_suffix, ".h"},
    {frame_internal, where::file_suffix, ".hpp"},
    {frame_internal, where::file_suffix, ".cu"},
    {frame_internal, where::file_suffix, ".cuh"},
    {frame_internal, where::name_prefix, "c10::"},
    {frame_internal, where::name_prefix, "at::"},
    {frame_internal, where::name_prefix, "torch::"},
    {frame_internal, where::name_prefix, "std::"},
    {frame_internal, where::name_prefix, "_Py"},
    {frame_internal, where::name_prefix, "PyEval"},
    {frame_internal, where::name_prefix, "PyObject_"},
    {frame_internal, where::name_prefix, "__libc_start"},

    // A stack recorded with C++ frames (torch >= 2.1, `_record_memory_history(stacks="all")`)
    // begins with the capture itself, the allocator and the dispatcher's layers; an allocation
    // made on the autograd thread has no Python frame at all, and these would fill its shown
    // frames (seen in a torch 2.11 snapshot, tests/data/observe/h100_torch211/).
    {frame_plumbing, where::name_prefix, "torch::unwind::"},
    {frame_plumbing, where::name_prefix, "torch::CapturedTraceback::"},
    {frame_plumbing, where::name_prefix, "torch::cuda::(anonymous namespace)::gather"},
    {frame_plumbing, where::name_prefix, "c10::cuda::CUDACachingAllocator::"},
    {frame_plumbing, where::name_prefix, "c10::impl::"},
    {frame_plumbing, where::name_prefix, "c10::Dispatcher::"},
    {frame_plumbing, where::name_prefix, "at::_ops::"},
    {frame_plumbing, where::name_prefix, "at::detail::empty"},
    {frame_plumbing, where::name_prefix, "at::native::empty"},
    {frame_plumbing, where::name_prefix, "at::empty"},
    {frame_plumbing, where::name_prefix, "at::TensorIterator"},
    {frame_plumbing, where::name_prefix, "at::meta::structured_"},
    {frame_plumbing, where::name_prefix, "at::(anonymous namespace)"},
    {frame_plumbing, where::name_prefix, "_Py"},
    {frame_plumbing, where::name_prefix, "Py"},
    {frame_plumbing, where::name_prefix, "__libc_"},
    {frame_plumbing, where::name_exact, "_start"},
    {frame_plumbing, where::name_prefix, "start_thread"},
    {frame_plumbing, where::name_prefix, "clone"},

    {frame_communication, where::name, "nccl"},
    {frame_communication, where::file, "nccl"},
    {frame_communication, where::name, "all_gather"},
    {frame_communication, where::name, "allgather"},
    {frame_communication, where::name, "reduce_scatter"},
    {frame_communication, where::name, "reducescatter"},
    {frame_communication, where::name, "all_reduce"},
    {frame_communication, where::name, "allreduce"},
    {frame_communication, where::name, "all_to_all"},
    {frame_communication, where::name, "broadcast"},
    {frame_communication, where::name, "c10d"},
    {frame_communication, where::file, "distributed_c10d"},
    {frame_communication, where::file, "_collectives"},
    {frame_communication, where::name, "processgroup"},

    {frame_optimizer, where::file, "/optim/"},
    {frame_optimizer, where::file, "optimizer"},
    {frame_optimizer, where::name, "optimizer"},
    {frame_optimizer, where::name, "adam"},
    {frame_optimizer, where::name, "_init_group"},
    {frame_optimizer, where::name, "_multi_tensor_"},
    {frame_optimizer, where::name, "_single_tensor_"},

    {frame_backward, where::name, "backward"},
    {frame_backward, where::file, "/autograd/"},
    {frame_backward, where::name, "accumulategrad"},
    {frame_backward, where::name, "evaluate_function"},

    {frame_parameters, where::name, "from_pretrained"},
    {frame_parameters, where::name, "load_state_dict"},
    {frame_parameters, where::name, "load_checkpoint"},
    {frame_parameters, where::name, "reset_parameters"},
    {frame_parameters, where::name, "init_weights"},
    {frame_parameters, where::name, "to_empty"},
    {frame_parameters, where::name, "materialize"},
    {frame_parameters, where::name, "param_init"},
    {frame_parameters, where::name, "_init_param"},
    {frame_parameters, where::name, "fully_shard"},
    {frame_parameters, where::name_exact, "_apply"},
    {frame_parameters, where::name_exact, "__init__"},

    {frame_forward, where::name, "forward"},
    {frame_forward, where::name, "_call_impl"},
};

// The rules' patterns in lower case, for the rules matched ignoring case.
const std::array<std::string, std::size(rules)>& lowered_patterns() {
  static const auto lowered = [] {
    std::array<std::string, std::size(rules)> out;
    for (std::size_t i = 0; i < std::size(rules); ++i) out[i] = to_lower(rules[i].pattern);
    return out;
  }();
  return lowered;
}

// `lname` and `lfile`: name and file in lower case, made once a frame (a case-insensitive
// search of each rule was most of the time of reading a snapshot with C++ frames).
bool matches(const frame_rule& r, const std::string& lowered_pattern, std::string_view name,
             std::string_view lname, std::string_view lfile) {
  switch (r.in) {
    case where::name:
      return lname.find(lowered_pattern) != std::string_view::npos;
    case where::file:
      return lfile.find(lowered_pattern) != std::string_view::npos;
    case where::name_prefix: return name.substr(0, r.pattern.size()) == r.pattern;
    case where::name_exact: return name == r.pattern;
    case where::file_suffix:
      return lfile.size() >= r.pattern.size() &&
             lfile.substr(lfile.size() - r.pattern.size()) == r.pattern;
  }
  return false;
}

}  // namespace

std::uint8_t classify_frame(std::string_view name, std::string_view filename) {
  const std::string lname = to_lower(name);
  const std::string lfile = to_lower(filename);
  const auto& lowered = lowered_patterns();
  std::uint8_t flags = 0;
  for (std::size_t i = 0; i < std::size(rules); ++i) {
    const auto& r = rules[i];
    if (!(flags & r.flag) && matches(r, lowered[i], name, lname, lfile))
      flags = static_cast<std::uint8_t>(flags | r.flag);
  }
  if (filename.empty()) flags = static_cast<std::uint8_t>(flags | frame_internal);
  return flags;
}

memory_category category_of(std::uint8_t flags) {
  if (flags & frame_communication) return memory_category::communication;
  if (flags & frame_optimizer) return memory_category::optimizer;
  if (flags & frame_parameters) return memory_category::parameters;
  if (flags & frame_backward) return memory_category::gradients;
  if (flags & frame_forward) return memory_category::activations;
  return memory_category::other;
}

}  // namespace vramscope::observe::detail
