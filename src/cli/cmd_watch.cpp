// vramscope watch: live GPU memory per GPU and per process, with peaks between refreshes,
// alerts, a JSONL log and a Prometheus endpoint. docs/watch.md is the user's guide. On a
// terminal it is a full screen (report::watch_screen drawn by terminal_screen); elsewhere, and
// with --plain, a text block per refresh; with --json, JSON lines.
#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <ostream>

#include <vramscope/core/io.hpp>
#include <vramscope/report/watch_report.hpp>
#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/prometheus.hpp>
#include <vramscope/watch/replay_source.hpp>
#include <vramscope/watch/stats_folder.hpp>
#include <vramscope/trace/trace_record.hpp>
#include <vramscope/watch/watch_loop.hpp>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/terminal_screen.hpp"

namespace vramscope::cli {

namespace {

struct watch_args {
  std::string interval = "1s";
  std::string sample_interval;
  std::string log;
  std::string prometheus;
  std::string web_config;
  std::string replay;
  std::string source = "auto";
  std::string hostname;
  std::string stats;
  std::uint64_t count = 0;
  bool once = false;
  bool json = false;
  bool plain = false;
};

void add_options(CLI::App& app, watch_args& a) {
  app.add_option("--interval", a.interval,
                 "refresh period of the view, log and metrics (1s, 500ms)");
  app.add_option("--sample-interval", a.sample_interval,
                 "how often GPUs are read between refreshes, to catch short peaks "
                 "(default: a quarter of --interval, 50-250 ms)");
  app.add_option("--log", a.log, "append one JSON line per refresh to this file");
  app.add_option("--prometheus", a.prometheus,
                 "serve /metrics at HOST:PORT, e.g. 127.0.0.1:9400 (:9400 or 0.0.0.0:9400 is "
                 "every interface: anyone who can reach this machine reads the metrics, which name "
                 "its processes and users' command lines; see --web-config)");
  app.add_option("--web-config", a.web_config,
                 "TLS and basic authentication for --prometheus: a Prometheus exporter web "
                 "configuration file (tls_server_config, basic_auth_users; docs/watch.md)");
  app.add_flag("--once", a.once, "print one sample and exit");
  app.add_flag("--json", a.json, "print JSON lines instead of the table");
  app.add_flag("--plain", a.plain,
               "print a text block per refresh even on a terminal (default there: a full screen; "
               "keys q quit, s sort, p processes)");
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
status read_settings(const watch_args& a, watch::watch_settings& settings) {
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
  settings.count = a.count;
  settings.hostname = a.hostname.empty() ? trace::host_name() : a.hostname;
  settings.stats_dir = a.stats;
  if (!a.stats.empty()) {
    if (a.prometheus.empty())
      return error_at("--stats", "the rank figures are exported as metrics: add --prometheus HOST:PORT");
    if (auto folder = watch::read_stats_folder(a.stats); !folder) return folder.error();
  }
  return ok();
}

// The text block of each refresh, one after another.
class text_display final : public watch::watch_display {
 public:
  text_display(std::ostream& out, report::watch_text_options options)
      : out_(out), options_(options) {}
  void show(const watch::frame& f, const watch::peak_tracker& peaks) override {
    out_ << report::render_watch_text(f, peaks, options_) << std::flush;
  }
  bool output_failed() const override { return !out_; }

 private:
  std::ostream& out_;
  report::watch_text_options options_;
};

// The full screen: redrawn at each refresh, after a key that changes the view, and when the
// terminal is resized.
class screen_display final : public watch::watch_display {
 public:
  screen_display(std::unique_ptr<terminal_screen> terminal, std::chrono::milliseconds interval)
      : terminal_(std::move(terminal)),
        view_({interval, false, terminal_->unicode(), 256}) {}
  void show(const watch::frame& f, const watch::peak_tracker& peaks) override {
    view_.add(f, peaks);
    draw();
  }
  bool poll_input() override {
    for (;;) {
      switch (terminal_->read_key()) {
        case terminal_screen::key::none: return true;
        case terminal_screen::key::quit: return false;
        case terminal_screen::key::sort: view_.cycle_sort(); break;
        case terminal_screen::key::processes: view_.toggle_processes(); break;
        case terminal_screen::key::resize: break;
        case terminal_screen::key::other: continue;
      }
      draw();
    }
  }

 private:
  void draw() { terminal_->draw(view_.layout(terminal_->width(), terminal_->height())); }
  std::unique_ptr<terminal_screen> terminal_;
  report::watch_screen view_;
};

// --json: JSON lines; a terminal on both ends: the full screen (plain text when ncurses cannot
// drive it, saying why); otherwise the text blocks.
std::unique_ptr<watch::watch_display> choose_display(const watch_args& a,
                                                     const watch::watch_settings& settings,
                                                     std::ostream& out, std::ostream& err) {
  if (a.json) return std::make_unique<watch::json_line_display>(out);
  const report::watch_text_options text{settings.monitor.interval, false};
  const bool terminal = !a.plain && !a.once && &out == &std::cout && ::isatty(STDOUT_FILENO) &&
                        ::isatty(STDIN_FILENO);
  if (terminal) {
    std::string why;
    if (auto screen = terminal_screen::open(why))
      return std::make_unique<screen_display>(std::move(screen), settings.monitor.interval);
    err << "vramscope watch: " << why << "; printing plain text instead\n";
  }
  return std::make_unique<text_display>(out, text);
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
  if (auto st = read_settings(a, settings); !st)
    return fail(err, st.error(), exit_status::bad_input);
  watch::web_config security;  // checked before any GPU is opened
  if (!a.web_config.empty()) {
    if (a.prometheus.empty())
      return fail(err,
                  error_at("--web-config", "it secures the metrics endpoint: add --prometheus "
                                           "HOST:PORT"),
                  exit_status::bad_input);
    auto read = watch::read_web_config(a.web_config);
    if (!read) return fail(err, read.error(), exit_status::bad_input);
    security = std::move(*read);
  }
  auto source = open_source(a);
  if (!source) {
    const bool bad_input = !a.replay.empty() || source.error().source == "--source";
    const int rc =
        fail(err, source.error(), bad_input ? exit_status::bad_input : exit_status::environment);
    if (!bad_input) err << no_gpu_hint;
    return rc;
  }
  // Lines are written whole or not at all; a part line an earlier run left is removed first.
  line_append_buffer log_buffer;
  std::ostream log(&log_buffer);
  if (!a.log.empty()) {
    std::uint64_t removed = 0;
    if (auto opened = log_buffer.open(a.log, removed); !opened)
      return fail(err, opened.error(), exit_status::bad_input);
    if (removed > 0)
      err << fmt::format("vramscope watch: {}: removed an unfinished last line ({} bytes; a full "
                         "disk or a crash cut it)\n",
                         a.log, removed);
  }
  std::unique_ptr<watch::metrics_server> server;
  if (!a.prometheus.empty()) {
    auto where = watch::parse_listen_address(a.prometheus);
    if (!where) return fail(err, where.error(), exit_status::bad_input);
    auto started = watch::metrics_server::start(a.prometheus, security);
    if (!started) return fail(err, started.error(), exit_status::environment);
    server = std::move(*started);
    // An IPv6 address is bracketed in a URL (RFC 3986): http://[::1]:9400/metrics.
    const bool v6 = where->first.find(':') != std::string::npos;
    err << fmt::format("vramscope watch: serving metrics at {}://{}{}{}:{}/metrics{}\n",
                       security.tls ? "https" : "http", v6 ? "[" : "", where->first, v6 ? "]" : "",
                       server->port(), security.users.empty() ? "" : " (basic authentication)");
    if (where->first.empty() || where->first == "0.0.0.0" || where->first == "::")
      if (!security.tls || security.users.empty())
        err << fmt::format(
            "vramscope watch: {} listens on every interface{}: anyone who can "
            "reach this machine can read the metrics (process names, users, "
            "ranks); --web-config adds TLS and basic authentication\n",
            a.prometheus,
            security.tls
                ? " without authentication"
                : (security.users.empty() ? " in clear text" : " in clear text (passwords too)"));
  }
  auto display = choose_display(a, settings, out, err);
  auto r = watch::run_watch(**source, settings,
                            {log_buffer.is_open() ? &log : nullptr, server.get()}, *display);
  display.reset();  // a full screen gives the terminal back before anything more is printed
  if (!r && log_buffer.error() != 0)
    return fail(err, error_at(a.log, fmt::format("cannot write: {}; the line was not kept",
                                                 std::strerror(log_buffer.error()))),
                exit_status::environment);
  if (!r) return fail(err, r.error(), exit_status::environment);
  return static_cast<int>(exit_status::ok);
}

}  // namespace vramscope::cli
