// vramscope keys [--json] [PREFIX]: every key of the job spec that YAML and --set take, with
// what it accepts and its default, read from the job module's field table.
#include <vramscope/job/keys.hpp>
#include <vramscope/report/model_report.hpp>

#include <ostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

int cmd_keys(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Every job-spec key --set takes, with its default and allowed values", "keys"};
  bool as_json = false;
  std::string prefix;
  app.add_option("PREFIX", prefix, "list only keys that start with this, e.g. parallel");
  app.add_flag("--json", as_json, "print JSON");
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;
  std::vector<job::key_doc> keys;
  for (auto& k : job::key_docs())
    if (k.path.starts_with(prefix)) keys.push_back(std::move(k));
  if (keys.empty()) {
    err << "vramscope keys: no key starts with \"" << prefix << "\"\n";
    return static_cast<int>(exit_status::bad_input);
  }
  if (as_json)
    report::render_keys_json(out, keys);
  else
    report::render_keys_text(out, keys);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
