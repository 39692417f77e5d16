#include "cli/commands.hpp"

#include <vramscope/cli/run.hpp>

#include <fmt/format.h>

#include <array>
#include <exception>
#include <ostream>

namespace vramscope::cli {

namespace {

constexpr std::string_view version = "0.1.0";

const std::array command_table{
    command{"plan", "plan (JOB.yaml | --from CONFIG) [--json] [--timeline FILE.csv] [--rank N] [--set key=value ...]",
            "predict per-rank and per-GPU memory of a training job", &cmd_plan},
    command{"compare", "compare (JOB.yaml | --from CONFIG) --vary key=v1,v2 [--vary ...] [--json]",
            "what-if table over job fields, with deltas", &cmd_compare},
    command{"fit", "fit (JOB.yaml | --from CONFIG) [--maximize KEY] [--try KEY=a,b|1..64|pow2:1..128 ...] [--json]",
            "the largest micro-batch (or KEY) that fits, or which combinations fit", &cmd_fit},
    command{"explain",
            "explain [JOB.yaml] [--smi FILE] [--stats FILE ...] [--oom FILE] [--snapshot FILE] [--json] [--rules]",
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
};

void print_help(std::ostream& out) {
  out << "vramscope " << version
      << " — predict, measure and explain the GPU memory of distributed training jobs\n\n"
      << "usage: vramscope COMMAND [ARGS...]\n\ncommands:\n";
  for (const auto& c : command_table) out << fmt::format("  {:<10} {}\n", c.name, c.summary);
  out << "\nrun 'vramscope help COMMAND' or 'vramscope COMMAND --help' for a command's options\n"
      << "exit codes: 0 ok, 1 does not fit / error finding, 2 bad input, 3 environment\n";
}

const command* find_command(std::string_view name) {
  for (const auto& c : command_table)
    if (c.name == name) return &c;
  return nullptr;
}

int unknown_command(std::string_view name, std::ostream& err) {
  err << "vramscope: unknown command '" << name << "'\n"
      << "run 'vramscope help' for the list of commands\n";
  return static_cast<int>(exit_status::bad_input);
}

int dispatch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
      (args[0] == "help" && args.size() == 1)) {
    print_help(out);
    return static_cast<int>(exit_status::ok);
  }
  if (args[0] == "--version" || args[0] == "version") {
    out << "vramscope " << version << "\n";
    return static_cast<int>(exit_status::ok);
  }
  if (args[0] == "help") {
    const command* c = find_command(args[1]);
    if (!c) return unknown_command(args[1], err);
    return c->run({"--help"}, out, err);
  }
  const command* c = find_command(args[0]);
  if (!c) return unknown_command(args[0], err);
  return c->run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
}

}  // namespace

std::span<const command> commands() { return command_table; }

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return dispatch(args, out, err);
  } catch (const std::exception& e) {
    err << "vramscope: internal error: " << e.what() << "\n";
    return static_cast<int>(exit_status::environment);
  }
}

}  // namespace vramscope::cli
