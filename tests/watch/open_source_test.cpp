#include <vramscope/watch/gpu_source.hpp>

#include <gtest/gtest.h>

#include "watch/watch_support.hpp"

namespace vramscope::watch {
namespace {

using testing::scoped_env;
using testing::temp_dir;

class OpenSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("gpus.csv", "0, GPU-aaaa, Fake, 0000, 100, 10, 90, 0, 5, 1\n");
    dir_.write("apps.csv", "");
  }
  temp_dir dir_;
  scoped_env config_{"VRAMSCOPE_FAKE_NVML_CONFIG",
                     dir_.write("nvml.json", R"({"devices": [{"uuid": "GPU-n", "total": 8}]})")};
  scoped_env smi_dir_{"FAKE_SMI_DIR", dir_.path()};
};

TEST_F(OpenSourceTest, AutomaticPrefersNvml) {
  auto s = open_gpu_source(
      {source_kind::automatic, VRAMSCOPE_FAKE_NVML_FULL, testing::data_path("fake-nvidia-smi")});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)->name(), "nvml");
}

TEST_F(OpenSourceTest, AutomaticFallsBackToNvidiaSmi) {
  auto s = open_gpu_source({source_kind::automatic, "/nonexistent/libnvidia-ml.so.1",
                            testing::data_path("fake-nvidia-smi")});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ((*s)->name(), "nvidia-smi");
}

TEST_F(OpenSourceTest, NvmlOnlyDoesNotTryNvidiaSmi) {
  auto s = open_gpu_source(
      {source_kind::nvml, "/nonexistent/libnvidia-ml.so.1", testing::data_path("fake-nvidia-smi")});
  ASSERT_FALSE(s);
  EXPECT_EQ(
      s.error().message.rfind("no GPU found: cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u)
      << s.error().message;
  EXPECT_EQ(s.error().message.find("nvidia-smi"), std::string::npos);
}

TEST_F(OpenSourceTest, NoGpuAnywhereSaysWhatWasTried) {
  auto s = open_gpu_source(
      {source_kind::automatic, "/nonexistent/libnvidia-ml.so.1", "/nonexistent/nvidia-smi"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().source, "");
  const auto& m = s.error().message;
  EXPECT_EQ(m.rfind("no GPU found: cannot load /nonexistent/libnvidia-ml.so.1: ", 0), 0u) << m;
  EXPECT_NE(m.find("; /nonexistent/nvidia-smi: not found"), std::string::npos) << m;
}

TEST(SourceKind, ParsesTheThreeNames) {
  EXPECT_EQ(parse_source_kind("auto"), source_kind::automatic);
  EXPECT_EQ(parse_source_kind("nvml"), source_kind::nvml);
  EXPECT_EQ(parse_source_kind("smi"), source_kind::smi);
  EXPECT_EQ(parse_source_kind("nvidia-smi"), source_kind::smi);
  EXPECT_FALSE(parse_source_kind("dcgm").has_value());
}

}  // namespace
}  // namespace vramscope::watch
