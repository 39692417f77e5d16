#include <vramscope/observe/nvidia_smi.hpp>

#include <gtest/gtest.h>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;

TEST(NvidiaSmiCsv, ReadsQueryGpuWithHeaderAndUnits) {
  auto o = parse_nvidia_smi_csv(data("smi_case1_query_gpu.csv"), "gpu.csv");
  ASSERT_TRUE(o) << o.error().to_string();
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
  EXPECT_FALSE(g.utilization_memory);
  EXPECT_TRUE(o->warnings.empty());
}

// A long --query-gpu list names fields in camelCase; that is still a header.
TEST(NvidiaSmiCsv, ReadsAHeaderWithCamelCaseFields) {
  auto o = parse_nvidia_smi_csv(
      "index, name, pci.baseClass, encoder.stats.sessionCount, memory.total [MiB], "
      "memory.used [MiB]\n"
      "0, NVIDIA H100 80GB HBM3, 0x3, 0, 81559 MiB, 1024 MiB\n", "gpu.csv");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 1u);
  EXPECT_EQ(o->gpus[0].total, 81559 * MiB);
  EXPECT_EQ(o->gpus[0].used, 1024 * MiB);
}

TEST(NvidiaSmiCsv, ReadsComputeAppsWithGpuUuid) {
  auto o = parse_nvidia_smi_csv(data("smi_case1_query_apps.csv"), "apps.csv");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->processes.size(), 2u);
  EXPECT_TRUE(o->gpus.empty());
  EXPECT_EQ(o->processes[0].gpu_uuid, "GPU-2f7c1a52-9b1e-6f0d-3c3b-8f1d0e6a4c11");
  EXPECT_EQ(o->processes[0].pid, 412097);
  EXPECT_EQ(o->processes[0].name, "python");
  EXPECT_EQ(o->processes[0].used, 73728 * MiB);
  EXPECT_FALSE(o->processes[0].gpu_index);
}

TEST(NvidiaSmiCsv, ReadsEmptyNamesCommasInNamesAndMissingValues) {
  auto o = parse_nvidia_smi_csv(data("smi_apps_odd_names.csv"), "apps.csv");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->processes.size(), 3u);
  EXPECT_EQ(o->processes[0].name, "/app/llama-server");
  EXPECT_EQ(o->processes[0].used, 23342 * MiB);
  EXPECT_EQ(o->processes[1].name, "");
  EXPECT_EQ(o->processes[1].used, 512 * MiB);
  EXPECT_EQ(o->processes[2].name, "python train.py --tags a,b");
  EXPECT_FALSE(o->processes[2].used);
  ASSERT_EQ(o->warnings.size(), 1u);  // gpu_name is not used for processes
  EXPECT_EQ(o->warnings[0].to_string(), "apps.csv:1: column \"gpu_name\" is not used");
}

TEST(NvidiaSmiCsv, ReadsNoHeaderNoUnitsWithGivenFields) {
  smi_options options;
  options.csv_fields = {"index", "name", "memory.total", "memory.used", "memory.free"};
  auto o = parse_nvidia_smi_csv(data("smi_l40s_noheader_nounits.csv"), "l40s.csv", options);
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[0].total, 46068 * MiB);
  EXPECT_EQ(o->gpus[0].used, 9123 * MiB);
  EXPECT_EQ(o->gpus[1].free, 45470 * MiB);
}

TEST(NvidiaSmiCsv, BracketedValuesAreEmpty) {
  auto o = parse_nvidia_smi_csv(data("smi_gb10_na.csv"), "gb10.csv");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 1u);
  EXPECT_FALSE(o->gpus[0].total);
  EXPECT_FALSE(o->gpus[0].used);
  EXPECT_FALSE(o->gpus[0].free);
}

TEST(NvidiaSmiCsv, AcceptsCommasWithoutSpacesAndRepeatedHeaders) {
  auto o = parse_nvidia_smi_csv("index,memory.used [MiB]\n0,10 MiB\nindex,memory.used [MiB]\n0,12 MiB\n", "loop.csv");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->gpus.size(), 2u);
  EXPECT_EQ(o->gpus[1].used, 12 * MiB);
}

