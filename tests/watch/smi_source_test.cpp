#include <vramscope/watch/smi_source.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::scoped_env;
using testing::temp_dir;

constexpr const char* gpus_with_reserved =
    "0, GPU-aaaa, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 81559, 70000, 11000, 559, 88, 40\n"
    "1, GPU-bbbb, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 81559, 1, 81000, 559, [N/A], 0\n";
constexpr const char* gpus_without_reserved =
    "0, GPU-aaaa, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 81559, 70559, 11000, 88, 40\n";
constexpr const char* apps =
    "GPU-aaaa, 4242, 69000, /usr/bin/python3\n"
    "GPU-aaaa, 4243, 500, python3 train.py --name a,b\n";

TEST(SmiSample, ReadsGpusAndProcessesFromNoHeaderCsv) {
  auto s = sample_from_smi(gpus_with_reserved, apps, true);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->gpus.size(), 2u);
  const auto& g = s->gpus[0].gpu;
  EXPECT_EQ(g.index, 0);
  EXPECT_EQ(g.uuid, "GPU-aaaa");
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.bus_id, "00000000:18:00.0");
  EXPECT_EQ(g.total, 81559 * MiB);
  EXPECT_EQ(g.used, 70000 * MiB);
  EXPECT_EQ(g.reserved, 559 * MiB);
  EXPECT_EQ(g.utilization_gpu, 88);
  EXPECT_FALSE(s->gpus[1].gpu.utilization_gpu.has_value()) << "[N/A] is empty";
  ASSERT_EQ(s->processes.size(), 2u);
  EXPECT_EQ(s->processes[0].process.pid, 4242);
  EXPECT_EQ(s->processes[0].process.gpu_index, 0);
  EXPECT_EQ(s->processes[0].process.used, 69000 * MiB);
  EXPECT_EQ(s->processes[1].process.name, "python3 train.py --name a,b");
}

TEST(SmiSample, ProcessOnUnlistedGpuIsAWarning) {
  auto s = sample_from_smi(gpus_without_reserved, "GPU-zzzz, 7, 10, x\n", false);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->warnings.size(), 1u);
  EXPECT_EQ(s->warnings[0].message,
            "process 7 is on GPU GPU-zzzz, which the GPU query did not list");
  EXPECT_FALSE(s->processes[0].process.gpu_index.has_value());
}

TEST(SmiSample, MalformedRowIsAnError) {
  auto s = sample_from_smi("0, GPU-aaaa, X, 0000, lots, 1, 1, 1, 1, 1\n", "", true);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().to_string().find("memory.total: expected a size"), std::string::npos)
      << s.error().to_string();
}

class SmiSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("gpus.csv", gpus_with_reserved);
    dir_.write("apps.csv", apps);
  }
  std::string program() const { return testing::data_path("fake-nvidia-smi"); }
  temp_dir dir_;
  scoped_env env_{"FAKE_SMI_DIR", dir_.path()};
};

TEST_F(SmiSourceTest, RunsNvidiaSmiAndParsesIt) {
  auto source = smi_source::open(program());
  ASSERT_TRUE(source) << source.error().to_string();
  EXPECT_EQ((*source)->name(), "nvidia-smi");
  auto s = (*source)->read();
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->gpus.size(), 2u);
  EXPECT_EQ(s->processes.size(), 2u);
}

TEST_F(SmiSourceTest, AsksAgainWithoutMemoryReservedOnOldDrivers) {
  dir_.write("no-reserved", "");
  dir_.write("gpus.csv", gpus_without_reserved);
  auto source = smi_source::open(program());
  ASSERT_TRUE(source) << source.error().to_string();
  auto s = (*source)->read();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->gpus[0].gpu.used, 70559 * MiB);
  EXPECT_FALSE(s->gpus[0].gpu.reserved.has_value());
}

TEST_F(SmiSourceTest, ReportsNvidiaSmiFailure) {
  dir_.write("fail", "No devices were found\n");
  auto source = smi_source::open(program());
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().to_string(), program() + ": No devices were found");
}

// A driver reset ("No devices were found") after watch started does not end it: the GPUs are
// reported lost under their labels, and nvidia-smi is asked again after the back-off.
TEST_F(SmiSourceTest, AFailedReadMarksTheGpusLostAndRetriesAfterABackOff) {
  auto source = smi_source::open(program());
  ASSERT_TRUE(source) << source.error().to_string();
  dir_.write("fail", "No devices were found\n");
  auto lost = (*source)->read();
  ASSERT_TRUE(lost) << lost.error().to_string();
  ASSERT_EQ(lost->gpus.size(), 2u);
  EXPECT_TRUE(lost->gpus[0].lost);
  EXPECT_EQ(lost->gpus[0].gpu.uuid, "GPU-aaaa");
  EXPECT_EQ(lost->gpus[1].gpu.index, 1);
  EXPECT_EQ(lost->gpus[1].gpu.name, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(lost->gpus[0].gpu.used.has_value());
  EXPECT_TRUE(lost->processes.empty());
  ASSERT_EQ(lost->warnings.size(), 1u);
  EXPECT_EQ(lost->warnings[0].message,
            "No devices were found; its GPUs are marked lost, asking again in 1 s");
  // Within the back-off nvidia-smi is not asked: answering again changes nothing yet.
  std::filesystem::remove(std::filesystem::path(dir_.path()) / "fail");
  auto waiting = (*source)->read();
  ASSERT_TRUE(waiting);
  EXPECT_TRUE(waiting->gpus[0].lost);
  EXPECT_TRUE(waiting->warnings.empty()) << "warned once, when it failed";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto back = (*source)->read();
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_FALSE(back->gpus[0].lost);
  EXPECT_EQ(back->gpus[0].gpu.used, 70000 * MiB);
  EXPECT_EQ(back->processes.size(), 2u);
}

TEST(SmiRetry, TheBackOffDoublesUpToAMinute) {
  EXPECT_EQ(smi_retry_delay(1).count(), 1);
  EXPECT_EQ(smi_retry_delay(2).count(), 2);
  EXPECT_EQ(smi_retry_delay(6).count(), 32);
  EXPECT_EQ(smi_retry_delay(7).count(), 60);
  EXPECT_EQ(smi_retry_delay(1000).count(), 60);
}

TEST_F(SmiSourceTest, MissingProgramIsNotFound) {
  auto source = smi_source::open("/nonexistent/nvidia-smi");
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().to_string(), "/nonexistent/nvidia-smi: not found");
}

TEST_F(SmiSourceTest, ProgramComesFromTheEnvironment) {
  scoped_env smi("VRAMSCOPE_NVIDIA_SMI", program());
  auto source = smi_source::open();
  ASSERT_TRUE(source) << source.error().to_string();
}

}  // namespace
}  // namespace vramscope::watch
