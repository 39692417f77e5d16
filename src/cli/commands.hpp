#pragma once
// The subcommand table. Each command lives in its own cmd_<name>.cpp. `vramscope help`, the
// man page and the shell completions are all generated from this table and from the CLI11
// options each command declares (see command_docs.hpp), so a new row shows up everywhere.

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

/// The row named `name`; nullptr when there is none.
const command* find_command(std::string_view name);

/// "0.1.0", the CMake project version.
std::string_view version();

/// The one-line description of the program: help header, man page NAME, package summary.
inline constexpr std::string_view tagline =
    "predict, measure and explain the GPU memory of distributed training jobs";

/// What each exit code means, for `vramscope help` and the man page (docs/design.md, Commands).
struct exit_code_doc {
  int code;
  std::string_view meaning;
};
inline constexpr exit_code_doc exit_codes[] = {
    {0, "success"},
    {1, "the job does not fit (plan, fit), or explain found an error-severity finding"},
    {2, "bad input: a file, field or argument is wrong; the message names it"},
    {3, "environment problem (no NVML, no GPU) or an internal error"},
    {4, "the job fits, but inside the safety margin (plan, fit: \"tight\")"},
};

int cmd_inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_plan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_fit(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_explain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_snapshot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_watch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_trace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_models(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_keys(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vramscope::cli