TEST(NvidiaSmiCsv, HeaderOnlyMeansNoProcesses) {
  auto o = parse_nvidia_smi_csv("pid, process_name, used_gpu_memory [MiB]\n", "apps.csv");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->processes.empty());
}

TEST(NvidiaSmiCsv, RejectsRowWithMissingColumn) {
  auto parsed = parse_nvidia_smi_csv("index, memory.used [MiB]\n0\n", "smi.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "smi.csv:2: expected 2 columns, got 1\n"
            "0\n"
            "^ near here");
}

TEST(NvidiaSmiCsv, RejectsTruncatedLastRow) {
  auto parsed = parse_nvidia_smi_csv("index, name, memory.used [MiB]\n0, NVIDIA A100, 100 MiB\n1, NVI", "smi.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "smi.csv:3: expected 3 columns, got 2 (is the file cut off?)\n"
            "1, NVI\n"
            "^ near here");
}

TEST(NvidiaSmiCsv, RejectsRowWithTooManyColumns) {
  auto parsed = parse_nvidia_smi_csv("index, memory.used [MiB]\n0, 1 MiB, 7\n", "smi.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "expected 2 columns, got 3");
}

TEST(NvidiaSmiCsv, RejectsValueThatIsNotASize) {
  auto parsed = parse_nvidia_smi_csv("index, memory.used [MiB]\n0, lots\n", "smi.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "smi.csv:2:4: memory.used: expected a size such as \"1024 MiB\", got \"lots\"\n"
            "0, lots\n"
            "   ^ near here");
}

TEST(NvidiaSmiCsv, RejectsBadPid) {
  auto parsed = parse_nvidia_smi_csv("pid, used_memory [MiB]\n-4, 1 MiB\n", "apps.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "pid: expected a whole number, got \"-4\"");
}

TEST(NvidiaSmiCsv, RejectsNoHeaderWithoutFields) {
  auto parsed = parse_nvidia_smi_csv(data("smi_l40s_noheader_nounits.csv"), "l40s.csv");
  ASSERT_FALSE(parsed);
  // index and name are told by their values; the three nounits memory figures are not.
  EXPECT_EQ(parsed.error().message,
            "CSV without a header row (nvidia-smi --format=csv,noheader): column 3 holds whole "
            "numbers (sizes "
            "in MiB): with nounits a memory figure, and which of memory.used, memory.free and "
            "memory.total "
            "cannot be told from its values; paste the header line nvidia-smi prints without "
            "noheader (e.g. "
            "\"index, memory.used [MiB], memory.total [MiB]\") above the rows");
  EXPECT_EQ(parsed.error().line, 1);
}

// --query-compute-apps=pid,process_name,used_memory --format=csv,noheader: a pid, a path and
// the one size a process list has are named from their values.
TEST(NvidiaSmiCsv, NamesAHeaderlessProcessListsColumnsFromTheirValues) {
  auto parsed = parse_nvidia_smi_csv("4021, /usr/bin/python3, 10240 MiB\n4188, python, 512 MiB\n",
                                     "apps.csv");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->processes.size(), 2u);
  EXPECT_EQ(parsed->processes[0].pid, 4021);
  EXPECT_EQ(parsed->processes[0].name, "/usr/bin/python3");
  EXPECT_EQ(parsed->processes[0].used, 10240 * MiB);
  EXPECT_EQ(parsed->processes[1].used, 512 * MiB);
  ASSERT_FALSE(parsed->warnings.empty());
  EXPECT_EQ(
      parsed->warnings.back().message,
      "CSV without a header row: columns named from their values (pid, process_name, used_memory)");
}

// --query-compute-apps=gpu_uuid,pid,used_memory: no name, still a process list.
TEST(NvidiaSmiCsv, NamesAHeaderlessProcessListWithoutNames) {
  auto parsed = parse_nvidia_smi_csv("GPU-5a3e2c10-aaaa-bbbb-cccc-0123456789ab, 7311, 2048 MiB\n",
                                     "apps.csv");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->processes.size(), 1u);
  EXPECT_EQ(parsed->processes[0].gpu_uuid, "GPU-5a3e2c10-aaaa-bbbb-cccc-0123456789ab");
  EXPECT_EQ(parsed->processes[0].pid, 7311);
  EXPECT_EQ(parsed->processes[0].used, 2048 * MiB);
}

