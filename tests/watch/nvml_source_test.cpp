// nvml_source against the fake NVML libraries built from fake_nvml.cpp.
#include <vramscope/watch/nvml_source.hpp>

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "watch/watch_support.hpp"
#include "watch/nvml_api.hpp"

namespace vramscope::watch {
namespace {

using nlohmann::json;
using testing::scoped_env;
using testing::temp_dir;

// Opens `library` configured with `config`; the config file lives as long as the fixture.
class NvmlSourceTest : public ::testing::Test {
 protected:
  result<std::unique_ptr<nvml_source>> open(const json& config,
                                            const std::string& library = VRAMSCOPE_FAKE_NVML_FULL) {
    env_.emplace("VRAMSCOPE_FAKE_NVML_CONFIG", dir_.write("nvml.json", config.dump()));
    return nvml_source::open(library);
  }
  static int calls(const std::string& library, const char* function) {
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!handle) return -1;
    auto fn = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "fake_nvml_calls"));
    const int n = fn ? fn(function) : -1;
    dlclose(handle);
    return n;
  }

  temp_dir dir_;
  std::optional<scoped_env> env_;
};

json two_gpus() {
  return json::parse(R"({
    "driver": "550.54.15",
    "process_names": {"101": "/usr/bin/python3", "102": "python3", "300": "/usr/lib/Xorg"},
    "devices": [
      {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-aaaa", "bus_id": "00000000:18:00.0",
       "total": 85520809984, "used": 2000000000, "free": 83000000000, "reserved": 520809984,
       "util_gpu": 37, "util_memory": 12,
       "compute": [{"pid": 101, "used": 1500000000}, {"pid": 102, "used": 400000000}],
       "graphics": [{"pid": 300, "used": 50000000}, {"pid": 102, "used": 400000000}]},
      {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-bbbb", "bus_id": "00000000:2A:00.0",
       "total": 85520809984, "used": 1000, "free": 85000000000, "reserved": 520808984,
       "compute": [{"pid": 103}]}
    ]})");
}

TEST_F(NvmlSourceTest, ListsDevicesAndTheirProcesses) {
  auto source = open(two_gpus());
  ASSERT_TRUE(source) << source.error().to_string();
  auto s = (*source)->read();
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->gpus.size(), 2u);
  const auto& g = s->gpus[0].gpu;
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.uuid, "GPU-aaaa");
  EXPECT_EQ(g.bus_id, "00000000:18:00.0");
  EXPECT_EQ(g.total, 85520809984u);
  EXPECT_EQ(g.used, 2000000000u);
  EXPECT_EQ(g.free, 83000000000u);
  EXPECT_EQ(g.reserved, 520809984u);
  EXPECT_EQ(g.utilization_gpu, 37);
  EXPECT_EQ(g.utilization_memory, 12);
  ASSERT_EQ(s->processes.size(), 4u);
  EXPECT_EQ(s->processes[0].process.pid, 101);
  EXPECT_EQ(s->processes[0].process.name, "/usr/bin/python3");
  EXPECT_EQ(s->processes[0].process.used, 1500000000u);
  EXPECT_EQ(s->processes[0].process.type, "C");
  EXPECT_EQ(s->processes[0].process.gpu_uuid, "GPU-aaaa");
  EXPECT_EQ(s->processes[1].process.pid, 102);
  EXPECT_EQ(s->processes[1].process.type, "C+G");  // in both lists, listed once
  EXPECT_EQ(s->processes[2].process.pid, 300);
  EXPECT_EQ(s->processes[2].process.type, "G");
  EXPECT_FALSE(s->processes[2].process.gpu_instance.has_value());
  EXPECT_EQ(s->processes[3].process.pid, 103);
  EXPECT_EQ(s->processes[3].process.gpu_index, 1);
  EXPECT_FALSE(s->processes[3].process.used.has_value()) << "NVML_VALUE_NOT_AVAILABLE is empty";
  EXPECT_TRUE(s->warnings.empty());
  const auto& caps = (*source)->capabilities();
  EXPECT_EQ(caps.driver_version, "550.54.15");
  EXPECT_EQ(caps.memory_api, 2);
  EXPECT_EQ(caps.process_api, 3);
  EXPECT_EQ(caps.process_record_bytes, 24u);
}

