// `vramscope watch` and `vramscope trace` driven in process, without a GPU: recorded logs,
// a fake NVML library and shell commands stand in for the hardware.
#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "cli/commands.hpp"
#include "watch/watch_support.hpp"

namespace vramscope::cli {
namespace {

struct cli_result {
  int code;
  std::string out;
  std::string err;
};

cli_result watch(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cmd_watch(args, out, err);
  return {code, out.str(), err.str()};
}

cli_result trace(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cmd_trace(args, out, err);
  return {code, out.str(), err.str()};
}

using watch::testing::data_path;
using watch::testing::scoped_env;
using watch::testing::temp_dir;

std::string data(const std::string& name) { return data_path(name); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(WatchCommand, OnceJsonPrintsOneSample) {
  auto r = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--once", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(r.out, "\n"), 1u);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"].size(), 4u);
  EXPECT_EQ(j["source"], "replay");
  EXPECT_EQ(j["alerts"][0]["id"], "shared_gpu");
}

TEST(WatchCommand, ReplayShowsEveryRecordedRefreshAsPlainBlocks) {
  auto r = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(r.out, "vramscope watch  "), 3u);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no terminal control codes when not a TTY";
  EXPECT_EQ(count(r.out, "[shared_gpu] GPU 0 holds 4 processes"), 3u);
  EXPECT_NE(r.out.find("warning: "), std::string::npos) << "the broken line of the recording";
}

TEST(WatchCommand, ReplayOfJaxShowsThePreallocatedPool) {
  auto r =
      watch({"--replay", data("replay-jax-prealloc.jsonl"), "--interval", "0", "--count", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count(r.out, "[preallocated_pool] pid 2001 (JAX) holds 72.00 GiB, 90% of GPU"), 2u)
      << r.out;
}

TEST(WatchCommand, LogAppendsWholeLines) {
  temp_dir dir;
  const std::string log = dir.file("watch.jsonl");
  ASSERT_EQ(
      watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0", "--log", log}).code, 0);
  ASSERT_EQ(watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--once", "--log", log}).code, 0);
  auto text = read_file(log);
  ASSERT_TRUE(text);
  EXPECT_EQ(count(*text, "\n"), 4u);
  EXPECT_EQ(text->back(), '\n');
  auto replayed = watch({"--replay", log, "--interval", "0", "--json"});
  EXPECT_EQ(replayed.code, 0) << replayed.err;
  EXPECT_EQ(count(replayed.out, "\n"), 4u);
}

TEST(WatchCommand, ReadsTheFakeNvml) {
  temp_dir dir;
  const std::string config = dir.file("nvml.json");
  ASSERT_TRUE(write_file_atomic(config, R"({"devices": [{"uuid": "GPU-f", "total": 1000, "used": 10,
      "compute": [{"pid": 1, "used": 5}]}]})"));
  scoped_env fake("VRAMSCOPE_FAKE_NVML_CONFIG", config);
  scoped_env library("VRAMSCOPE_NVML_LIBRARY", VRAMSCOPE_FAKE_NVML_FULL);
  auto r = watch({"--source", "nvml", "--once", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "nvml");
  EXPECT_EQ(j["gpus"][0]["uuid"], "GPU-f");
  EXPECT_EQ(j["processes"][0]["pid"], 1);
}

TEST(WatchCommand, NoGpuIsExitCodeThreeWithTheReason) {
  scoped_env library("VRAMSCOPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  scoped_env smi("VRAMSCOPE_NVIDIA_SMI", "/nonexistent/nvidia-smi");
  auto r = watch({"--once"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(
      r.err.rfind("vramscope watch: no GPU found: cannot load /nonexistent/libnvidia-ml.so.1: ", 0),
      0u)
      << r.err;
  EXPECT_NE(r.err.find("; /nonexistent/nvidia-smi: not found\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is the NVIDIA driver installed"), std::string::npos);
  EXPECT_TRUE(r.out.empty());
}

TEST(WatchCommand, BadArgumentsAreExitCodeTwo) {
  auto interval = watch({"--interval", "fast", "--once"});
  EXPECT_EQ(interval.code, 2);
  EXPECT_EQ(
      interval.err,
      "vramscope watch: --interval: expected a duration such as 1s, 500ms or 2.5s, got \"fast\"\n");
  auto source = watch({"--source", "dcgm", "--once"});
  EXPECT_EQ(source.code, 2);
  EXPECT_EQ(source.err, "vramscope watch: --source: expected auto, nvml or smi, got \"dcgm\"\n");
  auto replay = watch({"--replay", "/nonexistent/log.jsonl"});
  EXPECT_EQ(replay.code, 2);
  EXPECT_EQ(replay.err, "vramscope watch: /nonexistent/log.jsonl: no such file\n");
  auto address = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--prometheus", "9400"});
  EXPECT_EQ(address.code, 2);
  auto unknown = watch({"--colour"});
  EXPECT_EQ(unknown.code, 2);
  auto stats_alone = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--stats", "."});
  EXPECT_EQ(stats_alone.code, 2);
  EXPECT_EQ(stats_alone.err,
            "vramscope watch: --stats: the rank figures are exported as metrics: add --prometheus HOST:PORT\n");
  auto no_folder = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--prometheus", "127.0.0.1:0",
                          "--stats", "/nonexistent/stats"});
  EXPECT_EQ(no_folder.code, 2);
  EXPECT_EQ(no_folder.err,
            "vramscope watch: /nonexistent/stats: not a folder (expected a folder of "
            "torch.cuda.memory_stats() JSON files)\n");
}

TEST(WatchCommand, ServesPrometheusWhileRunning) {
  auto r = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0", "--json",
                  "--prometheus", "127.0.0.1:0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("vramscope watch: serving metrics at http://127.0.0.1:", 0), 0u) << r.err;
}

// An IPv6 address is named in brackets, so the URL printed can be opened as it is.
TEST(WatchCommand, NamesAnIpv6AddressInBrackets) {
  auto r = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0", "--json",
                  "--prometheus", "[::1]:0"});
  if (r.code == 3) GTEST_SKIP() << "no IPv6 loopback here: " << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("vramscope watch: serving metrics at http://[::1]:", 0), 0u) << r.err;
}

