#pragma once
// How every command prints bad input and importer notes on its error stream.

#include <ostream>
#include <string>

#include <vramscope/core/diagnostic.hpp>

namespace vramscope::cli {

/// Prints a diagnostic as "vramscope CMD: <diagnostic>" and returns exit code 2.
int report_bad_input(std::ostream& err, const std::string& command, const diagnostic& d);

/// Prints warnings as "warning: ..." lines.
void print_notes(std::ostream& err, const warnings& notes);

}  // namespace vramscope::cli
