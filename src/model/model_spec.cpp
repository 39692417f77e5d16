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

model_spec with_own_head(const model_spec& spec) {
  if (!spec.text.tied_embeddings || spec.text.vocab == 0) return spec;
  const auto& s = spec.text;
  // The embedding's token table: the text stack's first embedding tensor of vocab x hidden.
  const tensor* table = nullptr;
  for (const auto& u : spec.units) {
    if (u.kind != unit_kind::embedding || !u.name.starts_with(s.unit_prefix)) continue;
    for (const auto& t : spec.tensors)
      if (t.unit == u.name && t.shape == std::vector<std::uint64_t>{s.vocab, s.hidden}) {
        table = &t;
        break;
      }
    if (table != nullptr) break;
  }
  // The head follows the text stack's final norm (the last norm unit of the text stack).
  std::size_t norm = spec.units.size();
  for (std::size_t i = 0; i < spec.units.size(); ++i)
    if (spec.units[i].kind == unit_kind::norm && spec.units[i].name.starts_with(s.unit_prefix))
      norm = i;
  if (table == nullptr || norm == spec.units.size()) return spec;
  model_spec out = spec;
  const std::string prefix = s.unit_prefix;
  const std::string unit_name = prefix + "lm_head";
  for (const auto& u : out.units)
    if (u.name == unit_name) return spec;  // a unit of that name exists: leave the model alone
  out.text.tied_embeddings = false;
  const auto& last_norm = spec.units[norm].name;
  // After the norm's last tensor, so that tensors stay in unit order.
  std::size_t at = 0;
  for (std::size_t i = 0; i < out.tensors.size(); ++i)
    if (out.tensors[i].unit == last_norm) at = i + 1;
  out.tensors.insert(out.tensors.begin() + static_cast<std::ptrdiff_t>(at),
                     tensor{prefix + "lm_head.weight", {s.vocab, s.hidden}, table->type,
                            unit_name});
  out.units.insert(out.units.begin() + static_cast<std::ptrdiff_t>(norm + 1),
                   unit{unit_name, unit_kind::head, 0, 0});
  recompute_units(out);
  return out;
}

}  // namespace vramscope::model
