#include <vramscope/trace/trace_reader.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "watch/watch_support.hpp"

namespace vramscope::trace {
namespace {

using watch::testing::temp_dir;

std::string event(std::uint64_t t, const char* kind, bytes size, std::int64_t pid, int device = 0) {
  return "{\"type\":\"event\",\"timestamp\":" + std::to_string(t) +
         ",\"device\":" + std::to_string(device) + ",\"pid\":" + std::to_string(pid) +
         ",\"kind\":\"" + kind + "\",\"address\":\"0x10\",\"bytes\":" + std::to_string(size) +
         ",\"api\":\"memory2\"}\n";
}

// Two traced ranks on GPU-A (one names it with a device line, the other through
// CUDA_VISIBLE_DEVICES), one process sampled through NVML on GPU-B, one without any GPU name.
class TraceFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("trace-100.jsonl",
               "{\"type\":\"header\",\"version\":1,\"pid\":100,\"rank\":0,\"status\":\"ok\","
               "\"message\":\"\"}\n"
               "{\"type\":\"device\",\"device\":0,\"uuid\":\"GPU-A\",\"name\":\"H100\",\"total\":"
               "85899345920}\n" +
                   event(10, "alloc", 4 * GiB, 100) + event(30, "alloc", 2 * GiB, 100) +
                   event(50, "free", 4 * GiB, 100) + event(60, "map", 8 * GiB, 100) +
                   event(70, "alloc", 1 * GiB, 100) + "{\"type\":\"dropped\",\"count\":3}\n");
    dir_.write("trace-200.jsonl",
               "{\"type\":\"header\",\"version\":1,\"pid\":200,\"rank\":1,\"cuda_visible_devices\":"
               "\"GPU-A\",\"status\":\"ok\"}\n" +
                   event(20, "alloc", 1 * GiB, 200) + event(40, "free", 1 * GiB, 200) +
                   event(45, "alloc", 5 * GiB, 200));
    dir_.write("trace-300.jsonl",
               "{\"type\":\"header\",\"version\":1,\"pid\":300,\"status\":\"multiple_subscribers\","
               "\"message\":\"CUPTI is already used by nsys\"}\n");
    dir_.write("sample-300.jsonl",
               "{\"type\":\"sample\",\"timestamp\":1000,\"pid\":300,\"gpu\":1,\"uuid\":\"GPU-B\","
               "\"bytes\":3221225472}\n"
               "{\"type\":\"sample\",\"timestamp\":2000,\"pid\":300,\"gpu\":1,\"uuid\":\"GPU-B\","
               "\"bytes\":5368709120}\n"
               "{\"type\":\"sample\",\"timest");
    dir_.write("trace-400.jsonl",
               event(5, "alloc", 1 * GiB, 400) + "not json\n" + event(6, "alloc", 1 * GiB, 400));
    dir_.write("notes.txt", "ignored");
  }
  temp_dir dir_;
};

const trace_gpu_peak* find(const trace_summary& s, const std::string& gpu) {
  for (const auto& g : s.gpus)
    if (g.gpu == gpu) return &g;
  return nullptr;
}

TEST_F(TraceFolder, MergesProcessesByGpuAndReplaysTheirEventsInTimeOrder) {
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->files, 5u);
  const auto* a = find(*s, "GPU-A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "H100");
  EXPECT_EQ(a->total, 80 * GiB);
  // 4 +1 +2 -1 +5 = 11 GiB at t=45, before rank 0 frees its 4 GiB.
  EXPECT_EQ(a->peak, 11 * GiB);
  EXPECT_EQ(a->peak_timestamp_ns, 45u);
  ASSERT_EQ(a->processes.size(), 2u);
  EXPECT_EQ(a->processes[0].pid, 100) << "largest peak first";
  EXPECT_EQ(a->processes[0].peak, 6 * GiB);
  EXPECT_EQ(a->processes[0].final_live, 3 * GiB) << "map events do not count";
  EXPECT_EQ(a->processes[0].rank, 0);
  EXPECT_EQ(a->processes[0].events, 5u);
  EXPECT_EQ(a->processes[1].pid, 200);
  EXPECT_EQ(a->processes[1].peak, 5 * GiB);
  EXPECT_EQ(a->processes[1].rank, 1);
}

TEST_F(TraceFolder, UsesNvmlSamplesForProcessesCuptiCouldNotTrace) {
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->untraced_pids, (std::vector<std::int64_t>{300}));
  EXPECT_EQ(s->untraced_messages, (std::vector<std::string>{"CUPTI is already used by nsys"}));
  const auto* b = find(*s, "GPU-B");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->index, 1);
  EXPECT_EQ(b->peak, 5 * GiB);
  ASSERT_EQ(b->processes.size(), 1u);
  EXPECT_TRUE(b->processes[0].sampled);
  EXPECT_EQ(b->processes[0].events, 2u);
  EXPECT_EQ(s->samples, 2u);
}

