#include <vramscope/trace/trace_launcher.hpp>

#include <vramscope/watch/process_info.hpp>
#include <vramscope/watch/stop_signal.hpp>
#include <vramscope/trace/trace_record.hpp>
#include <vramscope/trace/trace_writer.hpp>

#include <fmt/format.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <thread>

extern char** environ;

namespace vramscope::trace {

// The live-machine pieces the launcher borrows from watch: where CUPTI is taken it samples
// the GPU through watch's sources, and it reads process details and stop signals as watch does.
using watch::gpu_source;
using watch::open_gpu_source;
using watch::process_reading;
using watch::read_process_details;
using watch::stop_signal_scope;

namespace fs = std::filesystem;

namespace {

constexpr std::chrono::milliseconds poll_period{50};

std::vector<std::string> child_environment(const std::string& library, const std::string& dir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("CUDA_INJECTION64_PATH=") || entry.starts_with("VRAMSCOPE_TRACE_DIR="))
      continue;
    env.emplace_back(entry);
  }
  env.push_back("CUDA_INJECTION64_PATH=" + library);
  env.push_back("VRAMSCOPE_TRACE_DIR=" + dir);
  return env;
}

// The command leads a process group of its own, so that a signal passed on reaches its workers
// too and not whatever shares vramscope's group (`vramscope trace ... | tee log`).
result<pid_t> spawn(const std::vector<std::string>& command, std::vector<std::string> env) {
  std::vector<char*> argv, envp;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  const int rc = ::posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return error_at("trace", fmt::format("cannot run {}: {}", command[0],
                                         rc == ENOENT ? "not found" : std::strerror(rc)));
  return pid;
}

std::uint64_t realtime_ns() {
  using namespace std::chrono;
  return static_cast<std::uint64_t>(
      duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count());
}

// Finds processes CUPTI could not trace (from the headers of new trace files) and samples
// them through NVML.
class fallback_sampler {
 public:
  fallback_sampler(const trace_options& o, std::ostream& log) : o_(o), log_(log) {}

  void scan_headers() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(o_.out_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("trace-") || !name.ends_with(".jsonl") || classified_.count(name))
        continue;
      auto header = read_trace_header(entry.path().string());
      if (!header) continue;  // header not written yet
      classified_.insert(name);
      if (header->ok) continue;
      untraced_.insert(header->pid);
      log_ << fmt::format(
          "vramscope trace: pid {} is not traced by CUPTI ({}); sampling it "
          "through NVML every {} ms\n",
          header->pid, header->message, o_.fallback_interval.count());
    }
  }

  void sample() {
    if (untraced_.empty() || !problem_.empty()) return;
    if (!source_) {
      auto s = open_gpu_source(o_.fallback_source);
      if (!s) {
        problem_ = s.error().message;
        log_ << "vramscope trace: cannot sample through NVML either: " << problem_ << "\n";
        return;
      }
      source_ = std::move(*s);
    }
    auto s = source_->read();
    if (!s) return;
    const auto t = realtime_ns();
    for (const auto& p : s->processes)
      if (untraced_.count(p.process.pid) && p.process.used) write_sample(p, t);
  }

  [[nodiscard]] std::vector<std::int64_t> sampled() const {
    return {untraced_.begin(), untraced_.end()};
  }
  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  void write_sample(const process_reading& p, std::uint64_t t) {
    auto& out = files_[p.process.pid];
    if (!out.is_open())
      out.open(fs::path(o_.out_dir) / fmt::format("sample-{}.jsonl", p.process.pid), std::ios::app);
    auto& rank =
        ranks_.try_emplace(p.process.pid, read_process_details(p.process.pid, o_.proc_root).rank)
            .first->second;
    nlohmann::json line = {{"type", "sample"},           {"timestamp", t},
                           {"pid", p.process.pid},       {"gpu", p.process.gpu_index.value_or(-1)},
                           {"uuid", p.process.gpu_uuid}, {"bytes", *p.process.used}};
    if (rank) line["rank"] = *rank;
    if (!host_.empty()) line["host"] = host_;
    out << line.dump() << '\n' << std::flush;
  }

  const trace_options& o_;
  std::ostream& log_;
  std::set<std::string> classified_;
  std::set<std::int64_t> untraced_;
  std::unique_ptr<gpu_source> source_;
  std::string problem_;
  std::map<std::int64_t, std::ofstream> files_;
  std::map<std::int64_t, std::optional<int>> ranks_;
  std::string host_ = host_name();
};

// The terminal, when vramscope holds it: handed to the command's group while it runs (a
// group in the background that reads the terminal is stopped by SIGTTIN) and taken back after.
class terminal_handover {
 public:
  explicit terminal_handover(pid_t group) {
    if (!::isatty(STDIN_FILENO) || ::tcgetpgrp(STDIN_FILENO) != ::getpgrp()) return;
    own_ = ::getpgrp();
    give(group);
  }
  ~terminal_handover() {
    if (own_ > 0) give(own_);
  }
  terminal_handover(const terminal_handover&) = delete;
  terminal_handover& operator=(const terminal_handover&) = delete;
  [[nodiscard]] bool active() const { return own_ > 0; }
  void take_back() const {
    if (own_ > 0) give(own_);
  }
  void give(pid_t group) const {
    // tcsetpgrp from a group that no longer holds the terminal raises SIGTTOU: blocked here.
    sigset_t block, previous;
    sigemptyset(&block);
    sigaddset(&block, SIGTTOU);
    ::pthread_sigmask(SIG_BLOCK, &block, &previous);
    ::tcsetpgrp(STDIN_FILENO, group);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }

