#include <vramscope/observe/nvidia_smi.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

TEST(NvidiaSmiTable, ReadsCase1JaxOnTwoA100s) {
  auto o = parse_nvidia_smi_table(data("smi_case1_2xa100_jax.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->driver_version, "535.183.01");
  EXPECT_EQ(o->cuda_version, "12.2");
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[0].index, 0);
  EXPECT_EQ(o->gpus[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(o->gpus[0].bus_id, "00000000:07:00.0");
  EXPECT_EQ(o->gpus[1].used, 74161 * MiB);
  EXPECT_EQ(o->gpus[1].total, 81920 * MiB);
  EXPECT_EQ(o->gpus[1].utilization_gpu, 0);
  EXPECT_FALSE(o->gpus[1].free);  // the table does not print it
  ASSERT_EQ(o->processes.size(), 2u);
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(o->processes[static_cast<std::size_t>(g)].gpu_index, g);
    EXPECT_EQ(o->processes[static_cast<std::size_t>(g)].pid, 412097);
    EXPECT_EQ(o->processes[static_cast<std::size_t>(g)].type, "C");
    EXPECT_EQ(o->processes[static_cast<std::size_t>(g)].name, "python");
    EXPECT_EQ(o->processes[static_cast<std::size_t>(g)].used, 73728 * MiB);
    EXPECT_FALSE(o->processes[static_cast<std::size_t>(g)].gpu_instance);
  }
}

TEST(NvidiaSmiTable, ReadsCase5EightPidsOnGpuZero) {
  auto o = parse_nvidia_smi_table(data("smi_case5_8xh100_ddp.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 8u);
  EXPECT_EQ(o->gpus[0].used, 42087 * MiB);
  EXPECT_EQ(o->gpus[7].total, 81559 * MiB);
  EXPECT_EQ(o->gpus[7].bus_id, "00000000:DB:00.0");
  EXPECT_EQ(o->gpus[3].utilization_gpu, 97);
  std::vector<int> per_gpu(8, 0);
  for (const auto& p : o->processes) ++per_gpu[static_cast<std::size_t>(*p.gpu_index)];
  EXPECT_EQ(per_gpu, (std::vector<int>{8, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(o->processes[1].used, 514 * MiB);
  EXPECT_EQ(o->processes[1].name, "/opt/conda/bin/python3.11");
}

TEST(NvidiaSmiTable, ReadsTheOldLayoutWithoutGiCi) {
  auto o = parse_nvidia_smi_table(data("smi_old_440.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[0].name, "GeForce GTX 108...");
  EXPECT_EQ(o->gpus[0].used, 10916 * MiB);
  EXPECT_EQ(o->gpus[0].total, 11175 * MiB);
  EXPECT_EQ(o->gpus[0].utilization_gpu, 59);
  ASSERT_EQ(o->processes.size(), 3u);
  EXPECT_EQ(o->processes[1].pid, 28311);
  EXPECT_EQ(o->processes[1].name, "python train.py --config a,b");
  EXPECT_EQ(o->processes[1].used, 1012 * MiB);
}

TEST(NvidiaSmiTable, ReadsNotAvailableMemoryAndCombinedTypes) {
  auto o = parse_nvidia_smi_table(data("smi_windows_na.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->processes.size(), 3u);
  EXPECT_EQ(o->processes[0].type, "C+G");
  EXPECT_EQ(o->processes[0].name, "C:\\Windows\\explorer.exe");
  EXPECT_FALSE(o->processes[0].used);
  EXPECT_EQ(o->processes[2].type, "C");
}

TEST(NvidiaSmiTable, SkipsTheMigTableWithAWarning) {
  auto o = parse_nvidia_smi_table(data("smi_mig.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 1u);
  EXPECT_FALSE(o->gpus[0].utilization_gpu);  // "N/A"
  ASSERT_EQ(o->processes.size(), 1u);
  EXPECT_EQ(o->processes[0].gpu_instance, 1);
  EXPECT_EQ(o->processes[0].compute_instance, 0);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].to_string(), "smi.txt:14: the MIG devices table is not read");
}

TEST(NvidiaSmiTable, RejectsAGpuRowWithoutItsMemoryRow) {
  const std::string text =
      "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
      "+-----------------------------------------+----------------------+----------------------+\n";
  auto o = parse_nvidia_smi_table(text, "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "smi.txt:2: expected GPU 0's memory row (\"used MiB / total MiB\") after its name row\n"
            "+-----------------------------------------+----------------------+----------------------+\n"
            "^ near here");
}

TEST(NvidiaSmiTable, RejectsATableCutAfterAGpuRow) {
  auto o = parse_nvidia_smi_table("|   0  Tesla P4   Off |   00000000:86:00.0 Off |   Off |", "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, "GPU 0's row is the last line: its memory row is missing (is the table cut off?)");
}

// A screen cut off: what comes before the cut is read, and a warning names what is missing.
std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(NvidiaSmiTable, AWholeScreenHasNoCut) {
  auto o = parse_nvidia_smi_table(data("smi_case5_8xh100_ddp.txt"), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_TRUE(o->process_table);
  EXPECT_FALSE(o->processes_cut_from_gpu);
  EXPECT_TRUE(o->warnings.empty()) << o->warnings[0].to_string();
}

TEST(NvidiaSmiTable, ReadsAProcessListCutAfterSomeRows) {
  const std::string text = data("smi_case5_8xh100_ddp.txt");
  const std::size_t gpu2 = text.find("|    2   N/A  N/A   2190443");
  ASSERT_NE(gpu2, std::string::npos);
  auto o = parse_nvidia_smi_table(text.substr(0, gpu2), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->gpus.size(), 8u);
  EXPECT_EQ(o->processes.size(), 9u);  // GPU 0's eight and GPU 1's first
  EXPECT_TRUE(o->process_table);
  EXPECT_EQ(o->processes_cut_from_gpu, 1);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].message,
            "nvidia-smi's process list is cut off after this line: processes of GPU 1 and higher may be missing "
            "from the paste, so whether memory there is held by unlisted processes is undecided");
  EXPECT_EQ(o->warnings[0].line, static_cast<int>(line_count(text.substr(0, gpu2))));
}

TEST(NvidiaSmiTable, DropsAProcessRowCutInTheMiddle) {
  const std::string text = data("smi_case5_8xh100_ddp.txt");
  const std::size_t gpu2 = text.find("|    2   N/A  N/A   2190443");
  auto o = parse_nvidia_smi_table(text.substr(0, gpu2) + "|    2   N/A  N/A   2190443      C   /opt/co", "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->processes.size(), 9u);
  EXPECT_EQ(o->processes_cut_from_gpu, 1);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].line, static_cast<int>(line_count(text.substr(0, gpu2))) + 1);
  EXPECT_EQ(o->warnings[0].message.find("nvidia-smi's process list is cut off in the middle of this row (dropped)"),
            0u);
}

TEST(NvidiaSmiTable, ReadsAScreenCutBeforeItsProcessList) {
  const std::string text = data("smi_case5_8xh100_ddp.txt");
  const std::size_t processes = text.find("| Processes:");
  auto o = parse_nvidia_smi_table(text.substr(0, processes), "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->gpus.size(), 8u);
  EXPECT_FALSE(o->process_table);
  EXPECT_FALSE(o->processes_cut_from_gpu);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_EQ(o->warnings[0].message,
            "nvidia-smi's screen ends before its process list: who holds the memory is not in the paste");
}

TEST(NvidiaSmiTable, DropsAGpuWhoseMemoryRowIsCutOff) {
  const std::string text = data("smi_case1_2xa100_jax.txt");
  const std::size_t gpu1 = text.find("|   1  NVIDIA A100");
  ASSERT_NE(gpu1, std::string::npos);
  const std::size_t memory1 = text.find('\n', gpu1) + 1;
  for (const std::string& cut : {text.substr(0, memory1), text.substr(0, memory1 + 30)}) {
    auto o = parse_nvidia_smi_table(cut, "smi.txt");
    ASSERT_TRUE(o) << o.error().to_string();
    ASSERT_EQ(o->gpus.size(), 1u);
    EXPECT_EQ(o->gpus[0].index, 0);
    ASSERT_GE(o->warnings.size(), 1u);
    EXPECT_NE(o->warnings[0].message.find("GPU 1's"), std::string::npos) << o->warnings[0].message;
    EXPECT_NE(o->warnings[0].message.find(": that GPU is not read"), std::string::npos);
  }
}

TEST(NvidiaSmiTable, RejectsAMemoryCellThatIsNotASize) {
  const std::string text =
      "|   0  Tesla P4                       Off |   00000000:86:00.0 Off |                  Off |\n"
      "| N/A   49C    P0             24W /   75W |    77x9MiB /   8192MiB |      6%      Default |\n";
  auto o = parse_nvidia_smi_table(text, "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, "expected \"used MiB / total MiB\", got \"77x9MiB /   8192MiB\"");
  EXPECT_EQ(o.error().line, 2);
  EXPECT_EQ(o.error().column, 48);
}

TEST(NvidiaSmiTable, RejectsAProcessRowWithoutAType) {
  const std::string text =
      "| Processes:                                                                  |\n"
      "|    0   N/A  N/A     10734      X   python                              160MiB |\n";
  auto o = parse_nvidia_smi_table(text, "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "smi.txt:2:34: expected a process type (C, G, C+G, M+C) after the PID, got \"X\"\n"
            "|    0   N/A  N/A     10734      X   python                              160MiB |\n"
            "                                 ^ near here");
}

TEST(NvidiaSmiTable, RejectsAProcessMemoryThatIsNotASize) {
  const std::string text =
      "| Processes:                                                                  |\n"
      "|    0     28290      C   python                                      lots |\n";
  auto o = parse_nvidia_smi_table(text, "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().message, "expected GPU memory such as \"160MiB\" or \"N/A\", got \"lots\"");
}

TEST(NvidiaSmiTable, RejectsTextWithoutRows) {
  auto o = parse_nvidia_smi_table("+------+\n| hello |\n+------+\n", "smi.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "smi.txt: no GPU rows and no process rows found: expected the table printed by nvidia-smi");
}

TEST(NvidiaSmiDetect, TellsTheThreeFormatsApart) {
  EXPECT_EQ(detect_smi_format(data("smi_case1_2xa100_jax.txt")), smi_format::table);
  EXPECT_EQ(detect_smi_format(data("smi_case1_query_gpu.csv")), smi_format::csv);
  EXPECT_EQ(detect_smi_format(data("smi_case1_v12.xml")), smi_format::xml);
  EXPECT_FALSE(detect_smi_format("hello world\n"));
  auto o = parse_nvidia_smi("hello world\n", "x.txt");
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().to_string(),
            "x.txt: could not tell the nvidia-smi format: expected the default table, --query-*=... "
            "--format=csv output, -q text or -q -x XML");
}

// The table's GPU rows pasted alone (no header, borders or process list): read as GPU rows,
// with a warning that names what is missing; a paste without the memory cell is not a table.
TEST(NvidiaSmiTable, ReadsGpuRowsPastedWithoutTheHeader) {
  const std::string rows = "|   0  TITAN X (Pascal)    Off  | 00000000:02:00.0 Off |                  N/A |\n"
                           "| 33%   55C    P8    14W / 250W |   2417MiB / 12189MiB |      0%      Default |\n";
  EXPECT_EQ(detect_smi_format(rows), smi_format::table);
  auto o = parse_nvidia_smi(rows, "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 1u);
  EXPECT_EQ(o->gpus[0].index, 0);
  EXPECT_EQ(o->gpus[0].used, 2417 * MiB);
  EXPECT_EQ(o->gpus[0].total, 12189 * MiB);
  EXPECT_FALSE(o->process_table);
  ASSERT_EQ(o->warnings.size(), 1u);
  EXPECT_NE(o->warnings[0].message.find("process list are missing"), std::string::npos) << o->warnings[0].message;
  // With its header the same rows carry no warning.
  auto full = parse_nvidia_smi_table(data("smi_case1_2xa100_jax.txt"), "smi.txt");
  ASSERT_TRUE(full);
  for (const auto& w : full->warnings) EXPECT_EQ(w.message.find("without the table's header"), std::string::npos);
  EXPECT_FALSE(detect_smi_format("| a | b | c |\n| d | e | f |\n"));
}

// The process list pasted with its own header ("Processes:", the column names, the "|===|" rule)
// but without the GPU rows above it: read as the process list, with a warning that the GPUs' use
// and size are missing. A header alone, without a process row, is not a table.
TEST(NvidiaSmiTable, ReadsAProcessListPastedWithoutTheGpuRows) {
  const std::string list =
      "| Processes:                                                       GPU Memory |\n"
      "|  GPU       PID  Type  Process name                               Usage      |\n"
      "|=============================================================================|\n"
      "|    0     21515    C   python                                       20747MiB |\n"
      "|    1     21515    C   python                                       17149MiB |\n";
  EXPECT_EQ(detect_smi_format(list), smi_format::table);
  auto o = parse_nvidia_smi(list, "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_TRUE(o->gpus.empty());
  ASSERT_EQ(o->processes.size(), 2u);
  EXPECT_EQ(o->processes[0].gpu_index, 0);
  EXPECT_EQ(o->processes[0].used, 20747 * MiB);
  EXPECT_EQ(o->processes[1].gpu_index, 1);
  ASSERT_FALSE(o->warnings.empty());
  EXPECT_NE(o->warnings.back().message.find("without the GPU rows above it"), std::string::npos)
      << o->warnings.back().message;
  EXPECT_FALSE(
      detect_smi_format("| Processes:                                  GPU Memory |\n"
                        "|  GPU       PID  Type  Process name            Usage      |\n"));
}

TEST(NvidiaSmiTable, WindowsTablesEndTheNameWithTheDriverModel) {
  const std::string text =
      "| NVIDIA-SMI 610.62                 KMD Version: 610.62        CUDA UMD Version: 13.3     |\n"
      "| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      "|   0  NVIDIA GeForce RTX 2080 ...  WDDM  |   00000000:0C:00.0 Off |                  N/A |\n"
      "| 38%   45C    P2             97W /  250W |    1296MiB /   8192MiB |      7%      Default |\n"
      "|   1  Tesla T4            TCC  | 0000503C:00:00.0 Off |                    0 |\n"
      "| N/A   35C    P8    11W /  70W |      8MiB / 15205MiB |      0%      Default |\n"
      "| Processes:                                                                              |\n"
      "|    0   N/A  N/A            2056    C+G   C:\\Windows\\System32\\dwm.exe           N/A      |\n";
  auto o = parse_nvidia_smi_table(text, "smi.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->driver_version, "610.62");
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[0].name, "NVIDIA GeForce RTX 2080 ...");
  EXPECT_EQ(o->gpus[1].name, "Tesla T4");
  ASSERT_EQ(o->processes.size(), 1u);
  EXPECT_EQ(o->processes[0].name, "C:\\Windows\\System32\\dwm.exe");
  EXPECT_FALSE(o->processes[0].used);
}

}  // namespace
}  // namespace vramscope::observe
