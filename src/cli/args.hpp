#pragma once
// CLI11 glue shared by the subcommands.

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

#include <vramscope/cli/run.hpp>

namespace vramscope::cli {

/// Parses `args` into `app`. Returns true when the command should go on; otherwise `code`
/// holds the exit code (0 after --help, 2 after a usage error, with the message on `err`).
inline bool parse_args(CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err, int& code) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
    return true;
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    code = static_cast<int>(exit_status::ok);
  } catch (const CLI::ParseError& e) {
    err << "vramscope " << app.get_name() << ": " << e.what() << "\n"
        << "run 'vramscope help " << app.get_name() << "' for usage\n";
    code = static_cast<int>(exit_status::bad_input);
  }
  return false;
}

}  // namespace vramscope::cli
