// The text and JSON of `vramscope inspect`: a model's totals, stacks, units (runs of identical
// units folded into one row) and, when asked, its tensors.
#include <vramscope/report/model_report.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

namespace vramscope::report {

namespace {

using model_json_doc = nlohmann::ordered_json;

std::map<dtype, bytes> bytes_per_dtype(const model::model_spec& spec) {
  std::map<dtype, bytes> out;
  for (const auto& t : spec.tensors) out[t.type] += bytes_of(t.type, t.numel());
  return out;
}

std::string describe_stack(const model::stack_shape& s) {
  std::string text =
      fmt::format("{}: {} layers, hidden {}, {} heads", s.family, s.layers, s.hidden, s.heads);
  if (s.kv_heads != s.heads) text += fmt::format(" ({} kv)", s.kv_heads);
  text += fmt::format(" x {}, MLP {}{}", s.head_dim, s.intermediate, s.gated_mlp ? " gated" : "");
  if (s.experts) text += fmt::format(", {} experts ({} per token)", s.experts, s.experts_per_token);
  if (s.vocab)
    text += fmt::format(", vocabulary {}{}", s.vocab, s.tied_embeddings ? " (tied)" : "");
  if (s.image_tokens) text += fmt::format(", {} patches per image", s.image_tokens);
  return text;
}

// "layers.12" -> ("layers.", 12); names without a trailing index give nullopt.
std::optional<std::pair<std::string, std::uint64_t>> indexed(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size() || name.size() - dot > 10) return {};
  const std::string digits = name.substr(dot + 1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  return std::pair{name.substr(0, dot + 1), std::stoull(digits)};
}

// Units that differ only by their index ("layers.0" .. "layers.31") form a run; pi0 interleaves
// two runs ("layers.N", "action_expert.layers.N"), so runs are looked for with period 1 and 2.
bool continues(const model::unit& a, const model::unit& b) {
  const auto x = indexed(a.name), y = indexed(b.name);
  return x && y && x->first == y->first && y->second == x->second + 1 && a.kind == b.kind &&
         a.parameters == b.parameters && a.size == b.size;
}

// How many times the `period` units from `i` repeat with increasing indices.
std::size_t repeats(const std::vector<model::unit>& units, std::size_t i, std::size_t period) {
  std::size_t m = 1;
  while (i + period * (m + 1) <= units.size()) {
    for (std::size_t k = 0; k < period; ++k)
      if (!continues(units[i + k + period * (m - 1)], units[i + k + period * m])) return m;
    ++m;
  }
  return m;
}

void write_unit_row(const model::unit& first, const model::unit* last, std::size_t count,
                    const char* suffix, std::ostream& out) {
  const std::string name =
      last ? fmt::format("{}..{} ({})", first.name, indexed(last->name)->second, count)
           : first.name;
  out << fmt::format("  {:<40} {:<17} {:>16} {:>12}{}\n", name, model::name_of(first.kind),
                     format_count(first.parameters), format_bytes(first.size), suffix);
}

void write_units(const model::model_spec& spec, std::ostream& out) {
  const auto& units = spec.units;
  out << fmt::format("\nunits ({}, in forward order)\n", units.size());
  out << fmt::format("  {:<40} {:<17} {:>16} {:>12}\n", "name", "kind", "parameters", "size");
  for (std::size_t i = 0; i < units.size();) {
    std::size_t period = 1, m = repeats(units, i, 1);
    if (m == 1 && repeats(units, i, 2) > 1) period = 2, m = repeats(units, i, 2);
    for (std::size_t k = 0; k < period; ++k) {
      if (m == 1)
        write_unit_row(units[i + k], nullptr, 1, "", out);
      else
        write_unit_row(units[i + k], &units[i + k + period * (m - 1)], m,
                       period == 1 ? " each" : " each, interleaved", out);
    }
    i += period * m;
  }
}

void write_tensors(const model::model_spec& spec, std::ostream& out) {
  std::size_t width = 4;
  for (const auto& t : spec.tensors) width = std::max(width, t.name.size());
  out << fmt::format("\ntensors ({})\n", spec.tensors.size());
  out << fmt::format("  {:<{}} {:<22} {:<9} {}\n", "name", width, "shape", "dtype", "unit");
  for (const auto& t : spec.tensors)
    out << fmt::format("  {:<{}} {:<22} {:<9} {}\n", t.name, width, model::format_shape(t.shape),
                       name_of(t.type), t.unit);
}

void write_model_text(const model::model_spec& spec, bool tensors, std::ostream& out) {
  std::vector<std::string> per_dtype;
  for (const auto& [type, size] : bytes_per_dtype(spec))
    per_dtype.push_back(fmt::format("{} {}", name_of(type), format_bytes(size)));
  out << fmt::format("model         {}\n", spec.name);
  out << fmt::format("model_type    {}\n", spec.model_type);
  out << fmt::format("parameters    {}\n", format_count(spec.parameters()));
  out << fmt::format("size          {} ({})\n", format_bytes(spec.size()),
                     fmt::join(per_dtype, ", "));
  out << fmt::format("text stack    {}\n", describe_stack(spec.text));
  if (spec.vision) out << fmt::format("vision stack  {}\n", describe_stack(*spec.vision));
  for (const auto& s : spec.extra) out << fmt::format("extra stack   {}\n", describe_stack(s));
  write_units(spec, out);
  const auto& largest = spec.largest_unit();
  out << fmt::format(
      "\nlargest unit: {}, {} parameters, {} (FSDP and ZeRO-3 gather one unit at "
      "a time)\n",
      largest.name, format_count(largest.parameters), format_bytes(largest.size));
  if (tensors) write_tensors(spec, out);
  for (const auto& n : spec.notes) out << "note: " << n.to_string() << "\n";
}

model_json_doc stack_json(const model::stack_shape& s) {
  return model_json_doc{{"family", s.family},
              {"hidden", s.hidden},
              {"intermediate", s.intermediate},
              {"layers", s.layers},
              {"heads", s.heads},
              {"kv_heads", s.kv_heads},
              {"head_dim", s.head_dim},
              {"vocab", s.vocab},
              {"experts", s.experts},
              {"experts_per_token", s.experts_per_token},
              {"gated_mlp", s.gated_mlp},
              {"tied_embeddings", s.tied_embeddings},
              {"image_tokens", s.image_tokens}};
}

model_json_doc inventory_json_of(const model::model_spec& spec) {
  model_json_doc doc{{"name", spec.name},
           {"model_type", spec.model_type},
           {"dtype", name_of(spec.type)},
           {"parameters", spec.parameters()},
           {"bytes", spec.size()}};
  doc["bytes_per_dtype"] = model_json_doc::object();
  for (const auto& [type, size] : bytes_per_dtype(spec))
    doc["bytes_per_dtype"][name_of(type)] = size;
  const auto& largest = spec.largest_unit();
  doc["largest_unit"] = {
      {"name", largest.name}, {"parameters", largest.parameters}, {"bytes", largest.size}};
  doc["stacks"] = {{"text", stack_json(spec.text)},
                   {"vision", spec.vision ? stack_json(*spec.vision) : model_json_doc(nullptr)},
                   {"extra", model_json_doc::array()}};
  for (const auto& s : spec.extra) doc["stacks"]["extra"].push_back(stack_json(s));
  doc["units"] = model_json_doc::array();
  for (const auto& u : spec.units)
    doc["units"].push_back({{"name", u.name},
                            {"kind", model::name_of(u.kind)},
                            {"parameters", u.parameters},
                            {"bytes", u.size}});
  doc["tensors"] = model_json_doc::array();
  for (const auto& t : spec.tensors)
    doc["tensors"].push_back(
        {{"name", t.name}, {"shape", t.shape}, {"dtype", name_of(t.type)}, {"unit", t.unit}});
  doc["notes"] = model_json_doc::array();
  for (const auto& n : spec.notes) doc["notes"].push_back(n.to_string());
  return doc;
}

}  // namespace

void render_model_text(std::ostream& out, const model::model_spec& spec, bool tensors) {
  write_model_text(spec, tensors, out);
}

nlohmann::ordered_json model_json(const model::model_spec& spec) { return inventory_json_of(spec); }

}  // namespace vramscope::report