json three_processes(const std::string& driver, int record_bytes) {
  json c = {{"v3_record_bytes", record_bytes},
            {"devices",
             {{{"uuid", "GPU-c"},
               {"total", 1000},
               {"used", 600},
               {"free", 400},
               {"compute",
                {{{"pid", 11}, {"used", 100}},
                 {{"pid", 12}, {"used", 200}},
                 {{"pid", 13}, {"used", 300}}}}}}}};
  if (!driver.empty()) c["driver"] = driver;
  return c;
}

void expect_three_processes(const sample& s) {
  ASSERT_EQ(s.processes.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.processes[i].process.pid, static_cast<std::int64_t>(11 + i));
    EXPECT_EQ(s.processes[i].process.used, 100u * (i + 1));
  }
}

TEST_F(NvmlSourceTest, ReadsThirtyTwoByteRecordsOnDriver535) {
  auto source = open(three_processes("535.54.03", 32));
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->capabilities().process_record_bytes, 32u);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  expect_three_processes(*s);
}

TEST_F(NvmlSourceTest, ReadsTwentyFourByteRecordsOnFixed535Release) {
  auto source = open(three_processes("535.104.05", 24));
  ASSERT_TRUE(source);
  EXPECT_EQ((*source)->capabilities().process_record_bytes, 24u);
  expect_three_processes(*(*source)->read());
}

TEST_F(NvmlSourceTest, Detects535RecordsFromSymbolsWhenDriverVersionIsUnknown) {
  auto source = open(three_processes("", 32), VRAMSCOPE_FAKE_NVML_535);
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->capabilities().process_record_bytes, 32u);
  expect_three_processes(*(*source)->read());
}

TEST_F(NvmlSourceTest, FallsBackToV2ProcessesAndV1MemoryOnOldDrivers) {
  auto source = open(two_gpus(), VRAMSCOPE_FAKE_NVML_OLD);
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->capabilities().process_api, 2);
  EXPECT_EQ((*source)->capabilities().memory_api, 1);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gpus[0].gpu.used, 2000000000u + 520809984u) << "v1 'used' includes reserved";
  EXPECT_FALSE(s->gpus[0].gpu.reserved.has_value());
  EXPECT_EQ(s->processes.size(), 4u);
}

TEST_F(NvmlSourceTest, FallsBackToV1ProcessRecords) {
  auto source = open(three_processes("", 24), VRAMSCOPE_FAKE_NVML_V1);
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->capabilities().process_api, 1);
  EXPECT_EQ((*source)->capabilities().process_record_bytes, 16u);
  expect_three_processes(*(*source)->read());
}

TEST_F(NvmlSourceTest, FallsBackWhenV3AnswersFunctionNotFound) {
  auto config = three_processes("550.54.15", 24);
  config["devices"][0]["errors"] = {{"nvmlDeviceGetComputeRunningProcesses_v3", 13}};
  auto source = open(config);
  ASSERT_TRUE(source);
  expect_three_processes(*(*source)->read());
  expect_three_processes(*(*source)->read());
  EXPECT_EQ((*source)->capabilities().process_api, 2);
  EXPECT_EQ(calls(VRAMSCOPE_FAKE_NVML_FULL, "nvmlDeviceGetComputeRunningProcesses_v3"), 1)
      << "v3 is not tried again after it failed";
}

TEST_F(NvmlSourceTest, FallsBackToV1MemoryWhenV2RejectsTheVersion) {
  auto config = two_gpus();
  config["devices"][0]["errors"] = {{"nvmlDeviceGetMemoryInfo_v2", 25}};
  auto source = open(config);
  ASSERT_TRUE(source);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gpus[0].gpu.used, 2000000000u + 520809984u);
  EXPECT_EQ((*source)->capabilities().memory_api, 1);
}

TEST_F(NvmlSourceTest, RetriesWhileTheProcessListGrows) {
  auto config = three_processes("550.54.15", 24);
  config["devices"][0]["insufficient_times"] = 3;
  auto source = open(config);
  ASSERT_TRUE(source);
  expect_three_processes(*(*source)->read());
  // One count query, three answers of INSUFFICIENT_SIZE, then the list.
  EXPECT_EQ(calls(VRAMSCOPE_FAKE_NVML_FULL, "nvmlDeviceGetComputeRunningProcesses_v3"), 5);
}

