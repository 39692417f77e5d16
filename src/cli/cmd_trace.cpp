// vramscope trace [--out DIR] -- COMMAND ...: runs COMMAND with the CUPTI injection library,
// waits, prints the peaks per GPU and per process, and exits with COMMAND's exit code.
// docs/trace.md is the user's guide.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <ostream>

#include <vramscope/watch/sampler.hpp>
#include <vramscope/trace/trace_launcher.hpp>
#include <vramscope/trace/trace_reader.hpp>
#include <vramscope/report/trace_report.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

namespace {

// Options before the command; those that take a value, so their value is not the command.
constexpr std::string_view valued_options[] = {"--out", "--fallback-interval"};

// Splits "[OPTIONS] [--] COMMAND ..." into our options and the command: at "--" when given,
// else at the first word that is neither an option nor an option's value.
std::pair<std::vector<std::string>, std::vector<std::string>> split_command(
    const std::vector<std::string>& args) {
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "--")
      return {{args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i)},
              {args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end()}};
    if (args[i].empty() || args[i][0] != '-') break;
    const bool takes_value = std::find(std::begin(valued_options), std::end(valued_options),
                                       args[i]) != std::end(valued_options);
    if (takes_value) ++i;
  }
  const auto at = args.begin() + static_cast<std::ptrdiff_t>(std::min(i, args.size()));
  return {{args.begin(), at}, {at, args.end()}};
}

int fail(std::ostream& err, const std::string& message, exit_status code) {
  err << "vramscope trace: " << message << "\n";
  return static_cast<int>(code);
}

}  // namespace

int cmd_trace(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Run a command and record every GPU allocation of its processes (CUPTI)", "trace"};
  trace::trace_options options;
  std::string fallback_interval = "100ms";
  bool as_json = false;
  app.add_option("--out", options.out_dir, "folder for the per-process trace files");
  app.add_option("--fallback-interval", fallback_interval,
                 "NVML sampling period for processes CUPTI cannot trace");
  app.add_flag("--json", as_json, "print the summary as JSON on stdout");
  auto [own, command] = split_command(args);
  int code = 0;
  if (!parse_args(app, own, out, err, code)) return code;
  if (command.empty())
    return fail(err, "no command to run: vramscope trace [--out DIR] -- COMMAND [ARGS...]",
                exit_status::bad_input);
  auto interval = watch::parse_duration(fallback_interval, "--fallback-interval");
  if (!interval || interval->count() <= 0)
    return fail(
        err, interval ? "--fallback-interval: must be more than 0" : interval.error().to_string(),
        exit_status::bad_input);
  options.fallback_interval = *interval;
  options.library = trace::find_trace_library();
  if (options.library.empty())
    return fail(err,
                "this vramscope was built without CUDA's CUPTI, so it cannot trace allocations; "
                "rebuild where the CUDA toolkit is installed, or follow the job with "
                "'vramscope watch --log FILE'",
                exit_status::environment);
  auto run = trace::run_traced(command, options, err);
  if (!run) return fail(err, run.error().message, exit_status::bad_input);
  if (run->stop_signal != 0)
    err << fmt::format("vramscope trace: stopped by {}{}; what was recorded until then follows\n",
                       run->stop_signal == SIGINT    ? "SIGINT"
                       : run->stop_signal == SIGTERM ? "SIGTERM"
                                                     : "SIGHUP",
                       run->killed ? " (the command was killed after the grace period)" : "");
  if (!run->fallback_problem.empty())
    err << "vramscope trace: some processes were neither traced nor sampled: "
        << run->fallback_problem << "\n";
  auto summary = trace::read_trace_folder(options.out_dir);
  if (!summary) return fail(err, summary.error().to_string(), exit_status::environment);
  if (summary->files == 0)
    err << "vramscope trace: no trace file: the command never initialised CUDA, or the driver did "
           "not load "
        << options.library << "\n";
  err << report::render_trace_text(*summary, options.out_dir);
  if (as_json) {
    auto j = report::trace_json(*summary);
    j["exit_code"] = run->exit_code;
    out << j.dump(2) << "\n";
  }
  return run->exit_code;
}

}  // namespace vramscope::cli
