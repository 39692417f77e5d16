#include "schedule/fsdp_groups.hpp"

namespace vramscope::schedule {

fsdp_wrapping wrap_units(const layout& lay, const job::job_spec& job) {
  fsdp_wrapping w;
  w.groups.push_back(fsdp_group{{}, {}, true});
  w.group_of_unit.resize(lay.units.size(), 0);
  const bool per_block = job.parallel.wrap != "none";
  for (std::size_t i = 0; i < lay.units.size(); ++i) {
    const auto& u = lay.units[i];
    const bool is_block = u.kind == model::unit_kind::block || u.kind == model::unit_kind::vision_block;
    std::size_t g = 0;
    if (per_block && is_block) {
      w.groups.push_back(fsdp_group{});
      g = w.groups.size() - 1;
    }
    w.group_of_unit[i] = g;
    w.groups[g].units.push_back(i);
    w.groups[g].tensors.insert(w.groups[g].tensors.end(), u.trainable.begin(), u.trainable.end());
  }
  return w;
}

}  // namespace vramscope::schedule
