// The listings of `vramscope models` (the preset catalog) and `vramscope keys` (the job-spec
// keys), as text and JSON.
#include <vramscope/report/model_report.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace vramscope::report {

void render_presets_text(std::ostream& out, const std::vector<preset_row>& rows) {
  // The name column is as wide as the longest name (stablelm-base-alpha-3b), at least 16.
  std::size_t width = 16;
  for (const auto& r : rows) width = std::max(width, r.entry.name.size());
  out << fmt::format("{:<{}} {:>16} {:>11} {:<6} {}\n", "preset", width, "parameters", "size",
                     "dtype", "description");
  for (const auto& r : rows) {
    std::string count = format_count(r.spec.parameters());
    if (r.spec.parameters() != r.entry.published_parameters)
      count += fmt::format(" (published {})", format_count(r.entry.published_parameters));
    out << fmt::format("{:<{}} {:>16} {:>11} {:<6} {}\n", r.entry.name, width, count,
                       format_bytes(r.spec.size()), name_of(r.spec.type), r.entry.description);
  }
  out << "\nrun 'vramscope inspect PRESET' for a preset's units and tensors\n";
}

void render_presets_json(std::ostream& out, const std::vector<preset_row>& rows) {
  nlohmann::ordered_json doc{{"presets", nlohmann::ordered_json::array()}};
  for (const auto& r : rows)
    doc["presets"].push_back({{"name", r.entry.name},
                              {"hf_id", r.entry.hf_id},
                              {"hf_aliases", r.entry.hf_aliases},
                              {"model_type", r.spec.model_type},
                              {"dtype", name_of(r.spec.type)},
                              {"parameters", r.spec.parameters()},
                              {"published_parameters", r.entry.published_parameters},
                              {"parameters_source", r.entry.parameters_source},
                              {"bytes", r.spec.size()},
                              {"description", r.entry.description}});
  out << doc.dump(2) << "\n";
}

void render_keys_text(std::ostream& out, const std::vector<job::key_doc>& keys) {
  out << fmt::format("{:<34} {:<22} {}\n", "key", "default", "allowed values");
  for (const auto& k : keys)
    out << fmt::format("{:<34} {:<22} {}\n", k.path, k.default_value.empty() ? "-" : k.default_value,
                       k.allowed);
  out << "\nset one with --set KEY=VALUE, or as `section: {key: value}` in the job YAML;\n"
      << "environment variables are env.NAME (e.g. --set env.PYTORCH_CUDA_ALLOC_CONF=...)\n";
}

void render_keys_json(std::ostream& out, const std::vector<job::key_doc>& keys) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const auto& k : keys)
    doc.push_back({{"key", k.path},
                   {"default", k.default_value},
                   {"allowed", k.allowed},
                   {"values", k.values}});
  out << doc.dump(2) << "\n";
}

}  // namespace vramscope::report
