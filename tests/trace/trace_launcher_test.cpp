// The host side of `vramscope trace`, with shell commands in place of CUDA programs: the
// injection library is only named in the child's environment, so any existing file serves.
#include <vramscope/trace/trace_launcher.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/trace/trace_reader.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "watch/watch_support.hpp"

namespace vramscope::trace {
namespace {

using watch::testing::scoped_env;
using watch::testing::temp_dir;

class TraceLauncher : public ::testing::Test {
 protected:
  trace_options options() const {
    trace_options o;
    o.out_dir = dir_.file("out");
    o.library = VRAMSCOPE_FAKE_NVML_FULL;  // any existing file
    o.fallback_interval = std::chrono::milliseconds(20);
    o.fallback_source = {watch::source_kind::nvml, VRAMSCOPE_FAKE_NVML_FULL, ""};
    return o;
  }
  temp_dir dir_;
  std::ostringstream log_;
};

TEST_F(TraceLauncher, ForwardsTheExitCode) {
  auto run = run_traced({"sh", "-c", "exit 7"}, options(), log_);
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_EQ(run->exit_code, 7);
  EXPECT_TRUE(run->sampled.empty());
}

TEST_F(TraceLauncher, ReportsDeathBySignalAs128PlusSignal) {
  auto run = run_traced({"sh", "-c", "kill -TERM $$"}, options(), log_);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->exit_code, 128 + 15);
}

TEST_F(TraceLauncher, NamesTheLibraryAndFolderInTheChildEnvironment) {
  auto run = run_traced(
      {"sh", "-c",
       "echo \"$CUDA_INJECTION64_PATH|$VRAMSCOPE_TRACE_DIR\" > \"$VRAMSCOPE_TRACE_DIR/env.txt\""},
      options(), log_);
  ASSERT_TRUE(run);
  auto env = read_file(dir_.file("out/env.txt"));
  ASSERT_TRUE(env) << env.error().to_string();
  EXPECT_EQ(*env, std::string(VRAMSCOPE_FAKE_NVML_FULL) + "|" + dir_.file("out") + "\n");
}

// The child plays a process whose CUPTI slot is taken: it points the fake NVML at its own pid,
// writes the header a traced process would write, and lives long enough to be sampled.
TEST_F(TraceLauncher, SamplesThroughNvmlWhenCuptiIsTaken) {
  const std::string config = dir_.file("nvml.json");
  scoped_env fake("VRAMSCOPE_FAKE_NVML_CONFIG", config);
  const std::string script =
      "printf '{\"devices\":[{\"uuid\":\"GPU-T\",\"total\":1000,\"used\":600,"
      "\"compute\":[{\"pid\":%d,\"used\":500}]}]}' $$ > " +
      config +
      "; "
      "printf '{\"type\":\"header\",\"pid\":%d,\"status\":\"multiple_subscribers\","
      "\"message\":\"CUPTI is already used by nsys\"}\\n' $$ > "
      "\"$VRAMSCOPE_TRACE_DIR/trace-$$.jsonl\"; "
      "sleep 0.5";
  auto run = run_traced({"sh", "-c", script}, options(), log_);
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_EQ(run->exit_code, 0);
  ASSERT_EQ(run->sampled.size(), 1u);
  EXPECT_EQ(run->fallback_problem, "");
  EXPECT_NE(log_.str().find("is not traced by CUPTI (CUPTI is already used by nsys); sampling it "
                            "through NVML every 20 ms"),
            std::string::npos)
      << log_.str();
  auto summary = read_trace_folder(dir_.file("out"));
  ASSERT_TRUE(summary);
  ASSERT_EQ(summary->gpus.size(), 1u);
  EXPECT_EQ(summary->gpus[0].gpu, "GPU-T");
  EXPECT_EQ(summary->gpus[0].peak, 500u);
  EXPECT_GE(summary->samples, 2u);
  EXPECT_EQ(summary->gpus[0].processes.at(0).pid, run->sampled[0]);
}

TEST_F(TraceLauncher, SaysWhenTheFallbackCannotRunEither) {
  auto o = options();
  o.fallback_source = {watch::source_kind::nvml, "/nonexistent/libnvidia-ml.so.1", ""};
  auto run =
      run_traced({"sh", "-c",
                  "echo '{\"type\":\"header\",\"pid\":1,\"status\":\"error\",\"message\":\"x\"}' "
                  "> \"$VRAMSCOPE_TRACE_DIR/trace-1.jsonl\"; sleep 0.2"},
                 o, log_);
  ASSERT_TRUE(run);
  EXPECT_EQ(
      run->fallback_problem.rfind("no GPU found: cannot load /nonexistent/libnvidia-ml.so.1", 0),
      0u)
      << run->fallback_problem;
}

TEST_F(TraceLauncher, MissingLibraryIsAnError) {
  auto o = options();
  o.library = "/nonexistent/libvramscope_trace.so";
  auto run = run_traced({"true"}, o, log_);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().to_string(), "trace: /nonexistent/libvramscope_trace.so: no such file");
}

