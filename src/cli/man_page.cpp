// vramscope(1), rendered from the command table, each command's CLI11 options and the job
// field table. The build runs `vramscope --man` to write it; nothing here is hand-kept.
#include <vramscope/job/gpu_catalog.hpp>
#include <vramscope/job/keys.hpp>

#include <fmt/format.h>

#include <ostream>

#include "cli/command_docs.hpp"

namespace vramscope::cli {

namespace {

// Text safe inside a roff line: backslashes doubled, hyphens as \-, and a leading '.' or '\''
// guarded so it is not read as a request (groff(7), "Control characters").
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(sep)) + i;
  return out;
}

void write_header(std::ostream& out) {
  out << fmt::format(".TH VRAMSCOPE 1 \"\" \"vramscope {}\" \"User Commands\"\n", version())
      << ".SH NAME\nvramscope \\- " << roff(tagline) << "\n"
      << ".SH SYNOPSIS\n.B vramscope\n.I COMMAND\n.RI [ ARGS ...]\n.br\n"
      << ".B vramscope\n.RB [ \\-h | \\-\\-help | \\-V | \\-\\-version ]\n"
      << ".SH DESCRIPTION\n"
      << "vramscope predicts the per-rank and per-GPU memory of a distributed training job "
         "from its job spec (YAML) or framework config, and explains what a running job shows "
         "from nvidia\\-smi output, torch memory statistics, snapshots and OOM messages.\n"
      << ".PP\nRun\n.B vramscope help\n.I COMMAND\nor\n.B vramscope\n.I COMMAND\n.B \\-\\-help\n"
      << "for a command's options; the same text is given below.\n";
}

void write_option(std::ostream& out, const option_doc& o) {
  out << ".TP\n";
  if (o.names.empty()) {
    out << ".I " << roff(o.positional) << "\n";
  } else {
    out << ".B " << roff(joined(o.names, ", ")) << (o.takes_value ? " \\fIVALUE\\fR" : "") << "\n";
  }
  out << roff(o.description) << "\n";
}

void write_commands(std::ostream& out) {
  out << ".SH COMMANDS\n";
  for (const auto& d : command_docs()) {
    out << ".SS " << roff(d.row->name) << "\n"
        << ".B vramscope " << roff(d.row->usage) << "\n.PP\n"
        << roff(d.description.empty() ? d.row->summary : d.description) << ".\n";
    for (const auto& o : d.options) write_option(out, o);
    if (!d.footer.empty()) out << ".PP\n" << roff(d.footer) << "\n";
  }
}

void write_keys(std::ostream& out) {
  out << ".SH JOB KEYS\n"
      << "Every key of the job spec, as a dotted path that \\-\\-set takes "
         "(\\fB\\-\\-set parallel.tp=4\\fR) and that names a YAML section and key. "
         "Environment variables are set as \\fBenv.\\fINAME\\fR. "
         "\\fBvramscope keys\\fR prints this list.\n";
  for (const auto& k : job::key_docs()) {
    out << ".TP\n.B " << roff(k.path) << "\n" << roff(k.allowed) << ".";
    if (!k.default_value.empty()) out << " Default: " << roff(k.default_value) << ".";
    out << "\n";
  }
  out << ".PP\nKnown GPUs for \\fBhardware.gpu\\fR: " << roff(joined(job::gpu_names(), ", "))
      << ".\n";
}

void write_footer(std::ostream& out) {
  out << ".SH EXIT STATUS\n";
  for (const auto& e : exit_codes)
    out << ".TP\n.B " << e.code << "\n" << roff(e.meaning) << "\n";
  out << ".SH ENVIRONMENT\n.TP\n.B VRAMSCOPE_DATA_DIR\n"
      << "A folder whose models/ subfolder is read before the built\\-in preset catalog.\n"
      << ".SH SEE ALSO\n.BR nvidia\\-smi (1)\n";
}

}  // namespace

void write_man_page(std::ostream& out) {
  write_header(out);
  write_commands(out);
  write_keys(out);
  write_footer(out);
}

}  // namespace vramscope::cli
