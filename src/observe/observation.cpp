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
  move_all(into.warnings, from.warnings);
  into.process_table = into.process_table || from.process_table;
  if (into.driver_version.empty()) into.driver_version = std::move(from.driver_version);
  if (into.cuda_version.empty()) into.cuda_version = std::move(from.cuda_version);
}

}  // namespace vramscope::observe
