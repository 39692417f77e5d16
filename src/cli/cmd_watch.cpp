// vramscope watch: live GPU memory per GPU and per process, with peaks between refreshes,
// alerts, a JSONL log and a Prometheus endpoint. docs/watch.md is the user's guide.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <ostream>

#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/prometheus.hpp>
#include <vramscope/watch/replay_source.hpp>
#include <vramscope/watch/stats_folder.hpp>
#include <vramscope/trace/trace_record.hpp>
#include <vramscope/watch/watch_loop.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace vramscope::cli {

namespace {

struct watch_args {
  std::string interval = "1s";
  std::string sample_interval;
  std::string log;
  std::string prometheus;
  std::string replay;
  std::string source = "auto";
  std::string hostname;
  std::string stats;
  std::uint64_t count = 0;
  bool once = false;
  bool json = false;
};

void add_options(CLI::App& app, watch_args& a) {
  app.add_option("--interval", a.interval,
                 "refresh period of the view, log and metrics (1s, 500ms)");
  app.add_option("--sample-interval", a.sample_interval,
                 "how often GPUs are read between refreshes, to catch short peaks "
                 "(default: a quarter of --interval, 50-250 ms)");
  app.add_option("--log", a.log, "append one JSON line per refresh to this file");
  app.add_option("--prometheus", a.prometheus, "serve /metrics at HOST:PORT, e.g. 127.0.0.1:9400");
  app.add_flag("--once", a.once, "print one sample and exit");
  app.add_flag("--json", a.json, "print JSON lines instead of the table");
  app.add_option("--replay", a.replay, "play back a file written by --log instead of reading GPUs");
  app.add_option("--source", a.source, "where to read GPUs: auto, nvml or smi");
  app.add_option("--count", a.count, "stop after this many refreshes (default: until Ctrl-C)");
  app.add_option("--hostname", a.hostname,
                 "the Hostname label of the metrics (default: this machine's host name)");
  app.add_option("--stats", a.stats,
                 "a folder of per-rank torch.cuda.memory_stats() JSON files to export as metrics");
}

int fail(std::ostream& err, const diagnostic& d, exit_status code) {
  err << "vramscope watch: " << d.to_string() << "\n";
  return static_cast<int>(code);
}

result<std::unique_ptr<watch::gpu_source>> open_source(const watch_args& a) {
  if (!a.replay.empty()) {
    auto r = watch::replay_source::open(a.replay);
    if (!r) return r.error();
    return std::unique_ptr<watch::gpu_source>(std::move(*r));
  }
  const auto kind = watch::parse_source_kind(a.source);
  if (!kind) return error_at("--source", "expected auto, nvml or smi, got \"" + a.source + "\"");
  return watch::open_gpu_source({*kind, {}, {}});
}

// Fills `settings` from the arguments; the durations are the only fields that can be wrong.
status read_settings(const watch_args& a, watch::watch_settings& settings, std::ostream& out) {
  auto interval = watch::parse_duration(a.interval, "--interval");
  if (!interval) return interval.error();
  settings.monitor.interval = *interval;
  if (!a.sample_interval.empty()) {
    auto every = watch::parse_duration(a.sample_interval, "--sample-interval");
    if (!every) return every.error();
    settings.monitor.sample_interval = *every;
  }
  settings.monitor.read_proc = a.replay.empty();
  settings.once = a.once;
  settings.json = a.json;
  settings.count = a.count;
  settings.hostname = a.hostname.empty() ? trace::host_name() : a.hostname;
  settings.stats_dir = a.stats;
  if (!a.stats.empty()) {
    if (a.prometheus.empty())
      return error_at("--stats", "the rank figures are exported as metrics: add --prometheus HOST:PORT");
    if (auto folder = watch::read_stats_folder(a.stats); !folder) return folder.error();
  }
  settings.clear_screen = !a.json && !a.once && &out == &std::cout && ::isatty(STDOUT_FILENO);
  return ok();
}

constexpr std::string_view no_gpu_hint =
    "is the NVIDIA driver installed, and is the GPU visible here (containers need --gpus)? "
    "'vramscope watch --replay FILE' plays back a recorded log\n";

}  // namespace

int cmd_watch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"Live GPU memory per GPU and per process, with peaks and alerts", "watch"};
  watch_args a;
  add_options(app, a);
  int code = 0;
  if (!parse_args(app, args, out, err, code)) return code;

  watch::watch_settings settings;
  if (auto st = read_settings(a, settings, out); !st)
    return fail(err, st.error(), exit_status::bad_input);
  auto source = open_source(a);
  if (!source) {
    const bool bad_input = !a.replay.empty() || source.error().source == "--source";
    const int rc =
        fail(err, source.error(), bad_input ? exit_status::bad_input : exit_status::environment);
    if (!bad_input) err << no_gpu_hint;
    return rc;
  }
  std::ofstream log;
  if (!a.log.empty()) {
    log.open(a.log, std::ios::app);
    if (!log)
      return fail(err, error_at(a.log, "cannot open for appending"), exit_status::bad_input);
  }
  std::unique_ptr<watch::metrics_server> server;
  if (!a.prometheus.empty()) {
    auto where = watch::parse_listen_address(a.prometheus);
    if (!where) return fail(err, where.error(), exit_status::bad_input);
    auto started = watch::metrics_server::start(a.prometheus);
    if (!started) return fail(err, started.error(), exit_status::environment);
    server = std::move(*started);
    err << fmt::format("vramscope watch: serving metrics at http://{}:{}/metrics\n", where->first,
                       server->port());
  }
  auto r =
      watch::run_watch(**source, settings, {log.is_open() ? &log : nullptr, server.get()}, out);
  if (!r) return fail(err, r.error(), exit_status::environment);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
