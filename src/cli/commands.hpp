#pragma once
// The subcommand table. Each command lives in its own cmd_<name>.cpp.

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vramscope::cli {

using command_fn = int (*)(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err);

struct command {
  std::string_view name;
  std::string_view usage;    // "plan JOB.yaml [--json] ..."
  std::string_view summary;  // one line for `vramscope help`
  command_fn run;
};

/// Every subcommand, in the order `vramscope help` lists them.
std::span<const command> commands();

int cmd_inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_plan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_fit(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_explain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_snapshot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_watch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_trace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_models(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vramscope::cli
