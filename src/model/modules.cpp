// LoRA target resolution. The matching rules are PEFT's (huggingface/peft):
//   src/peft/tuners/tuners_utils.py, check_target_module_exists: a list entry matches a module
//     whose name equals it or ends with "." + entry; a string is re.fullmatch'ed
//     (src/peft/utils/other.py, match_target_against_key);
//   src/peft/tuners/tuners_utils.py, _maybe_include_all_linear_layers: "all-linear" is every
//     nn.Linear / Conv1D minus the model's output embeddings (get_output_embeddings());
//   src/peft/tuners/lora/layer.py, Embedding.update_layer: adapters on nn.Embedding are
//     A (r x num_embeddings) and B (embedding_dim x r).
#include <vramscope/model/modules.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace vramscope::model {

namespace {

struct module_entry {
  std::string name;
  module_kind kind = module_kind::other;
  std::size_t weight = 0;  // index of its weight tensor, for adaptable kinds
};

bool adaptable(module_kind k) { return k != module_kind::other; }

std::string parent_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

std::string last_part(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

const unit* unit_named(const model_spec& m, const std::string& name) {
  for (const auto& u : m.units)
    if (u.name == name) return &u;
  return nullptr;
}

// Every module that owns a tensor, every container above it, and the tied head.
std::vector<module_entry> list_modules(const model_spec& m) {
  std::vector<module_entry> out;
  std::map<std::string, std::size_t> index;
  auto add = [&](const std::string& name) -> module_entry& {
    auto [it, fresh] = index.emplace(name, out.size());
    if (fresh) out.push_back({name, module_kind::other, 0});
    return out[it->second];
  };
  std::size_t tied_weight = m.tensors.size();
  bool has_head = false;
  for (std::size_t i = 0; i < m.tensors.size(); ++i) {
    const auto& t = m.tensors[i];
    for (std::string p = parent_of(parent_of(t.name)); !p.empty(); p = parent_of(p)) add(p);
    module_entry& e = add(parent_of(t.name));
    const module_kind k = kind_of(m, t);
    if (adaptable(k)) {
      e.kind = k;
      e.weight = i;
    }
    has_head = has_head || k == module_kind::head;
    if (k == module_kind::embedding && tied_weight == m.tensors.size()) tied_weight = i;
  }
  // Tied embeddings: the checkpoint has no head weight, but the model still has an lm_head
  // module (a Linear sharing the embedding's weight) that PEFT can target.
  if (m.text.tied_embeddings && !has_head && tied_weight < m.tensors.size())
    out.push_back({"lm_head", module_kind::head, tied_weight});
  return out;
}

bool is_regex(const std::string& target) {
  return target.find_first_of("*+?()[]{}|^$\\") != std::string::npos;
}

bool is_all_linear(const std::string& target) {
  return lower_case(target) == all_linear_targets;
}

bool name_matches(const std::string& module, const std::string& key) {
  if (module == key) return true;
  return module.size() > key.size() && module.ends_with(key) &&
         module[module.size() - key.size() - 1] == '.';
}

// Indices of the modules `target` selects.
result<std::vector<std::size_t>> select(const std::vector<module_entry>& modules,
                                        const std::string& target) {
  std::vector<std::size_t> hits;
  if (is_all_linear(target)) {
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (modules[i].kind == module_kind::linear) hits.push_back(i);
    return hits;
  }
  if (!is_regex(target)) {
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (name_matches(modules[i].name, target)) hits.push_back(i);
    return hits;
  }
  try {
    const std::regex pattern(target, std::regex::ECMAScript);
    for (std::size_t i = 0; i < modules.size(); ++i)
      if (std::regex_match(modules[i].name, pattern)) hits.push_back(i);
  } catch (const std::regex_error& e) {
    return error_at("", fmt::format("\"{}\" is not a valid regular expression ({})", target,
                                    e.what()));
  }
  return hits;
}

// The last names of adaptable modules, in inventory order: what a target list usually holds.
std::vector<std::string> target_names(const std::vector<module_entry>& modules) {
  std::vector<std::string> names;
  for (const auto& e : modules)
    if (adaptable(e.kind) && std::find(names.begin(), names.end(), last_part(e.name)) == names.end())
      names.push_back(last_part(e.name));
  return names;
}

diagnostic no_match(const model_spec& m, const std::vector<module_entry>& modules,
                    const std::string& target) {
  // Candidates: every dotted suffix of an adaptable module ("q_proj", "self_attn.q_proj", ...).
  std::set<std::string> suffixes;
  for (const auto& e : modules) {
    if (!adaptable(e.kind)) continue;
    for (std::string s = e.name;; s = s.substr(s.find('.') + 1)) {
      suffixes.insert(s);
      if (s.find('.') == std::string::npos) break;
    }
  }
  const std::string near = did_you_mean(target, {suffixes.begin(), suffixes.end()});
  const auto names = target_names(modules);
  return error_at("", fmt::format("\"{}\" matches no module of {}{}; LoRA can target {} (or \"{}\")",
                                  target, m.name,
                                  near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near),
                                  fmt::join(names, ", "), all_linear_targets));
}

}  // namespace

