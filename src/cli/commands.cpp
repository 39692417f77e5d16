#include "cli/commands.hpp"

#include <vramscope/cli/run.hpp>
#include <vramscope/core/diagnostic.hpp>

#include <fmt/format.h>

#include <array>
#include <exception>
#include <ostream>

#include "cli/command_docs.hpp"

namespace vramscope::cli {

namespace {

const std::array command_table{
    command{"plan", "plan (JOB.yaml | --from CONFIG) [--json] [--timeline FILE.csv] [--rank N] [--set key=value ...]",
            "predict per-rank and per-GPU memory of a training job", &cmd_plan},
    command{"compare", "compare (JOB.yaml | --from CONFIG) --vary key=v1,v2 [--vary ...] [--json]",
            "what-if table over job fields, with deltas", &cmd_compare},
    command{"fit", "fit (JOB.yaml | --from CONFIG) [--maximize KEY] [--try KEY=a,b|1..64|pow2:1..128 ...] [--json]",
            "the largest micro-batch (or KEY) that fits, or which combinations fit", &cmd_fit},
    command{"explain",
            "explain [JOB.yaml | --from CONFIG] [--smi FILE] [--stats FILE ...] [--oom FILE] [--snapshot FILE] [--recorded DIR] [--json] [--rules]",
            "why a GPU shows what it shows: evidence, cause, fix and its saving", &cmd_explain},
    command{"snapshot", "snapshot FILE.pickle [--json] [--top N]",
            "peak, live allocations and fragmentation of a PyTorch memory snapshot", &cmd_snapshot},
    command{"watch",
            "watch [--interval 1s] [--log FILE.jsonl] [--prometheus ADDR:PORT] [--once] [--json] [--replay FILE]",
            "live GPU memory per GPU and process, with peaks and alerts", &cmd_watch},
    command{"trace", "trace [--out DIR] -- COMMAND ...",
            "record every GPU allocation of a command's processes (CUPTI)", &cmd_trace},
    command{"inspect", "inspect MODEL [--json] [--tensors]",
            "tensor inventory, parameter totals and units of a model", &cmd_inspect},
    command{"models", "models [--json]", "the built-in preset catalog", &cmd_models},
    command{"keys", "keys [PREFIX] [--json]",
            "every job-spec key for --set, with its default and allowed values", &cmd_keys},
};

constexpr int bad_input = static_cast<int>(exit_status::bad_input);
constexpr int exit_ok = static_cast<int>(exit_status::ok);

void print_usage(std::ostream& out) {
  out << "Usage: vramscope COMMAND [ARGS...]\n"
      << "       vramscope (-h | --help | -V | --version)\n";
}

void print_help(std::ostream& out) {
  out << "vramscope " << version() << " — " << tagline << "\n\n";
  print_usage(out);
  out << "\nCommands:\n";
  for (const auto& c : command_table) out << fmt::format("  {:<10} {}\n", c.name, c.summary);
  out << "\nRun 'vramscope help COMMAND' or 'vramscope COMMAND --help' for a command's options,\n"
      << "and 'vramscope keys' for the job keys --set takes.\n\nExit codes:\n";
  for (const auto& e : exit_codes) out << fmt::format("  {}  {}\n", e.code, e.meaning);
}

std::vector<std::string> command_names() {
  std::vector<std::string> names{"help"};
  for (const auto& c : command_table) names.emplace_back(c.name);
  return names;
}

int unknown_command(const std::string& name, std::ostream& err) {
  const bool option = name.starts_with("-");
  const std::string near =
      did_you_mean(name, option ? std::vector<std::string>{"--help", "--version"} : command_names());
  err << fmt::format("vramscope: unknown {} '{}'{}\n", option ? "option" : "command", name,
                     near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near))
      << "run 'vramscope help' for the list of commands\n";
  return bad_input;
}

// Hidden generators the build runs to write the man page and the completion scripts.
int generate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args[0] == "--man") {
    write_man_page(out);
    return exit_ok;
  }
  if (args.size() == 2 && write_completion(out, args[1])) return exit_ok;
  err << "vramscope: --completion takes bash or zsh\n";
  return bad_input;
}

int help(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.size() == 1) {
    print_help(out);
    return exit_ok;
  }
  const command* c = find_command(args[1]);
  if (!c) return unknown_command(args[1], err);
  return c->run({"--help"}, out, err);
}

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    print_usage(err);
    err << "run 'vramscope help' for the list of commands\n";
    return bad_input;
  }
  const std::string& first = args[0];
  if (first == "--help" || first == "-h") return help({"help"}, out, err);
  if (first == "help") return help(args, out, err);
  if (first == "--version" || first == "-V" || first == "version") {
    out << "vramscope " << version() << "\n";
    return exit_ok;
  }
  if (first == "--man" || first == "--completion") return generate(args, out, err);
  const command* c = find_command(first);
  if (!c) return unknown_command(first, err);
  return c->run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
}

}  // namespace

std::span<const command> commands() { return command_table; }

const command* find_command(std::string_view name) {
  for (const auto& c : command_table)
    if (c.name == name) return &c;
  return nullptr;
}

std::string_view version() { return VRAMSCOPE_VERSION; }

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return dispatch(args, out, err);
  } catch (const std::exception& e) {
    err << "vramscope: internal error: " << e.what() << "\n";
    return static_cast<int>(exit_status::environment);
  }
}

}  // namespace vramscope::cli
