#include <vramscope/observe/observation.hpp>

#include <iterator>

namespace vramscope::observe {

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