module_kind kind_of(const tensor& t, unit_kind unit) {
  if (t.shape.size() != 2 || !t.name.ends_with(".weight")) return module_kind::other;
  // T5's relative_attention_bias is an nn.Embedding inside a block.
  if (t.name.ends_with("relative_attention_bias.weight")) return module_kind::embedding;
  switch (unit) {
    case unit_kind::embedding:
    case unit_kind::vision_embedding: return module_kind::embedding;
    case unit_kind::head: return module_kind::head;
    default: return module_kind::linear;
  }
}

module_kind kind_of(const model_spec& model, const tensor& t) {
  const unit* u = unit_named(model, t.unit);
  return kind_of(t, u == nullptr ? unit_kind::other : u->kind);
}

std::string hf_module_name(const std::string& name) {
  // torchtune: models/convert_weights.py, _FROM_HF (self_attn.o_proj -> attn.output_proj,
  // mlp.gate_proj -> mlp.w1, mlp.up_proj -> mlp.w3, mlp.down_proj -> mlp.w2, lm_head -> output,
  // embed_tokens -> tok_embeddings); torchtitan: models/llama3/model/state_dict_adapter.py,
  // from_hf_map (attention.wq/wk/wv/wo, feed_forward.w1/w3/w2, output, tok_embeddings).
  static const std::map<std::string, std::string, std::less<>> names{
      {"output_proj", "o_proj"}, {"w1", "gate_proj"},   {"w3", "up_proj"},
      {"w2", "down_proj"},       {"output", "lm_head"}, {"tok_embeddings", "embed_tokens"},
      {"wq", "q_proj"},          {"wk", "k_proj"},      {"wv", "v_proj"},
      {"wo", "o_proj"},
  };
  const auto it = names.find(name);
  return it == names.end() ? name : it->second;
}

std::string fused_module_name(const std::string& hf_name) {
  if (hf_name == "q_proj" || hf_name == "k_proj" || hf_name == "v_proj") return "qkv_proj";
  if (hf_name == "gate_proj" || hf_name == "up_proj") return "gate_up_proj";
  return "";
}

result<lora_target_set> lora_targets(const model_spec& model,
                                     const std::vector<std::string>& targets) {
  if (targets.empty()) return error_at("", "expected at least one module name");
  const auto modules = list_modules(model);
  std::vector<bool> chosen(modules.size(), false);
  for (const auto& target : targets) {
    auto hits = select(modules, target);
    if (!hits) return hits.error();
    // A framework's own name of the module, then the fused linear it is a slice of.
    const std::string hf = hf_module_name(target);
    if (hits->empty() && hf != target) hits = select(modules, hf);
    if (const std::string fused = fused_module_name(hf); hits->empty() && !fused.empty())
      hits = select(modules, fused);
    if (hits->empty()) {
      if (is_all_linear(target)) return error_at("", fmt::format("{} has no Linear modules", model.name));
      return no_match(model, modules, target);
    }
    for (auto i : *hits) {
      if (!adaptable(modules[i].kind))
        return error_at("", fmt::format("\"{}\" matches {}, which LoRA cannot adapt (only Linear "
                                        "and Embedding modules; PEFT raises \"Target module ... is "
                                        "not supported\"); name its Linear layers instead",
                                        target, modules[i].name));
      chosen[i] = true;
    }
  }
  lora_target_set out;
  out.adapters.assign(model.tensors.size(), 0);
  for (std::size_t i = 0; i < modules.size(); ++i) {
    if (!chosen[i]) continue;
    ++out.adapters[modules[i].weight];
    out.modules.push_back(modules[i].name);
  }
  return out;
}

}  // namespace vramscope::model
