#pragma once
// The reference listings: `vramscope inspect` (one model's totals, stacks, units and tensors),
// `vramscope models` (the preset catalog) and `vramscope keys` (the job-spec keys), each as text
// and JSON. JSON figures are integers (parameters, bytes).

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include <vramscope/job/keys.hpp>
#include <vramscope/model/catalog.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::report {

/// inspect: totals and bytes per dtype, the stacks, the units in forward order (runs of units
/// that differ only by their index folded into one row), the largest unit, and with `tensors`
/// every tensor with its shape, dtype and unit.
void render_model_text(std::ostream& out, const model::model_spec& spec, bool tensors);
/// inspect --json: the same, units and tensors always included.
nlohmann::ordered_json model_json(const model::model_spec& spec);

/// models: one row per preset, its computed parameter count (and the published one where they
/// differ), size, dtype and description.
struct preset_row {
  model::preset entry;
  model::model_spec spec;
};
void render_presets_text(std::ostream& out, const std::vector<preset_row>& rows);
void render_presets_json(std::ostream& out, const std::vector<preset_row>& rows);

/// keys: each key with its default and allowed values.
void render_keys_text(std::ostream& out, const std::vector<job::key_doc>& keys);
void render_keys_json(std::ostream& out, const std::vector<job::key_doc>& keys);

}  // namespace vramscope::report
