// Units for weights that come without a config: inferred from the tensor names.
//   1. Drop the parameter's own name (".weight", ".bias", ...) and the wrapper modules
//      (model, transformer, gpt_neox, language_model, vision_model, encoder); a name that went
//      through vision_tower or vision_model belongs to the vision tower ("vision_tower." units).
//   2. A block index (layers.N, h.N, blocks.N, layer.N) makes the unit everything up to it.
//   3. Otherwise the unit is the first remaining module ("embed_tokens", "norm", "lm_head").
// Units are then put in a likely forward order: embeddings, vision tower, projector, blocks
// by index, final norm, head, the rest.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "model/checkpoint_inventory.hpp"

namespace vramscope::model::detail {

namespace {

struct inferred {
  std::string unit;
  unit_kind kind = unit_kind::other;
  std::uint64_t index = 0;  // block index, for ordering
};

std::vector<std::string> split(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
    parts.push_back(name.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(name.substr(start));
  return parts;
}

bool is_number(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != s.npos; }

unit_kind kind_of(const std::string& module, bool vision) {
  if (vision && contains(module, "embed")) return unit_kind::vision_embedding;
  if (vision && contains(module, "head")) return unit_kind::vision_head;
  if (module == "lm_head" || module == "embed_out") return unit_kind::head;
  if (contains(module, "embed") || module == "wte" || module == "wpe") return unit_kind::embedding;
  if (contains(module, "norm") || module == "ln_f") return unit_kind::norm;
  if (contains(module, "projector")) return unit_kind::projector;
  return unit_kind::other;
}

inferred infer(const std::string& name) {
  std::vector<std::string> kept;
  bool vision = false;
  const auto parts = split(name);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "vision_tower" || p == "vision_model") vision = true;
    if (p == "vision_tower" || p == "vision_model" || p == "model" || p == "transformer" ||
        p == "gpt_neox" || p == "language_model" || p == "encoder")
      continue;
    kept.push_back(p);
  }
  const std::string scope = vision ? "vision_tower." : "";
  for (std::size_t i = 0; i + 1 < kept.size(); ++i) {
    const std::string& p = kept[i];
    if ((p == "layers" || p == "h" || p == "blocks" || p == "layer") && is_number(kept[i + 1])) {
      std::string unit = scope;
      for (std::size_t j = 0; j <= i + 1; ++j) unit += kept[j] + (j == i + 1 ? "" : ".");
      return {unit, vision ? unit_kind::vision_block : unit_kind::block, std::stoull(kept[i + 1])};
    }
  }
  if (kept.empty()) return {scope + name, unit_kind::other, 0};
  return {scope + kept.front(), kind_of(kept.front(), vision), 0};
}

int rank_of(unit_kind kind, const std::string& unit) {
  const bool vision = unit.rfind("vision_tower.", 0) == 0;
  switch (kind) {
    case unit_kind::embedding:
      return 0;
    case unit_kind::vision_embedding:
      return 1;
    case unit_kind::vision_block:
      return 2;
    case unit_kind::vision_head:
      return 4;
    case unit_kind::projector:
      return 5;
    case unit_kind::block:
      return 6;
    case unit_kind::norm:
      return vision ? 3 : 7;
    case unit_kind::head:
      return 8;
    default:
      return 9;
  }
}

// What can be read off the names: depth of each stack, and width and vocabulary from a
// two-dimensional embedding [vocab, hidden].
void describe_stacks(model_spec& spec) {
  std::uint64_t vision_layers = 0;
  for (const auto& u : spec.units) {
    if (u.kind == unit_kind::block) ++spec.text.layers;
    if (u.kind == unit_kind::vision_block) ++vision_layers;
  }
  std::map<std::string, unit_kind> kinds;
  for (const auto& u : spec.units) kinds.emplace(u.name, u.kind);
  for (const auto& t : spec.tensors) {
    if (kinds[t.unit] == unit_kind::embedding && t.shape.size() == 2 && spec.text.hidden == 0) {
      spec.text.vocab = t.shape[0];
      spec.text.hidden = t.shape[1];
    }
  }
  if (vision_layers > 0) {
    spec.vision = stack_shape{};
    spec.vision->family = "unknown";
    spec.vision->layers = vision_layers;
  }
}

}  // namespace

model_spec inventory_from_checkpoint(const safetensors_checkpoint& weights, std::string name) {
  model_spec spec;
  spec.name = std::move(name);
  spec.model_type = "safetensors";
  spec.text.family = "unknown";
  std::map<std::string, inferred> units;
  std::vector<std::string> order;  // first appearance
  for (const auto& w : weights.tensors) {
    inferred u = infer(w.entry.name);
    if (units.emplace(u.unit, u).second) order.push_back(u.unit);
    spec.tensors.push_back(tensor{w.entry.name, w.entry.shape, w.entry.type, u.unit});
  }
  std::stable_sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    const inferred& x = units[a];
    const inferred& y = units[b];
    const int rx = rank_of(x.kind, a), ry = rank_of(y.kind, b);
    return rx != ry ? rx < ry : x.index < y.index;
  });
  std::map<std::string, std::size_t> position;
  for (const auto& u : order) {
    position.emplace(u, spec.units.size());
    spec.units.push_back(unit{u, units[u].kind, 0, 0});
  }
  std::stable_sort(spec.tensors.begin(), spec.tensors.end(), [&](const tensor& a, const tensor& b) {
    return position[a.unit] < position[b.unit];
  });
  describe_stacks(spec);
  if (!spec.tensors.empty()) spec.type = dominant_dtype(spec);
  recompute_units(spec);
  spec.notes = weights.notes;
  return spec;
}

}  // namespace vramscope::model::detail