TEST_F(TraceLauncher, UnknownCommandIsAnError) {
  auto run = run_traced({"/nonexistent/train.py"}, options(), log_);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().to_string(), "trace: cannot run /nonexistent/train.py: not found");
}

TEST(TraceHeader, NeedsACompleteFirstLine) {
  temp_dir dir;
  EXPECT_FALSE(read_trace_header(dir.write("a.jsonl", "{\"type\":\"header\",\"pid\":1")));
  auto ok = read_trace_header(
      dir.write("b.jsonl", "{\"type\":\"header\",\"pid\":5,\"status\":\"ok\"}\n"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->pid, 5);
  EXPECT_TRUE(ok->ok);
}

TEST(TraceLibrary, EnvironmentVariableWins) {
  scoped_env lib("VRAMSCOPE_TRACE_LIBRARY", "/opt/x/libvramscope_trace.so");
  EXPECT_EQ(find_trace_library(), "/opt/x/libvramscope_trace.so");
}

// SIGINT or SIGTERM sent to vramscope while the command runs: once the command has started
// (it writes a file), a thread signals this process, as `kill -INT <vramscope>` would.
class TraceStop : public TraceLauncher {
 protected:
  // Sends `sig` to this process once `started` exists (at most 10 s).
  std::thread signal_when(const std::string& started, int sig) {
    return std::thread([started, sig] {
      for (int i = 0; i < 1000 && !std::filesystem::exists(started); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ::kill(::getpid(), sig);
    });
  }
  static bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }
};

TEST_F(TraceStop, SigintIsPassedOnToTheCommandWhichEndsAndTheStatusIs130) {
  const auto started = dir_.file("started");
  auto o = options();
  o.stop_grace = std::chrono::seconds(20);
  auto signaller = signal_when(started, SIGINT);
  const auto t0 = std::chrono::steady_clock::now();
  auto run = run_traced({"sh", "-c", "touch " + started + "; exec sleep 30"}, o, log_);
  signaller.join();
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(run->exit_code, 130);
  EXPECT_EQ(run->stop_signal, SIGINT);
  EXPECT_FALSE(run->killed);
  EXPECT_NE(log_.str().find("passing it on to the command (process group"), std::string::npos)
      << log_.str();
}

TEST_F(TraceStop, SigtermReachesTheWholeProcessGroup) {
  const auto started = dir_.file("started");
  const auto worker_pid = dir_.file("worker.pid");
  auto signaller = signal_when(started, SIGTERM);
  // A launcher with a worker in the background, as torchrun has: both get the signal.
  auto run = run_traced(
      {"sh", "-c", "sleep 30 & echo $! > " + worker_pid + "; touch " + started + "; wait"},
      options(), log_);
  signaller.join();
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_EQ(run->exit_code, 128 + SIGTERM);
  auto pid = read_file(worker_pid);
  ASSERT_TRUE(pid);
  const pid_t worker = static_cast<pid_t>(std::stol(*pid));
  // The worker was not our child: it ends on its own, within the grace vramscope waited.
  EXPECT_FALSE(alive(worker)) << "worker " << worker << " outlived the command";
}

TEST_F(TraceStop, ACommandThatIgnoresTheSignalIsKilledAfterTheGrace) {
  const auto started = dir_.file("started");
  auto o = options();
  o.stop_grace = std::chrono::milliseconds(300);
  auto signaller = signal_when(started, SIGINT);
  const auto t0 = std::chrono::steady_clock::now();
  auto run = run_traced({"sh", "-c", "trap '' INT; touch " + started + "; sleep 30"}, o, log_);
  signaller.join();
  ASSERT_TRUE(run) << run.error().to_string();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(run->exit_code, 130);
  EXPECT_TRUE(run->killed);
  EXPECT_NE(log_.str().find("did not end within 300 ms; killing process group"), std::string::npos)
      << log_.str();
}

}  // namespace
}  // namespace vramscope::trace
