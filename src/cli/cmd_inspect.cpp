// vramscope inspect MODEL [--json] [--tensors]: the tensor inventory of a model, its totals
// and its units (the pieces FSDP and ZeRO-3 gather one at a time).
#include <ostream>

#include <vramscope/model/model_spec.hpp>
#include <vramscope/report/model_report.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

int cmd_inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Tensor inventory, parameter totals and units of a model", "inspect"};
  std::string name;
  bool as_json = false;
  bool tensors = false;
  app.add_option("MODEL", name,
                 "preset name (see 'vramscope models'), config.json, .safetensors file, "
                 "safetensors index, or a model folder")
      ->required();
  app.add_flag("--json", as_json, "print JSON (units and tensors included)");
  app.add_flag("--tensors", tensors, "list every tensor with its shape, dtype and unit");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;
  auto spec = model::load_model(name);
  if (!spec) {
    err << "vramscope inspect: " << spec.error().to_string() << "\n";
    return static_cast<int>(exit_status::bad_input);
  }
  if (as_json)
    out << report::model_json(*spec).dump(2) << "\n";
  else
    report::render_model_text(out, *spec, tensors);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
