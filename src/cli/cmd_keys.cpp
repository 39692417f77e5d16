// vramscope keys [--json] [PREFIX]: every key of the job spec that YAML and --set take, with
// what it accepts and its default, read from the job module's field table.
#include <vramscope/job/keys.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

namespace {

void write_text(const std::vector<job::key_doc>& keys, std::ostream& out) {
  out << fmt::format("{:<34} {:<22} {}\n", "key", "default", "allowed values");
  for (const auto& k : keys)
    out << fmt::format("{:<34} {:<22} {}\n", k.path, k.default_value.empty() ? "-" : k.default_value,
                       k.allowed);
  out << "\nset one with --set KEY=VALUE, or as `section: {key: value}` in the job YAML;\n"
      << "environment variables are env.NAME (e.g. --set env.PYTORCH_CUDA_ALLOC_CONF=...)\n";
}

void write_json(const std::vector<job::key_doc>& keys, std::ostream& out) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::array();
  for (const auto& k : keys)
    doc.push_back({{"key", k.path},
                   {"default", k.default_value},
                   {"allowed", k.allowed},
                   {"values", k.values}});
  out << doc.dump(2) << "\n";
}

}  // namespace

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
    write_json(keys, out);
  else
    write_text(keys, out);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