// --query-gpu=index,name,pci.bus_id: every column told by its values; a percentage is left
// unnamed (utilization.gpu or .memory), said in a warning.
TEST(NvidiaSmiCsv, NamesAHeaderlessGpuListAndLeavesAPercentageUnnamed) {
  auto parsed = parse_nvidia_smi_csv(
      "0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 35 %\n"
      "1, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 0 %\n",
      "gpus.csv");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->gpus.size(), 2u);
  EXPECT_EQ(parsed->gpus[1].index, 1);
  EXPECT_EQ(parsed->gpus[1].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(parsed->gpus[1].bus_id, "00000000:2A:00.0");
  EXPECT_FALSE(parsed->gpus[0].utilization_gpu);
  bool said = false;
  for (const auto& w : parsed->warnings)
    said |= w.message == "column \"unnamed percentage\" is not used";
  EXPECT_TRUE(said);
}

// Memory figures with their units: used, free and total are not told apart by values alone.
TEST(NvidiaSmiCsv, RefusesHeaderlessMemoryColumnsNamingTheColumn) {
  auto parsed = parse_nvidia_smi_csv("0, NVIDIA A100-SXM4-80GB, 81920 MiB, 1024 MiB\n", "gpus.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 1);
  EXPECT_NE(parsed.error().message.find(
                "column 3 holds memory figures, and which of memory.used, memory.free "
                "and memory.total it is cannot be told from its values"),
            std::string::npos)
      << parsed.error().message;
}

// A pid and a nounits size are both whole numbers: two readings remain.
TEST(NvidiaSmiCsv, RefusesHeaderlessProcessListWithTwoWholeNumberColumns) {
  auto parsed = parse_nvidia_smi_csv("4021, python, 10240\n", "apps.csv");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("columns 1, 3 hold whole numbers"), std::string::npos)
      << parsed.error().message;
}

// Text with commas that is no CSV: a log line, a note with a list.
TEST(NvidiaSmiCsv, ProseWithCommasIsNoCsv) {
  EXPECT_NE(
      detect_smi_format("2024-02-19 15:14:56: W hlo.cc] Can't reduce, only reduced to 4 GiB\n"),
      smi_format::csv);
  EXPECT_NE(detect_smi_format("before import            [5, 5, 5, 5]\n"), smi_format::csv);
  EXPECT_EQ(detect_smi_format("4021, python, 10240 MiB\n"), smi_format::csv);
}

TEST(NvidiaSmiCsv, RejectsEmptyText) {
  auto parsed = parse_nvidia_smi_csv("\n\n", "empty.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(), "empty.csv: empty CSV: expected nvidia-smi --query-* output");
}

// 200,000 unknown columns printed 200,001 warnings; the first 20 are named, the rest counted.
TEST(NvidiaSmiCsv, CapsTheWarningsAboutUnusedColumns) {
  std::string header = "index";
  for (int i = 0; i < 200000; ++i) header += ", col" + std::to_string(i);
  auto parsed = parse_nvidia_smi_csv(header + "\n", "wide.csv");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->warnings.size(), 21u);
  EXPECT_EQ(parsed->warnings[0].to_string(), "wide.csv:1: column \"col0\" is not used");
  EXPECT_EQ(parsed->warnings[20].to_string(), "wide.csv:1: 199980 more columns are not used");
}

// Each row becomes an observation larger than the row: a file of 2-byte rows took 40 times its
// size. More than 100,000 rows is an error at the first row past them.
TEST(NvidiaSmiCsv, RefusesMoreRowsThanItHolds) {
  std::string text = "index, memory.used [MiB]\n";
  for (int i = 0; i < 100000; ++i) text += "0, 1\n";
  auto parsed = parse_nvidia_smi_csv(text, "long.csv");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->gpus.size(), 100000u);
  text += "0, 1\n";
  parsed = parse_nvidia_smi_csv(text, "long.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().line, 100002);
  EXPECT_NE(parsed.error().message.find("more than 100000 rows"), std::string::npos)
      << parsed.error().message;
}

}  // namespace
}  // namespace vramscope::observe
