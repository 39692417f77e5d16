#include <vramscope/model/model_spec.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <utility>

namespace vramscope::model {

std::uint64_t model_spec::parameters() const {
  std::uint64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

bytes model_spec::size() const {
  bytes n = 0;
  for (const auto& t : tensors) n += bytes_of(t.type, t.numel());
  return n;
}

const unit& model_spec::largest_unit() const {
  VRAMSCOPE_EXPECTS(!units.empty(), "largest_unit of a model without units");
  return *std::max_element(units.begin(), units.end(), [](const unit& a, const unit& b) {
    return a.parameters < b.parameters;
  });
}

std::string_view name_of(unit_kind kind) {
  static constexpr std::array<std::pair<unit_kind, std::string_view>, 9> names{{
      {unit_kind::embedding, "embedding"},
      {unit_kind::block, "block"},
      {unit_kind::norm, "norm"},
      {unit_kind::head, "head"},
      {unit_kind::vision_embedding, "vision_embedding"},
      {unit_kind::vision_block, "vision_block"},
      {unit_kind::vision_head, "vision_head"},
      {unit_kind::projector, "projector"},
      {unit_kind::other, "other"},
  }};
  for (const auto& [k, name] : names)
    if (k == kind) return name;
  return "other";
}

std::string format_shape(const std::vector<std::uint64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

void recompute_units(model_spec& spec) {
  std::unordered_map<std::string, unit*> by_name;
  for (auto& u : spec.units) {
    u.parameters = 0;
    u.size = 0;
    by_name.emplace(u.name, &u);
  }
  for (const auto& t : spec.tensors) {
    const auto it = by_name.find(t.unit);
    VRAMSCOPE_EXPECTS(it != by_name.end(), "tensor " + t.name + " names unknown unit " + t.unit);
    it->second->parameters += t.numel();
    it->second->size += bytes_of(t.type, t.numel());
  }
}

}  // namespace vramscope::model
