#include <vramscope/job/keys.hpp>

#include <vramscope/job/gpu_catalog.hpp>
#include <vramscope/model/catalog.hpp>

#include "job/field_table.hpp"

namespace vramscope::job {

namespace {

// A JSON value as the right side of --set would write it: strings bare, lists comma-joined.
std::string as_set_text(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return v.dump();
  std::string out;
  for (const auto& item : v) out += (out.empty() ? "" : ",") + as_set_text(item);
  return out;
}

// Open keys whose common values the program knows by name.
std::vector<std::string> known_values(const std::string& path) {
  std::vector<std::string> names;
  if (path == "hardware.gpu") return gpu_names();
  if (path != "model") return names;
  if (auto list = model::presets())
    for (const auto& p : *list) names.push_back(p.name);
  return names;
}

}  // namespace

std::vector<key_doc> key_docs() {
  const job_spec defaults;
  std::vector<key_doc> docs;
  for (const auto& f : detail::fields()) {
    key_doc d{f.path, f.allowed, f.written ? as_set_text(f.get(defaults)) : "", f.choices};
    // Zero in these means "not given": resolve_job fills them from the GPU catalog.
    if (f.path == "hardware.gpu_memory" || f.path == "hardware.compute_capability")
      d.default_value = "from hardware.gpu";
    if (d.values.empty()) d.values = known_values(f.path);
    if (f.path == "model")
      d.allowed =
          "a preset name (vramscope models), a config.json path, or a map of config.json keys";
    if (f.path == "hardware.gpu") d.allowed = "a GPU of the catalog (vramscope keys --json lists them)";
    docs.push_back(std::move(d));
  }
  return docs;
}

}  // namespace vramscope::job
