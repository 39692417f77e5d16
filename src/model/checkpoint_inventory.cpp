#include "model/checkpoint_inventory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace vramscope::model::detail {

namespace {

using entry_map = std::unordered_map<std::string, const checkpoint_entry*>;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Buffers some checkpoints store beside the parameters (registered buffers, not parameters).
bool is_buffer(std::string_view name) {
  for (std::string_view suffix : {"rotary_emb.inv_freq", "attn.bias", "attn.masked_bias",
                                  "attention.bias", "attention.masked_bias"})
    if (name == suffix || ends_with(name, std::string(".") + std::string(suffix))) return true;
  return false;
}

// How the weights' names relate to the config's: the weights add `add` in front, or lack
// the leading `drop`. Found from the first config tensor.
struct renaming {
  std::string add;
  std::string drop;
  [[nodiscard]] std::string apply(const std::string& name) const {
    if (!drop.empty() && name.rfind(drop, 0) == 0) return name.substr(drop.size());
    return add + name;
  }
};

renaming find_renaming(const model_spec& spec, const safetensors_checkpoint& weights,
                       const entry_map& by_name) {
  const std::string& first = spec.tensors.front().name;
  if (by_name.count(first)) return {};
  for (const auto& w : weights.tensors) {
    const std::string& n = w.entry.name;
    if (n.size() > first.size() && ends_with(n, "." + first))
      return {n.substr(0, n.size() - first.size()), ""};
    if (first.size() > n.size() && ends_with(first, "." + n))
      return {"", first.substr(0, first.size() - n.size())};
  }
  return {};
}

std::string where(const safetensors_checkpoint& weights, const checkpoint_entry* e) {
  return e ? e->file : weights.source;
}

status check_extras(model_spec& spec, const std::string& config_source,
                    const safetensors_checkpoint& weights,
                    const std::unordered_set<std::string>& matched) {
  for (const auto& w : weights.tensors) {
    const std::string& n = w.entry.name;
    if (matched.count(n) || is_buffer(n)) continue;
    if (spec.text.tied_embeddings && ends_with(n, "lm_head.weight")) {
      spec.notes.push_back(error_at(w.file, fmt::format("the checkpoint stores {} although {} "
                                                        "ties it to the embedding; counted once",
                                                        n, config_source)));
      continue;
    }
    return error_at(w.file, fmt::format("tensor \"{}\" {} is not in the inventory {} describes", n,
                                        format_shape(w.entry.shape), config_source));
  }
  return ok();
}

}  // namespace

dtype dominant_dtype(const model_spec& spec) {
  std::map<dtype, bytes> by_type;
  for (const auto& t : spec.tensors) by_type[t.type] += bytes_of(t.type, t.numel());
  return std::max_element(by_type.begin(), by_type.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

status reconcile(model_spec& spec, const std::string& config_source,
                 const safetensors_checkpoint& weights) {
  entry_map by_name;
  for (const auto& w : weights.tensors) by_name.emplace(w.entry.name, &w);
  const renaming rename = find_renaming(spec, weights, by_name);
  std::unordered_set<std::string> matched;
  for (auto& t : spec.tensors) {
    const std::string name = rename.apply(t.name);
    const auto it = by_name.find(name);
    if (it == by_name.end())
      return error_at(weights.source, fmt::format("missing tensor \"{}\" {} that {} describes",
                                                  name, format_shape(t.shape), config_source));
    const safetensors_entry& e = it->second->entry;
    if (e.shape != t.shape)
      return error_at(where(weights, it->second),
                      fmt::format("tensor \"{}\" has shape {}, but {} gives {}", name,
                                  format_shape(e.shape), config_source, format_shape(t.shape)));
    t.name = name;
    t.type = e.type;
    matched.insert(name);
  }
  if (auto extras = check_extras(spec, config_source, weights, matched); !extras) return extras;
  spec.type = dominant_dtype(spec);
  recompute_units(spec);
  for (const auto& n : weights.notes) spec.notes.push_back(n);
  return ok();
}

}  // namespace vramscope::model::detail
