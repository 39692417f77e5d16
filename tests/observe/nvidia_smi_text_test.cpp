// `nvidia-smi -q` plain text: hand-made excerpts in the layout of real logs (the real ones are in
// tests/data/realworld/smi_q/), and the failure cases one by one with their exact messages.
#include <vramscope/observe/nvidia_smi.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>

namespace vramscope::observe {
namespace {

const std::string banner = "\n==============NVSMI LOG==============\n\n";

const std::string two_gpus = banner +
                             "Driver Version                            : 550.127.05\n"
                             "CUDA Version                              : 12.4\n"
                             "\n"
                             "Attached GPUs                             : 2\n"
                             "GPU 00000000:4F:00.0\n"
                             "    Product Name                          : NVIDIA A40\n"
                             "    GPU UUID                              : GPU-4e65de01\n"
                             "    FB Memory Usage\n"
                             "        Total                             : 46068 MiB\n"
                             "        Reserved                          : 665 MiB\n"
                             "        Used                              : 1 MiB\n"
                             "        Free                              : 45403 MiB\n"
                             "    BAR1 Memory Usage\n"
                             "        Total                             : 65536 MiB\n"
                             "        Used                              : 1 MiB\n"
                             "        Free                              : 65535 MiB\n"
                             "    Utilization\n"
                             "        Gpu                               : 7 %\n"
                             "        Memory                            : 0 %\n"
                             "    Processes                             : None\n"
                             "\n"
                             "GPU 00000000:52:00.0\n"
                             "    Product Name                          : NVIDIA A40\n"
                             "    FB Memory Usage\n"
                             "        Total                             : 46068 MiB\n"
                             "        Used                              : 3000 MiB\n"
                             "        Free                              : 43068 MiB\n"
                             "    Processes\n"
                             "        GPU instance ID                   : N/A\n"
                             "        Compute instance ID               : N/A\n"
                             "        Process ID                        : 2936\n"
                             "            Type                          : C\n"
                             "            Name                          : python\n"
                             "            Used GPU Memory               : 2990 MiB\n"
                             "        GPU instance ID                   : N/A\n"
                             "        Compute instance ID               : N/A\n"
                             "        Process ID                        : 4824\n"
                             "            Type                          : C+G\n"
                             "            Name                          : C:\\Windows\\explorer.exe\n"
                             "            Used GPU Memory               : Not available in WDDM driver model\n";

TEST(NvidiaSmiText, IsDetectedByItsBanner) {
  EXPECT_EQ(detect_smi_format(two_gpus), smi_format::text);
  EXPECT_EQ(detect_observation_format(two_gpus), observation_format::smi_text);
}

TEST(NvidiaSmiText, ReadsEachGpuBlockAndItsProcesses) {
  auto o = parse_nvidia_smi(two_gpus, "q.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->driver_version, "550.127.05");
  EXPECT_EQ(o->cuda_version, "12.4");
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[0].index, 0);
  EXPECT_EQ(o->gpus[0].name, "NVIDIA A40");
  EXPECT_EQ(o->gpus[0].uuid, "GPU-4e65de01");
  EXPECT_EQ(o->gpus[0].bus_id, "00000000:4F:00.0");
  EXPECT_EQ(o->gpus[0].total, 46068 * MiB);  // not BAR1's 65536 MiB
  EXPECT_EQ(o->gpus[0].reserved, 665 * MiB);
  EXPECT_EQ(o->gpus[0].used, 1 * MiB);
  EXPECT_EQ(o->gpus[0].free, 45403 * MiB);
  EXPECT_EQ(o->gpus[0].utilization_gpu, 7);
  EXPECT_FALSE(o->gpus[1].reserved);  // drivers before 510 do not print it
  ASSERT_EQ(o->processes.size(), 2u);
  EXPECT_EQ(o->processes[0].gpu_index, 1);
  EXPECT_EQ(o->processes[0].gpu_bus_id, "00000000:52:00.0");
  EXPECT_EQ(o->processes[0].pid, 2936);
  EXPECT_EQ(o->processes[0].type, "C");
  EXPECT_EQ(o->processes[0].name, "python");
  EXPECT_EQ(o->processes[0].used, 2990 * MiB);
  EXPECT_FALSE(o->processes[0].gpu_instance);
  EXPECT_EQ(o->processes[1].name, "C:\\Windows\\explorer.exe");
  EXPECT_FALSE(o->processes[1].used);  // WDDM
}

TEST(NvidiaSmiText, MigDevicesOwnMemoryIsNotTheGpus) {
  const std::string text = banner +
                           "GPU 00000000:00:09.0\n"
                           "    MIG Devices\n"
                           "        MIG Device\n"
                           "            Shared FB Memory Usage\n"
                           "                Total                     : 40448 MiB\n"
                           "                Used                      : 11091 MiB\n"
                           "    FB Memory Usage\n"
                           "        Total                             : 81559 MiB\n"
                           "        Used                              : 11125 MiB\n"
                           "    Processes\n"
                           "        GPU instance ID                   : 2\n"
                           "        Compute instance ID               : 0\n"
                           "        Process ID                        : 21180\n"
                           "            Used GPU Memory               : 2296 MiB\n";
  auto o = parse_nvidia_smi_text(text, "q.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->gpus[0].total, 81559 * MiB);
  ASSERT_EQ(o->processes.size(), 1u);
  EXPECT_EQ(o->processes[0].gpu_instance, 2);
  EXPECT_EQ(o->processes[0].compute_instance, 0);
}

TEST(NvidiaSmiText, Driver610DeprecationNoteIsNotPartOfTheVersion) {
  auto o = parse_nvidia_smi_text(banner + "Driver Version : 610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD "
                                          "Version instead]\nGPU 00000000:0C:00.0\n",
                                 "q.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->driver_version, "610.62");
}

TEST(NvidiaSmiText, WarnsWhenNoGpuIsListed) {
  auto o = parse_nvidia_smi_text(banner + "Driver Version : 550.54.14\n", "q.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].to_string(), "q.txt: nvidia-smi -q lists no \"GPU <bus id>\" block");
}

TEST(NvidiaSmiText, RejectsTextWithoutTheBanner) {
  auto o = parse_nvidia_smi_text("GPU 00000000:0C:00.0\n", "q.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "q.txt: expected the \"==============NVSMI LOG==============\" banner of nvidia-smi -q");
}

TEST(NvidiaSmiText, RejectsMemoryThatIsNotASize) {
  auto o = parse_nvidia_smi_text(banner + "GPU 00000000:0C:00.0\n    FB Memory Usage\n        Total : lots\n", "q.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "q.txt:6:17: Total: expected a size such as \"8188 MiB\", got \"lots\"\n"
            "        Total : lots\n"
            "                ^ near here");
}

TEST(NvidiaSmiText, RejectsAProcessIdThatIsNotANumber) {
  auto o = parse_nvidia_smi_text(banner + "GPU 00000000:0C:00.0\n    Processes\n        Process ID : abc\n", "q.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "q.txt:6:22: Process ID: expected a process id, got \"abc\"\n"
            "        Process ID : abc\n"
            "                     ^ near here");
}

TEST(NvidiaSmiText, RejectsAUtilisationThatIsNotAPercentage) {
  auto o = parse_nvidia_smi_text(banner + "GPU 00000000:0C:00.0\n    Utilization\n        Gpu : 250 %\n", "q.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "q.txt:6:15: Utilization Gpu: expected a percentage such as \"30 %\", got \"250 %\"\n"
            "        Gpu : 250 %\n"
            "              ^ near here");
}

}  // namespace
}  // namespace vramscope::observe
