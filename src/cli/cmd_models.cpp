// vramscope models [--json]: the built-in preset catalog, with each preset's parameter count
// computed from its config (and the published count where they differ).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

#include <vramscope/model/catalog.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

namespace {

struct row {
  model::preset entry;
  model::model_spec spec;
};

void write_text(const std::vector<row>& rows, std::ostream& out) {
  out << fmt::format("{:<16} {:>16} {:>11} {:<6} {}\n", "preset", "parameters", "size", "dtype",
                     "description");
  for (const auto& r : rows) {
    std::string count = format_count(r.spec.parameters());
    if (r.spec.parameters() != r.entry.published_parameters)
      count += fmt::format(" (published {})", format_count(r.entry.published_parameters));
    out << fmt::format("{:<16} {:>16} {:>11} {:<6} {}\n", r.entry.name, count,
                       format_bytes(r.spec.size()), name_of(r.spec.type), r.entry.description);
  }
  out << "\nrun 'vramscope inspect PRESET' for a preset's units and tensors\n";
}

void write_json(const std::vector<row>& rows, std::ostream& out) {
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

}  // namespace

int cmd_models(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"The built-in preset catalog", "models"};
  bool as_json = false;
  app.add_flag("--json", as_json, "print JSON");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;
  auto list = model::presets();
  if (!list) {
    err << "vramscope models: " << list.error().to_string() << "\n";
    return static_cast<int>(exit_status::bad_input);
  }
  std::vector<row> rows;
  for (auto& entry : *list) {
    auto spec = model::load_preset(entry.name);
    if (!spec) {
      err << "vramscope models: " << spec.error().to_string() << "\n";
      return static_cast<int>(exit_status::bad_input);
    }
    rows.push_back(row{std::move(entry), std::move(*spec)});
  }
  if (as_json)
    write_json(rows, out);
  else
    write_text(rows, out);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
