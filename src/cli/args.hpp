#pragma once
// CLI11 glue shared by the subcommands: one parse step that gives every command the same
// usage line, the same error prefix and did-you-mean for mistyped options, and that lets the
// man page and completion generators read a command's options without running it.

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <vramscope/cli/run.hpp>
#include <vramscope/import/importers.hpp>

namespace vramscope::cli {

/// Parses `args` into `app` (named after its command). Returns true when the command should go
/// on; otherwise `code` holds the exit code: 0 after --help (help on `out`), 2 after a usage
/// error, with "vramscope CMD: ..." and a pointer to the help on `err`. Unknown options get
/// the closest known one as a suggestion. While a describe_commands() visitor is active it
/// hands `app` to the visitor instead, parses nothing and returns false.
/// The help of --from, which plan, compare and fit share: the formats the importers read.
inline constexpr const char* from_option_help = job::import_formats_help;

bool parse_args(CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, int& code);

/// Calls `visit` with the configured CLI::App of every command that parses through
/// parse_args, in table order, by running each command in describe mode: it returns before
/// reading any input. The app lives only during the call. Not thread-safe across threads that
/// describe at the same time (the visitor is per thread, so plain parsing elsewhere is fine).
void describe_commands(const std::function<void(const CLI::App&)>& visit);

}  // namespace vramscope::cli
