// vramscope models [--json]: the built-in preset catalog, with each preset's parameter count
// computed from its config (and the published count where they differ).
#include <ostream>

#include <vramscope/model/catalog.hpp>
#include <vramscope/report/model_report.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

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
  std::vector<report::preset_row> rows;
  for (auto& entry : *list) {
    auto spec = model::load_preset(entry.name);
    if (!spec) {
      err << "vramscope models: " << spec.error().to_string() << "\n";
      return static_cast<int>(exit_status::bad_input);
    }
    rows.push_back(report::preset_row{std::move(entry), std::move(*spec)});
  }
  if (as_json)
    report::render_presets_json(out, rows);
  else
    report::render_presets_text(out, rows);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