TEST_F(TraceFolder, ProcessWithoutGpuNameFallsBackToItsOrdinal) {
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s);
  const auto* g = find(*s, "#0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->index, 0);
  EXPECT_EQ(g->peak, 2 * GiB);
}

TEST_F(TraceFolder, CountsDroppedRecordsAndWarnsAboutBadLines) {
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->dropped, 3u);
  EXPECT_EQ(s->events, 10u);
  ASSERT_EQ(s->warnings.size(), 2u);
  EXPECT_EQ(s->warnings[0].to_string(),
            dir_.file("sample-300.jsonl") +
                ":3: partial last line skipped (the process ended while writing)");
  EXPECT_EQ(s->warnings[1].to_string(),
            dir_.file("trace-400.jsonl") + ":2: line skipped: not a JSON object");
}

TEST(TraceReader, AnIntegerTooLongForSixtyFourBitsSkipsItsLine) {
  // nlohmann keeps such a number as a double; converting it to an integer would be undefined
  // behaviour (the fuzzer found this pid).
  temp_dir dir;
  dir.write("trace-1.jsonl",
            "{\"type\":\"header\",\"version\":1,\"pid\":1,\"status\":\"ok\"}\n"
            "{\"type\":\"event\",\"timestamp\":1,\"device\":0,\"pid\":"
            "39999999999999999999999999999999999999999999901,\"kind\":\"alloc\",\"bytes\":1024}\n"
            "{\"type\":\"event\",\"timestamp\":2,\"device\":0,\"pid\":1,\"kind\":\"alloc\","
            "\"bytes\":\"many\"}\n");
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->warnings.size(), 2u);
  EXPECT_EQ(s->warnings[0].to_string(),
            dir.file("trace-1.jsonl") +
                ":2: line skipped: pid: expected an integer, got 4e+46");
  EXPECT_EQ(s->warnings[1].to_string(),
            dir.file("trace-1.jsonl") + ":3: line skipped: bytes: expected an integer, got \"many\"");
}

// A size larger than any GPU is a damaged line (the fuzzer's sizes near 2^63 overflowed the
// running sum), and sums of many large real sizes saturate instead of wrapping.
TEST(TraceReader, ASizeBeyondAnyGpuSkipsItsLineAndSumsSaturate) {
  temp_dir dir;
  dir.write("trace-1.jsonl",
            "{\"type\":\"header\",\"version\":1,\"pid\":1,\"status\":\"ok\"}\n" +
                event(1, "alloc", 9223372036854775807ULL, 1) + event(2, "alloc", 1 * GiB, 1));
  std::string many = "{\"type\":\"header\",\"version\":1,\"pid\":2,\"status\":\"ok\"}\n";
  for (std::uint64_t i = 0; i < 8200; ++i) many += event(10 + i, "alloc", bytes{1} << 50, 2, 1);
  dir.write("trace-2.jsonl", many);
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].to_string(),
            dir.file("trace-1.jsonl") +
                ":2: line skipped: bytes: 9223372036854775807 is more than any GPU holds (at most "
                "2^50 bytes)");
  const auto* small = find(*s, "#0");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->peak, 1 * GiB);
  const auto* huge = find(*s, "#1");
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(huge->peak, static_cast<bytes>(INT64_MAX));  // 8200 x 2^50 > 2^63: saturated
}

// A line longer than any trace line (1 MiB) is skipped without being held: a 1 GiB line took
// 4 GiB of memory. Lines after it are read, and a block boundary inside a line is no boundary.
TEST(TraceReader, ALineLongerThanAnyTraceLineIsSkippedAndTheRestRead) {
  temp_dir dir;
  std::string text = "{\"type\":\"header\",\"version\":1,\"pid\":1,\"status\":\"ok\"}\n";
  text += "{\"type\":\"event\",\"timestamp\":1,\"device\":0,\"pid\":1,\"kind\":\"alloc\","
          "\"bytes\":" + std::string(3 << 20, '9') + "}\n";
  text += event(2, "alloc", 1 * GiB, 1);
  // A line of 100 KiB of padding: longer than a read block, shorter than the limit.
  text += "{\"type\":\"event\",\"pad\":\"" + std::string(100 << 10, ' ') +
          "\",\"timestamp\":3,\"device\":0,\"pid\":1,\"kind\":\"alloc\",\"bytes\":1024}\n";
  dir.write("trace-1.jsonl", text);
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].to_string(),
            dir.file("trace-1.jsonl") +
                ":2: line skipped: longer than 1.0 MiB, and no trace line is");
  EXPECT_EQ(s->events, 2u);
  const auto* g = find(*s, "#0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->peak, 1 * GiB + 1024);
}