TEST_F(NvmlSourceTest, LostGpuIsAWarningNotACrash) {
  auto config = two_gpus();
  config["devices"][1]["lost_after"] = 1;
  auto source = open(config);
  ASSERT_TRUE(source);
  auto first = (*source)->read();
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->gpus[1].lost);
  auto second = (*source)->read();
  ASSERT_TRUE(second) << second.error().to_string();
  ASSERT_EQ(second->gpus.size(), 2u);
  EXPECT_FALSE(second->gpus[0].lost);
  EXPECT_EQ(second->gpus[0].gpu.used, 2000000000u);
  EXPECT_TRUE(second->gpus[1].lost);
  EXPECT_FALSE(second->gpus[1].gpu.used.has_value());
  EXPECT_EQ(second->processes.size(), 3u) << "the lost GPU's process is gone";
  ASSERT_EQ(second->warnings.size(), 1u);
  EXPECT_EQ(second->warnings[0].to_string(),
            "nvml: GPU 1 is lost (GPU is lost); its figures are left out until it answers again");
  auto third = (*source)->read();
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->gpus[1].lost);
  EXPECT_TRUE(third->warnings.empty()) << "warned once";
}

TEST_F(NvmlSourceTest, GpuMissingFromTheCountIsAWarning) {
  auto config = two_gpus();
  config["count_after"] = {2, 1};  // open and the first read see two GPUs
  auto source = open(config);
  ASSERT_TRUE(source);
  ASSERT_EQ((*source)->read()->gpus.size(), 2u);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gpus.size(), 1u);
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].message,
            "NVML now counts 1 GPU, 2 before: a GPU fell off the bus or its driver was reset");
}

TEST_F(NvmlSourceTest, UnsupportedUtilisationIsWarnedOnce) {
  auto config = two_gpus();
  config["devices"][0]["errors"] = {{"nvmlDeviceGetUtilizationRates", 3}};
  auto source = open(config);
  ASSERT_TRUE(source);
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->gpus[0].gpu.utilization_gpu.has_value());
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].to_string(), "nvml: GPU 0: utilisation unavailable: Not Supported");
  EXPECT_TRUE((*source)->read()->warnings.empty());
}

TEST_F(NvmlSourceTest, MissingLibraryIsADiagnostic) {
  auto source = open(two_gpus(), "/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().source, "nvml");
  EXPECT_EQ(source.error().message.rfind("cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u)
      << source.error().message;
}

TEST_F(NvmlSourceTest, LibraryWithoutRequiredSymbolIsRejected) {
  auto source = open(two_gpus(), VRAMSCOPE_FAKE_NVML_BROKEN);
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().message,
            std::string(VRAMSCOPE_FAKE_NVML_BROKEN) +
                ": symbol nvmlDeviceGetCount_v2 not found; is this NVIDIA's NVML library?");
}

TEST_F(NvmlSourceTest, InitFailureCarriesNvmlMessage) {
  auto source = open(json{{"init_error", 9}});
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().message,
            std::string(VRAMSCOPE_FAKE_NVML_FULL) + ": nvmlInit failed: Driver Not Loaded");
}

TEST_F(NvmlSourceTest, NoDeviceIsAnError) {
  auto source = open(json{{"devices", json::array()}});
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().message, std::string(VRAMSCOPE_FAKE_NVML_FULL) + ": NVML sees no GPU");
}

TEST_F(NvmlSourceTest, LibraryPathComesFromTheEnvironment) {
  scoped_env library("VRAMSCOPE_NVML_LIBRARY", VRAMSCOPE_FAKE_NVML_FULL);
  auto source = open(two_gpus(), "");
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->capabilities().library, VRAMSCOPE_FAKE_NVML_FULL);
}

TEST(NvmlDriverVersion, KnowsWhich535ReleasesUse32ByteRecords) {
  EXPECT_TRUE(nvml::driver_has_32_byte_process_records("535.43.02"));
  EXPECT_TRUE(nvml::driver_has_32_byte_process_records("535.98"));
  EXPECT_FALSE(nvml::driver_has_32_byte_process_records("535.104.05"));
  EXPECT_FALSE(nvml::driver_has_32_byte_process_records("535.42.01"));
  EXPECT_FALSE(nvml::driver_has_32_byte_process_records("550.54.15"));
  EXPECT_FALSE(nvml::driver_has_32_byte_process_records("garbage"));
  EXPECT_FALSE(nvml::driver_has_32_byte_process_records(""));
}

}  // namespace
}  // namespace vramscope::watch