 private:
  pid_t own_ = -1;
};

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : fmt::format("signal {}", sig);
}

int exit_code_of(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// True while a process of `group` is alive (a zombie child counts until reaped).
bool group_alive(pid_t group) { return ::kill(-group, 0) == 0 || errno == EPERM; }

// Waits for the command; passes on a stop signal that reaches vramscope to its process group
// and bounds the wait from then on by options.stop_grace. Fills exit_code, stop_signal, killed.
void wait_for(pid_t child, fallback_sampler& sampler, const trace_options& options,
              std::ostream& log, trace_run& run) {
  const auto interval = options.fallback_interval;
  terminal_handover terminal(child);
  auto next_sample = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  bool exited = false;
  for (;;) {
    int status = 0;
    const pid_t done = exited ? 0 : ::waitpid(child, &status, WNOHANG | WUNTRACED);
    if (done == child && WIFSTOPPED(status) && terminal.active()) {
      if (const int why = WSTOPSIG(status); why != SIGTTIN && why != SIGTTOU) {
        // Ctrl-Z: vramscope stops with the command, so the shell sees the job stopped, and
        // hands the terminal back to it when continued (below).
        terminal.take_back();
        ::raise(SIGSTOP);
      }
      // Stopped for reading or writing the terminal before it was handed over, or continued
      // after Ctrl-Z: hand the terminal over and let the group go on.
      terminal.give(child);
      ::kill(-child, SIGCONT);
    } else if (done == child && !WIFSTOPPED(status)) {
      exited = true;
      run.exit_code = exit_code_of(status);
    } else if (done < 0 && errno != EINTR) {
      exited = true;
      run.exit_code = 127;
    }
    // After a stop signal, the group's other processes (workers) get the rest of the grace.
    if (exited && (!deadline || !group_alive(child))) break;
    if (int sig = stop_signal_scope::received(); sig != 0) {
      stop_signal_scope::clear();
      if (!deadline) {
        run.stop_signal = sig;
        deadline = std::chrono::steady_clock::now() + options.stop_grace;
        log << fmt::format(
            "vramscope trace: {}: passing it on to the command (process group {}) "
            "and waiting up to {} ms for it to end; another signal kills it\n",
            signal_name(sig), child, options.stop_grace.count());
        ::kill(-child, sig);
      } else {
        deadline = std::chrono::steady_clock::now();  // a second signal: no more waiting
      }
    }
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      if (!run.killed)
        log << fmt::format(
            "vramscope trace: the command did not end within {} ms; killing "
            "process group {}\n",
            options.stop_grace.count(), child);
      run.killed = true;
      ::kill(-child, SIGKILL);
      if (exited) break;
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    }
    sampler.scan_headers();
    if (std::chrono::steady_clock::now() >= next_sample) {
      sampler.sample();
      next_sample += interval;
    }
    std::this_thread::sleep_for(std::min(poll_period, interval));
  }
  if (run.stop_signal != 0) run.exit_code = 128 + run.stop_signal;
}

}  // namespace

std::optional<trace_file_status> read_trace_header(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || in.eof()) return std::nullopt;  // no complete first line
  const auto o = nlohmann::json::parse(line, nullptr, false);
  if (!o.is_object() || o.value("type", "") != "header") return std::nullopt;
  trace_file_status s;
  try {
    // A pid too long for 64 bits arrives as a double; only integers are taken.
    if (auto it = o.find("pid"); it != o.end() && it->is_number_integer())
      s.pid = it->get<std::int64_t>();
    s.ok = o.value("status", "ok") == "ok";
    s.message = o.value("message", o.value("status", ""));
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return s;
}

std::string find_trace_library() {
  if (const char* env = std::getenv("VRAMSCOPE_TRACE_LIBRARY"); env && *env)
    return std::string_view(env) == "none" ? std::string() : std::string(env);
#ifdef VRAMSCOPE_TRACE_LIBRARY_PATH
  if (fs::exists(VRAMSCOPE_TRACE_LIBRARY_PATH)) return VRAMSCOPE_TRACE_LIBRARY_PATH;
#endif
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const auto& candidate : {exe.parent_path() / "libvramscope_trace.so",
                                exe.parent_path().parent_path() / "lib" / "libvramscope_trace.so"})
    if (fs::exists(candidate, ec)) return candidate.string();
  return {};
}

result<trace_run> run_traced(const std::vector<std::string>& command, const trace_options& options,
                             std::ostream& log) {
  VRAMSCOPE_EXPECTS(!command.empty(), "run_traced needs a command");
  std::error_code ec;
  const std::string library = options.library.empty() ? find_trace_library() : options.library;
  if (library.empty() || !fs::exists(library, ec))
    return error_at("trace", library.empty()
                                 ? "no CUPTI injection library: this vramscope was built "
                                   "without CUDA's CUPTI"
                                 : library + ": no such file");
  fs::create_directories(options.out_dir, ec);
  if (!fs::is_directory(options.out_dir, ec))
    return error_at("trace", fmt::format("cannot create the folder {}", options.out_dir));
  stop_signal_scope signals;  // before the spawn: exec resets caught signals in the child
  auto child = spawn(command, child_environment(fs::absolute(library).string(),
                                                fs::absolute(options.out_dir).string()));
  if (!child) return child.error();
  fallback_sampler sampler(options, log);
  trace_run run;
  wait_for(*child, sampler, options, log, run);
  sampler.scan_headers();  // a process that exited quickly still counts as untraced
  run.sampled = sampler.sampled();
  run.fallback_problem = sampler.problem();
  return run;
}

}  // namespace vramscope::trace