// Every interface, in clear text: said when watch starts, with what --web-config offers.
TEST(WatchCommand, SaysWhenTheMetricsAreOpenToEveryInterface) {
  auto r = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0", "--json",
                  "--prometheus", ":0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("vramscope watch: :0 listens on every interface in clear text: anyone who "
                       "can reach this machine can read the metrics"),
            std::string::npos)
      << r.err;
  auto local = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--interval", "0", "--json",
                      "--prometheus", "127.0.0.1:0"});
  EXPECT_EQ(local.err.find("every interface"), std::string::npos) << local.err;
}

TEST(WatchCommand, AWebConfigIsCheckedBeforeAnythingStarts) {
  auto alone = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--web-config", "web.yml"});
  EXPECT_EQ(alone.code, 2);
  EXPECT_EQ(alone.err, "vramscope watch: --web-config: it secures the metrics endpoint: add "
                       "--prometheus HOST:PORT\n");
  const auto file = std::filesystem::temp_directory_path() /
                    ("vramscope-web-" + std::to_string(::getpid()) + ".yml");
  std::ofstream(file) << "basic_auth_users:\n  prometheus: hunter2\n";
  auto bad = watch({"--replay", data("replay-ddp-gpu0.jsonl"), "--prometheus", "127.0.0.1:0",
                    "--web-config", file.string()});
  std::filesystem::remove(file);
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.rfind("vramscope watch: " + file.string() +
                              ":2:15: basic_auth_users: user \"prometheus\": expected a bcrypt hash",
                          0),
            0u)
      << bad.err;
}

TEST(TraceCommand, NeedsACommand) {
  auto r = trace({"--out", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err,
      "vramscope trace: no command to run: vramscope trace [--out DIR] -- COMMAND [ARGS...]\n");
}

TEST(TraceCommand, WithoutCuptiSaysSoWithExitCodeThree) {
  scoped_env none("VRAMSCOPE_TRACE_LIBRARY", "none");
  auto r = trace({"--", "true"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("built without CUDA's CUPTI"), std::string::npos) << r.err;
}

TEST(TraceCommand, ForwardsTheExitCodeAndSaysWhenNothingWasTraced) {
  temp_dir dir;
  scoped_env library("VRAMSCOPE_TRACE_LIBRARY", data("fake-nvidia-smi"));  // any existing file
  auto r = trace({"--out", dir.file("out"), "--", "sh", "-c", "exit 5"});
  EXPECT_EQ(r.code, 5);
  EXPECT_NE(r.err.find("no trace file: the command never initialised CUDA"), std::string::npos)
      << r.err;
  auto plain = trace({"--out", dir.file("out"), "sh", "-c", "exit 4"});
  EXPECT_EQ(plain.code, 4) << "the command may follow the options without --";
}

TEST(TraceCommand, SummarisesTraceFilesAsJson) {
  temp_dir dir;
  scoped_env library("VRAMSCOPE_TRACE_LIBRARY", data("fake-nvidia-smi"));
  const std::string script =
      "printf '{\"type\":\"header\",\"pid\":9,\"rank\":0,\"status\":\"ok\"}\\n"
      "{\"type\":\"event\",\"timestamp\":1,\"device\":0,\"pid\":9,\"kind\":\"alloc\",\"address\":"
      "\"0x1\",\"bytes\":2048}\\n' "
      "> \"$VRAMSCOPE_TRACE_DIR/trace-9.jsonl\"";
  auto r = trace({"--out", dir.file("out"), "--json", "--", "sh", "-c", script});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"][0]["gpu"], "#0");
  EXPECT_EQ(j["gpus"][0]["peak"], 2048);
  EXPECT_EQ(j["gpus"][0]["processes"][0]["rank"], 0);
  EXPECT_NE(r.err.find("  GPU #0: peak 2.0 KiB\n    pid 9 (rank 0) 2.0 KiB\n"), std::string::npos)
      << r.err;
}

TEST(TraceCommand, MissingLibraryFileIsBadInput) {
  scoped_env library("VRAMSCOPE_TRACE_LIBRARY", "/nonexistent/libvramscope_trace.so");
  auto r = trace({"--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope trace: /nonexistent/libvramscope_trace.so: no such file\n");
}

}  // namespace
}  // namespace vramscope::cli
