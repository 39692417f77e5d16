#pragma once
// What the man page and the shell completions say about each command, read from the command
// table and from the CLI11 options each command declares (through describe_commands), so they
// cannot drift from --help. Also the generators themselves.

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace vramscope::cli {

struct option_doc {
  std::vector<std::string> names;  // "--json", "-n"; empty for a positional argument
  std::string positional;          // the positional's name ("job", "MODEL"); "" for options
  std::string description;
  bool takes_value = false;        // false for flags
};

struct command_doc {
  const command* row = nullptr;  // the table row; never null once built
  std::string description;       // the CLI11 app's description (a sentence)
  std::string footer;            // extra help text, as --help prints it
  std::vector<option_doc> options;  // in declaration order, --help excluded
};

/// One entry per table row, in table order. Rows whose command does not parse through
/// parse_args get their usage and summary only.
std::vector<command_doc> command_docs();

/// The vramscope(1) man page in roff (man(7) macros).
void write_man_page(std::ostream& out);

/// A completion script for `shell` ("bash" or "zsh"). False for any other shell.
bool write_completion(std::ostream& out, const std::string& shell);

}  // namespace vramscope::cli