// A pipe named like a trace file is never opened (that would block) and is named in a warning.
TEST(TraceReader, APipeNamedLikeATraceFileIsSkippedWithAWarning) {
  temp_dir dir;
  dir.write("trace-1.jsonl",
            "{\"type\":\"header\",\"version\":1,\"pid\":1,\"status\":\"ok\"}\n" +
                event(1, "alloc", 1 * GiB, 1));
  ASSERT_EQ(::mkfifo(dir.file("trace-2.jsonl").c_str(), 0600), 0);
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].to_string(),
            dir.file("trace-2.jsonl") +
                ": skipped: not a regular file (a pipe, device or socket named like a trace file)");
  EXPECT_EQ(s->files, 1u);
}

TEST_F(TraceFolder, BecomesAnObservationOfPeaks) {
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s);
  const auto o = to_observation(*s);
  ASSERT_EQ(o.gpus.size(), 3u);
  EXPECT_EQ(o.gpus[1].uuid, "GPU-A");
  EXPECT_EQ(o.gpus[1].used, 11 * GiB);
  EXPECT_EQ(o.gpus[0].uuid, "") << "no UUID for #0";
  EXPECT_EQ(o.processes.size(), 4u);
  EXPECT_EQ(o.warnings.size(), 2u);
}

// Two nodes: the same pid and the same index-only GPU on each; one node's files name their host,
// the other's (written before headers did) are told apart by their subfolder.
TEST(TraceReader, FoldersOfSeveralNodesKeepTheirGpusApart) {
  temp_dir dir;
  dir.write("node-a/trace-100.jsonl",
            "{\"type\":\"header\",\"version\":1,\"pid\":100,\"rank\":0,\"cuda_visible_devices\":\"0\","
            "\"status\":\"ok\"}\n" + event(10, "alloc", 3 * GiB, 100));
  dir.write("collected/b/trace-100.jsonl",
            "{\"type\":\"header\",\"version\":1,\"pid\":100,\"rank\":1,\"cuda_visible_devices\":\"0\","
            "\"host\":\"node-b\",\"status\":\"ok\"}\n" + event(10, "alloc", 5 * GiB, 100));
  dir.write("collected/b/sample-7.jsonl",
            "{\"type\":\"sample\",\"timestamp\":5,\"pid\":7,\"gpu\":1,\"uuid\":\"\",\"host\":\"node-b\","
            "\"bytes\":1073741824}\n");
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->files, 3u);
  EXPECT_EQ(s->hosts, (std::vector<std::string>{"node-a", "node-b"}));
  const auto* a = find(*s, "node-a#0");
  const auto* b = find(*s, "node-b#0");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->peak, 3 * GiB);
  EXPECT_EQ(b->peak, 5 * GiB) << "pid 100 of node-a is another process";
  EXPECT_EQ(b->host, "node-b");
  ASSERT_EQ(b->processes.size(), 1u);
  EXPECT_EQ(b->processes[0].host, "node-b");
  ASSERT_NE(find(*s, "node-b#1"), nullptr);
  const auto o = to_observation(*s);
  ASSERT_EQ(o.gpus.size(), 3u);
  EXPECT_EQ(o.gpus[0].host, "node-a");
  EXPECT_EQ(o.gpus[0].index, 0);
  EXPECT_EQ(o.gpus[0].uuid, "");
  EXPECT_EQ(o.processes[0].host, "node-a");
}

TEST_F(TraceFolder, OneMachineNamesNoHost) {
  dir_.write("trace-500.jsonl",
             "{\"type\":\"header\",\"version\":1,\"pid\":500,\"host\":\"gpu-7\",\"status\":\"ok\"}\n" +
                 event(5, "alloc", 1 * GiB, 500));
  auto s = read_trace_folder(dir_.path());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->hosts, std::vector<std::string>{"gpu-7"});
  EXPECT_NE(find(*s, "#0"), nullptr) << "index-only GPUs keep nvidia-smi's name on one machine";
  const auto o = to_observation(*s);
  for (const auto& g : o.gpus) EXPECT_EQ(g.host, "");
}

TEST(TraceReader, MissingFolderIsAnError) {
  auto s = read_trace_folder("/nonexistent/trace");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(),
            "/nonexistent/trace: not a folder (expected the --out folder of vramscope trace)");
}

TEST(TraceReader, EmptyFolderIsAnEmptySummary) {
  temp_dir dir;
  auto s = read_trace_folder(dir.path());
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->gpus.empty());
  EXPECT_EQ(s->files, 0u);
}

}  // namespace
}  // namespace vramscope::trace
