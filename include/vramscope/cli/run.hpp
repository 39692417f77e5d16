#pragma once
// The command-line front end as a library: `run` parses arguments, dispatches to a subcommand
// and writes everything to the given streams, so tests drive it in process.

#include <iosfwd>
#include <string>
#include <vector>

namespace vramscope::cli {

/// Process exit codes, as docs/design.md ("Commands") lists them.
enum class exit_status : int {
  ok = 0,            // success
  findings = 1,      // the job does not fit, or explain found an error-severity finding
  bad_input = 2,     // a file, field or argument is wrong; the message names it
  environment = 3,   // no NVML, no GPU, or an internal error
  tight = 4,         // the job fits, but inside the safety margin (plan, fit)
};

/// Runs `vramscope <args...>` (args exclude the program name). Never throws: exceptions
/// become a message on `err` and exit_status::environment.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vramscope::cli
