// `vramscope snapshot`, called directly (cmd_snapshot) with pickles written by the test writer.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <vramscope/core/units.hpp>

#include "support/cli.hpp"
#include "observe/snapshot_fixtures.hpp"

namespace vramscope::cli {
namespace {

using observe::testing::frame;
using observe::testing::snapshot_maker;

using vramscope::testing::cli_result;

cli_result snapshot(std::vector<std::string> args) {
  args.insert(args.begin(), "snapshot");
  return vramscope::testing::invoke(args);
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string sample_snapshot() {
  constexpr std::uint64_t seg = 0x7f3a00000000;
  snapshot_maker m;
  auto fwd = m.stack({frame("forward", "/workspace/model.py", 41)});
  auto grad = m.stack({frame("backward", "/workspace/train.py", 90)});
  m.event(0, "segment_alloc", seg, 20 * MiB);
  m.event(0, "alloc", seg, 6 * MiB, fwd);
  m.event(0, "alloc", seg + 6 * MiB, 2 * MiB, grad);
  m.event(0, "free_requested", seg, 6 * MiB, fwd);
  m.event(0, "free_completed", seg, 6 * MiB, fwd);
  m.oom(0, 40 * MiB, 10 * MiB);
  m.segment(0, seg, 20 * MiB, {m.block(6 * MiB, 0, "inactive"), m.block(2 * MiB, 2 * MiB, "active_allocated", grad),
                               m.block(12 * MiB, 0, "inactive")});
  return m.bytes();
}

TEST(CliSnapshot, PrintsPeaksCategoriesTopAllocationsAndFragmentation) {
  const std::string path = write_temp("cli_snapshot.pickle", sample_snapshot());
  auto r = snapshot({path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("pickle protocol 4, 1 device(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("device 0: 6 trace entries (2 allocs, 1 frees, 1 segment allocs, 0 segment frees)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  peak allocated      8.0 MiB  at entry 2 (+0.020 ms, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  peak reserved      20.0 MiB  at entry 0 (+0.000 ms, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 blocks live, 20.0 MiB reserved, 12.0 MiB of it not allocated"), std::string::npos);
  EXPECT_NE(r.out.find("    activations        6.0 MiB   75.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    gradients          2.0 MiB   25.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("      1.     6.0 MiB  activations    model.py:41 forward"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not releasable (in split segments) 18.0 MiB in 2 blocks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out of memory: 1 time(s); the last at entry 5 asked for 40.0 MiB with 10.0 MiB free"),
            std::string::npos) << r.out;
  std::remove(path.c_str());
}

TEST(CliSnapshot, TopLimitsTheLists) {
  const std::string path = write_temp("cli_snapshot_top.pickle", sample_snapshot());
  auto r = snapshot({path, "--top", "1"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("largest allocations at the peak (top 1):"), std::string::npos);
  EXPECT_EQ(r.out.find("      2. "), std::string::npos) << r.out;
  std::remove(path.c_str());
}

TEST(CliSnapshot, JsonHasFiguresInBytes) {
  const std::string path = write_temp("cli_snapshot_json.pickle", sample_snapshot());
  auto r = snapshot({path, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["protocol"], 4);
  const auto& d = j["devices"][0];
  EXPECT_EQ(d["peak_allocated"]["bytes"], 8 * MiB);
  EXPECT_EQ(d["peak_allocated"]["trace_index"], 2);
  EXPECT_EQ(d["peak_reserved"]["bytes"], 20 * MiB);
  EXPECT_EQ(d["fragmentation_at_allocated_peak"], 12 * MiB);
  EXPECT_EQ(d["categories_at_peak"]["gradients"], 2 * MiB);
  EXPECT_EQ(d["top_allocations"][0]["frames"][0]["filename"], "/workspace/model.py");
  EXPECT_EQ(d["final_state"]["inactive_split"], 18 * MiB);
  std::remove(path.c_str());
}

TEST(CliSnapshot, BadInputExitsTwoWithTheDiagnostic) {
  const std::string path = write_temp("cli_snapshot_bad.pickle", std::string("\x80\x04\x95\x10\x00\x00", 6));
  auto r = snapshot({path});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "vramscope snapshot: " + path + ": at byte offset 2: the file ends inside FRAME (it needs 5 more bytes)\n");
  std::remove(path.c_str());
}

TEST(CliSnapshot, MissingFileExitsTwo) {
  auto r = snapshot({"/nonexistent/snap.pickle"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope snapshot: /nonexistent/snap.pickle: no such file\n");
}

TEST(CliSnapshot, UsageErrorsExitTwo) {
  auto r = snapshot({});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("FILE is required"), std::string::npos) << r.err;
  auto t = snapshot({"x.pickle", "--top", "0"});
  EXPECT_EQ(t.code, 2);
}

TEST(CliSnapshot, HelpExitsZero) {
  auto r = snapshot({"--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--top"), std::string::npos);
}

// A snapshot torch 2.11 wrote with C++ frames (tests/data/observe/h100_torch211/): gradients
// allocated on the autograd thread have no Python frame; their shown frames are the ops that
// allocated, not the stack capture, the caching allocator or the dispatcher.
TEST(CliSnapshot, RealTorch211StacksShowTheOpsNotTheCapture) {
  auto r = snapshot({std::string(VRAMSCOPE_SOURCE_DIR) +
                     "/tests/data/observe/h100_torch211/snapshot.pickle", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string text = j.dump();
  EXPECT_EQ(text.find("torch::unwind::unwind"), std::string::npos);
  EXPECT_EQ(text.find("CUDACachingAllocator"), std::string::npos);
  EXPECT_NE(text.find("pow_backward"), std::string::npos);
}

TEST(CliSnapshot, HtmlDrawsTheTimelineTheLargestAllocationsAndTheSegments) {
  const std::string pickle = std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/observe/h100_torch211/snapshot.pickle";
  const std::string page = ::testing::TempDir() + "snapshot.html";
  std::remove(page.c_str());
  const auto r = snapshot({pickle, "--html", page, "--top", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(page);
  std::stringstream html;
  html << in.rdbuf();
  const std::string text = html.str();
  EXPECT_NE(text.find("<polyline class=\"allocated\""), std::string::npos);
  EXPECT_NE(text.find("<line class=\"peak\""), std::string::npos);
  EXPECT_NE(text.find("peak 6.78 GiB"), std::string::npos);
  std::size_t rows = 0, segments = 0;
  for (std::size_t at = text.find("<td class=\"frames\">"); at != std::string::npos;
       at = text.find("<td class=\"frames\">", at + 1))
    ++rows;
  for (std::size_t at = text.find("<g class=\"segment\">"); at != std::string::npos;
       at = text.find("<g class=\"segment\">", at + 1))
    ++segments;
  EXPECT_EQ(rows, 5u);
  EXPECT_EQ(segments, 35u);  // the final state's 35 segments
  EXPECT_NE(r.out.find("peak allocated"), std::string::npos);  // the text report is still printed
  // A page that cannot be written is bad input naming the path, and nothing is left behind.
  const auto bad = snapshot({pickle, "--html", "/nonexistent/dir/snapshot.html"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("/nonexistent/dir/snapshot.html"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace vramscope::cli
