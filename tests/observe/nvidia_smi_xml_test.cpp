#include <vramscope/observe/nvidia_smi.hpp>

#include <gtest/gtest.h>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

TEST(NvidiaSmiXml, ReadsCase1WithReservedMemory) {
  auto o = parse_nvidia_smi_xml(data("smi_case1_v12.xml"), "smi.xml");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->driver_version, "535.183.01");
  EXPECT_EQ(o->cuda_version, "12.2");
  ASSERT_EQ(o->gpus.size(), 2u);
  const auto& g = o->gpus[1];
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.uuid, "GPU-6a0e9d3b-41c2-8d7e-a2b5-0c4f9e8d7b22");
  EXPECT_EQ(g.bus_id, "00000000:0F:00.0");
  EXPECT_EQ(g.total, 81920 * MiB);
  EXPECT_EQ(g.reserved, 531 * MiB);
  EXPECT_EQ(g.used, 74161 * MiB);
  EXPECT_EQ(g.free, 7228 * MiB);
  EXPECT_EQ(g.utilization_gpu, 0);
  ASSERT_EQ(o->processes.size(), 2u);
  EXPECT_EQ(o->processes[1].gpu_index, 1);
  EXPECT_EQ(o->processes[1].gpu_bus_id, "00000000:0F:00.0");
  EXPECT_EQ(o->processes[1].pid, 412097);
  EXPECT_EQ(o->processes[1].used, 73728 * MiB);
}

TEST(NvidiaSmiXml, DoesNotConfuseBar1WithFramebuffer) {
  auto o = parse_nvidia_smi_xml(data("smi_rtx4070_v12.xml"), "smi.xml");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 1u);
  EXPECT_EQ(o->gpus[0].total, 8188 * MiB);  // bar1 total is 8192 MiB
  EXPECT_EQ(o->gpus[0].used, 2026 * MiB);
  EXPECT_EQ(o->gpus[0].utilization_memory, 30);
  ASSERT_EQ(o->processes.size(), 1u);
  EXPECT_EQ(o->processes[0].type, "G");
  EXPECT_EQ(o->processes[0].name, "/run/current-system/sw/bin/Hyprland");
  EXPECT_EQ(o->processes[0].used, 1448 * MiB);
}

TEST(NvidiaSmiXml, OldDriversHaveNoReservedElement) {
  auto o = parse_nvidia_smi_xml(data("smi_v11_no_reserved.xml"), "smi.xml");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_FALSE(o->gpus[0].reserved);
  EXPECT_EQ(o->gpus[0].used, 15360 * MiB);
  EXPECT_EQ(o->gpus[0].utilization_gpu, 58);
}

TEST(NvidiaSmiXml, UnifiedMemoryGpusReportNoFramebufferFigures) {
  auto o = parse_nvidia_smi_xml(data("smi_v13_uma.xml"), "smi.xml");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_FALSE(o->gpus[0].total);
  EXPECT_FALSE(o->gpus[0].used);
  EXPECT_FALSE(o->gpus[0].utilization_gpu);
  ASSERT_EQ(o->processes.size(), 2u);
  EXPECT_FALSE(o->processes[0].used);  // "[N/A]"
  EXPECT_EQ(o->processes[1].name, "");
  EXPECT_EQ(o->processes[1].used, 2048 * MiB);
  EXPECT_FALSE(o->processes[1].gpu_instance);
}

TEST(NvidiaSmiXml, RejectsXmlThatIsNotNvidiaSmis) {
  auto o = parse_nvidia_smi_xml("<?xml version=\"1.0\"?>\n<svg width=\"10\">\n</svg>\n", "smi.xml");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "smi.xml:2:2: expected <nvidia_smi_log> as the root element (nvidia-smi -q -x), found <svg>\n"
            "<svg width=\"10\">\n"
            " ^ near here");
}

TEST(NvidiaSmiXml, RejectsMalformedXmlWithItsPosition) {
  auto o = parse_nvidia_smi_xml("<nvidia_smi_log>\n  <gpu id=\"0\">\n  </gpx>\n</nvidia_smi_log>\n", "smi.xml");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().line, 3);
  EXPECT_EQ(o.error().message, "invalid XML: Start-end tags mismatch");
}

TEST(NvidiaSmiXml, RejectsAMemoryValueThatIsNotASize) {
  const std::string text =
      "<nvidia_smi_log>\n<gpu id=\"00000000:01:00.0\">\n<fb_memory_usage>\n<total>8188 MiB</total>\n"
      "<used>lots</used>\n</fb_memory_usage>\n</gpu>\n</nvidia_smi_log>\n";
  auto o = parse_nvidia_smi_xml(text, "smi.xml");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, "<used>: expected a size such as \"8188 MiB\", got \"lots\"");
  EXPECT_EQ(o.error().line, 5);
}

TEST(NvidiaSmiXml, RejectsAProcessWithoutPid) {
  const std::string text =
      "<nvidia_smi_log><gpu id=\"0\"><processes><process_info><type>C</type></process_info>"
      "</processes></gpu></nvidia_smi_log>";
  auto o = parse_nvidia_smi_xml(text, "smi.xml");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, "<pid>: expected a process id, got \"\"");
}

TEST(NvidiaSmiXml, WarnsWhenNoGpuIsListed) {
  auto o = parse_nvidia_smi_xml("<nvidia_smi_log><attached_gpus>0</attached_gpus></nvidia_smi_log>", "smi.xml");
  ASSERT_TRUE(o);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].to_string(), "smi.xml: <nvidia_smi_log> lists no <gpu> element");
}

}  // namespace
}  // namespace vramscope::observe
