// Opt-in checks on a real GPU (CTest label `gpu`: ctest -L gpu). Each test skips itself where
// the NVIDIA driver cannot be loaded, so the suite also passes on machines without a GPU.
#include <vramscope/watch/nvml_source.hpp>
#include <vramscope/trace/trace_launcher.hpp>
#include <vramscope/trace/trace_reader.hpp>

#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::temp_dir;
using trace::read_trace_folder;
using trace::run_traced;
using trace::trace_options;

TEST(GpuNvml, ReadsTheRealDriver) {
  auto source = nvml_source::open();
  if (!source) GTEST_SKIP() << source.error().to_string();
  const auto& caps = (*source)->capabilities();
  std::cout << "driver " << caps.driver_version << ", memory API v" << caps.memory_api
            << ", process API v" << caps.process_api << " (" << caps.process_record_bytes
            << "-byte records)\n";
  auto s = (*source)->read();
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_FALSE(s->gpus.empty());
  for (const auto& g : s->gpus) {
    EXPECT_FALSE(g.gpu.uuid.empty());
    EXPECT_FALSE(g.gpu.name.empty());
    if (g.gpu.total && g.gpu.used) {
      EXPECT_LE(*g.gpu.used, *g.gpu.total);
    }
  }
  for (const auto& w : s->warnings) std::cout << "warning: " << w.to_string() << "\n";
}

#if defined(VRAMSCOPE_TRACE_INJECTION) && defined(VRAMSCOPE_TRACE_PROBE)
// Runs the probe program under the injection library and checks that each kind of allocation
// it makes is in the trace. Prints the count of events per API: whether MEMORY2 also reports
// cuMemCreate is an open question (docs/trace.md, Limits).
TEST(GpuTrace, RecordsEveryKindOfAllocation) {
  if (!nvml_source::open()) GTEST_SKIP() << "no NVIDIA driver here";
  temp_dir dir;
  trace_options o;
  o.out_dir = dir.file("out");
  o.library = VRAMSCOPE_TRACE_INJECTION;
  std::ostringstream log;
  auto run = run_traced({VRAMSCOPE_TRACE_PROBE}, o, log);
  ASSERT_TRUE(run) << run.error().to_string();
  ASSERT_EQ(run->exit_code, 0) << log.str();
  std::map<std::string, int> per_api;
  bool header_ok = false;
  for (const auto& entry : std::filesystem::directory_iterator(o.out_dir)) {
    auto text = read_file(entry.path().string());
    ASSERT_TRUE(text);
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j["type"] == "header") header_ok = j["status"] == "ok";
      if (j["type"] == "event")
        ++per_api[j["api"].get<std::string>() + " " + j["kind"].get<std::string>()];
    }
  }
  for (const auto& [api, n] : per_api) std::cout << api << ": " << n << "\n";
  ASSERT_TRUE(header_ok) << "CUPTI could not subscribe; is a profiler attached?";
  EXPECT_GE(per_api["memory2 alloc"], 1);
  EXPECT_GE(per_api["memory2 free"], 1);
  EXPECT_EQ(per_api["cuMemCreate alloc"], 1);
  EXPECT_EQ(per_api["cuMemMap map"], 1);
  EXPECT_EQ(per_api["cuMemUnmap unmap"], 1);
  EXPECT_EQ(per_api["cuMemRelease free"], 1);
  EXPECT_EQ(per_api["cuMemAllocAsync alloc"], 1);
  EXPECT_EQ(per_api["cuMemFreeAsync free"], 1);
  auto summary = read_trace_folder(o.out_dir);
  ASSERT_TRUE(summary);
  ASSERT_EQ(summary->gpus.size(), 1u);
  EXPECT_FALSE(summary->gpus[0].gpu.starts_with("#")) << "the device record names the GPU";
  EXPECT_GE(summary->gpus[0].peak, bytes{64} << 20);
  EXPECT_EQ(summary->gpus[0].processes.at(0).final_live, 0u) << "everything was freed";
}
#endif

}  // namespace
}  // namespace vramscope::watch
