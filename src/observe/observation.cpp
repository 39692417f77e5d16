#include <vramscope/observe/observation.hpp>

#include <iterator>

namespace vramscope::observe {

std::string_view allocator_name(oom_allocator a) {
  switch (a) {
    case oom_allocator::torch_caching:
      return "torch_caching";
    case oom_allocator::torch_async:
      return "torch_cuda_malloc_async";
    case oom_allocator::torch_mps:
      return "torch_mps";
    case oom_allocator::cupy_pool:
      return "cupy_pool";
    case oom_allocator::cudajl_pool:
      return "cudajl_pool";
    case oom_allocator::tf_bfc:
      return "tensorflow_bfc";
    case oom_allocator::xla_bfc:
      return "xla_bfc";
    case oom_allocator::xla_client:
      return "xla_client";
    case oom_allocator::paddle:
      return "paddle";
    case oom_allocator::kaldi:
      return "kaldi_cu_allocator";
    case oom_allocator::cuda:
      return "cuda";
    case oom_allocator::other:
      return "other";
  }
  return "other";
}

void append(observation& into, observation&& from) {
  const auto move_all = [](auto& to, auto& src) {
    to.insert(to.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
  };
  move_all(into.gpus, from.gpus);
  move_all(into.processes, from.processes);
  move_all(into.stats, from.stats);
  move_all(into.ooms, from.ooms);
  move_all(into.vllm, from.vllm);
  move_all(into.xla_pools, from.xla_pools);
  move_all(into.series, from.series);
  move_all(into.process_counts, from.process_counts);
  move_all(into.rank_devices, from.rank_devices);
  move_all(into.allocated_checks, from.allocated_checks);
  move_all(into.compute_modes, from.compute_modes);
  move_all(into.warnings, from.warnings);
  into.process_table = into.process_table || from.process_table;
  // The lowest GPU from which some paste's process list may lack rows.
  if (from.processes_cut_from_gpu && (!into.processes_cut_from_gpu || *from.processes_cut_from_gpu <
                                                                          *into.processes_cut_from_gpu))
    into.processes_cut_from_gpu = from.processes_cut_from_gpu;
  if (into.driver_version.empty()) into.driver_version = std::move(from.driver_version);
  if (into.cuda_version.empty()) into.cuda_version = std::move(from.cuda_version);
}

}  // namespace vramscope::observe
