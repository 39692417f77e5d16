#pragma once
// How every command prints bad input and importer notes on its error stream.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/cli/run.hpp>
#include <vramscope/core/diagnostic.hpp>
#include <vramscope/predict/prediction.hpp>

namespace vramscope::cli {

/// Prints a diagnostic as "vramscope CMD: <diagnostic>" and returns exit code 2.
int report_bad_input(std::ostream& err, const std::string& command, const diagnostic& d);

/// Prints warnings as "warning: ..." lines.
void print_notes(std::ostream& err, const warnings& notes);

/// How plan, compare and fit print the notes of loading a job.
struct note_options {
  std::vector<std::string> overrides;  // the --set items: an assumption they settle is dropped
  bool verbose = false;                // every note on its own line, with its place
};

/// The notes of loading a job, for people: a note that says what was assumed for a key that
/// --set gives is dropped (the config did not name the model, but --set model= did); notes of
/// one kind (unknown options, options not modelled, "auto" values, assumptions), when there
/// are two or more, become one line with their count and names; the rest print as they are.
/// With `verbose`, every note that is left prints on its own line.
void print_notes(std::ostream& err, const warnings& notes, const note_options& options);

/// The exit code of a verdict: 0 fits, 4 tight (fits inside the safety margin), 1 does not fit.
inline int exit_code_of(predict::fit_state s) {
  switch (s) {
    case predict::fit_state::fits: return static_cast<int>(exit_status::ok);
    case predict::fit_state::tight: return static_cast<int>(exit_status::tight);
    case predict::fit_state::does_not_fit: return static_cast<int>(exit_status::findings);
  }
  return static_cast<int>(exit_status::findings);
}

/// The footer of the commands whose exit code is a verdict (plan, fit).
inline constexpr std::string_view verdict_exit_codes =
    "Exit codes: 0 fits, 4 tight (fits, but with less headroom than the safety margin, "
    "hardware.margin), 1 does not fit, 2 bad input.";

}  // namespace vramscope::cli
