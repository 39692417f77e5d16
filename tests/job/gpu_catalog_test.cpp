#include <vramscope/job/gpu_catalog.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

#include <set>

namespace vramscope::job {
namespace {

TEST(GpuCatalog, HoldsNvmlTotalsInBytes) {
  EXPECT_EQ(lookup_gpu("A100-80GB")->memory, 85'899'345'920u);  // 81920 MiB
  EXPECT_EQ(lookup_gpu("H100-80GB")->memory, 81559 * MiB);
  EXPECT_EQ(lookup_gpu("H200")->memory, 143771 * MiB);
  EXPECT_EQ(lookup_gpu("A100-40GB")->memory, 40960 * MiB);
  EXPECT_EQ(lookup_gpu("L4")->memory, 23034 * MiB);
  EXPECT_EQ(lookup_gpu("A10G")->memory, 23028 * MiB);
  EXPECT_EQ(lookup_gpu("RTX-3090")->memory, 24576 * MiB);
  EXPECT_EQ(lookup_gpu("RTX-4090")->memory, 24564 * MiB);
  EXPECT_EQ(lookup_gpu("V100-16GB")->memory, 16384 * MiB);
  EXPECT_EQ(lookup_gpu("V100-32GB")->memory, 32768 * MiB);
  EXPECT_EQ(lookup_gpu("L40S")->memory, 46068 * MiB);
}

TEST(GpuCatalog, KnowsComputeCapabilityAndGeneration) {
  EXPECT_EQ(lookup_gpu("H100-80GB")->compute_capability, 90);
  EXPECT_EQ(lookup_gpu("H100-80GB")->generation, "Hopper");
  EXPECT_EQ(lookup_gpu("A100-80GB")->compute_capability, 80);
  EXPECT_EQ(lookup_gpu("L4")->compute_capability, 89);
  EXPECT_EQ(lookup_gpu("V100-32GB")->compute_capability, 70);
  EXPECT_EQ(lookup_gpu("B200")->compute_capability, 100);
  EXPECT_EQ(format_compute_capability(90), "9.0");
  EXPECT_EQ(format_compute_capability(86), "8.6");
}

TEST(GpuCatalog, LookupIgnoresCaseAndSeparatorsAndKnowsAliases) {
  const gpu_info* h100 = lookup_gpu("H100-80GB");
  ASSERT_NE(h100, nullptr);
  for (const char* name : {"h100", "H100-SXM", "h100_80gb", "NVIDIA H100 80GB HBM3", "H100 SXM5"})
    EXPECT_EQ(lookup_gpu(name), h100) << name;
  const gpu_info* a100 = lookup_gpu("A100-80GB");
  for (const char* name : {"a100-80gb", "A100_80GB", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"})
    EXPECT_EQ(lookup_gpu(name), a100) << name;
  EXPECT_EQ(lookup_gpu("Tesla T4"), lookup_gpu("T4"));
  EXPECT_EQ(lookup_gpu("NVIDIA GeForce RTX 4090"), lookup_gpu("RTX-4090"));
  EXPECT_EQ(lookup_gpu("h100 pcie")->name, "H100-PCIe");
  EXPECT_EQ(lookup_gpu("l40s")->name, "L40S");
  EXPECT_EQ(lookup_gpu("L40")->name, "L40");
  EXPECT_EQ(lookup_gpu(""), nullptr);
  EXPECT_EQ(lookup_gpu("MI300X"), nullptr);
}

TEST(GpuCatalog, EveryRowIsFoundByItsOwnNames) {
  std::set<std::string_view> names;
  for (const auto& g : gpu_catalog()) {
    EXPECT_EQ(lookup_gpu(g.name), &g) << g.name;
    EXPECT_EQ(lookup_gpu(g.smi_name), &g) << g.smi_name;
    EXPECT_GT(g.memory, 0u);
    EXPECT_EQ(g.memory % MiB, 0u);
    EXPECT_FALSE(g.source.empty());
    EXPECT_TRUE(names.insert(g.name).second) << "duplicate " << g.name;
  }
}

// Every GPU has a reservation, and it says where it comes from: a plan never counts against
// the whole NVML total (about half a GiB too much on every GPU).
TEST(GpuCatalog, EveryDriverReservationNamesItsSource) {
  for (const auto& g : gpu_catalog()) {
    EXPECT_FALSE(g.reserved_source.empty()) << g.name;
    EXPECT_GT(g.reserved, 0u) << g.name;
    EXPECT_LT(g.reserved, g.memory / 25) << g.name << ": under 4 % of the total";
    EXPECT_EQ(g.reserved % MiB, 0u) << g.name;
  }
}

// The usable memory is the total torch reports ("total capacity" in its out-of-memory
// messages, or total_memory), where one is known: each figure as its source prints it.
TEST(GpuCatalog, UsableMemoryIsTheTotalTorchReports) {
  const struct {
    const char* gpu;
    double gib;  // torch's figure, two decimals
  } torch_totals[] = {
      {"V100-16GB", 16130.0 / 1024}, {"V100-32GB", 31.74}, {"A100-40GB", 39.50},
      {"A100-80GB", 79.15},          {"RTX-A6000", 47.54}, {"A40", 44.42},
      {"RTX-4090", 23.64},           {"H100-80GB", 79.18}, {"H200", 139.80},
      {"B200", 178.35},
  };
  for (const auto& t : torch_totals) {
    const auto* g = lookup_gpu(t.gpu);
    ASSERT_NE(g, nullptr) << t.gpu;
    EXPECT_NEAR(static_cast<double>(g->memory - g->reserved) / static_cast<double>(GiB), t.gib,
                0.005)
        << t.gpu;
  }
  // Our H200 to the byte: torch's total_memory was 150,109,880,320 (bench/data/full-h200.jsonl).
  const auto* h200 = lookup_gpu("H200");
  const auto usable = static_cast<std::int64_t>(h200->memory - h200->reserved);
  EXPECT_LT(std::abs(usable - std::int64_t{150'109'880'320}), std::int64_t{MiB});
}

// The allocator's limit is the total torch reports, not the board's size: a V100-32GB says
// "31.74 GiB total capacity" in its out-of-memory messages (NVIDIA/Megatron-LM issue #525).
TEST(GpuCatalog, V100UsableMemoryIsTheTotalTorchReports) {
  const auto* v100 = lookup_gpu("V100-32GB");
  ASSERT_NE(v100, nullptr);
  const double usable_gib =
      static_cast<double>(v100->memory - v100->reserved) / static_cast<double>(GiB);
  EXPECT_NEAR(usable_gib, 31.74, 0.005);
}

TEST(GpuCatalog, UnknownNameListsTheCatalogWithDidYouMean) {
  auto found = find_gpu("H100-90GB");
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().message,
            "unknown GPU \"H100-90GB\" (did you mean \"H100-80GB\"?); known GPUs: V100-16GB, "
            "V100-32GB, T4, A10, A10G, RTX-3090, RTX-A6000, A40, A100-40GB, A100-80GB, L4, "
            "RTX-4090, L40, L40S, RTX-6000-Ada, H100-PCIe, H100-80GB, H100-NVL, H200, B200; for "
            "another GPU set hardware.gpu_memory");
}

TEST(GpuCatalog, AmbiguousPrefixNamesTheCandidates) {
  auto found = find_gpu("a100");
  ASSERT_FALSE(found);
  const std::string expected = "unknown GPU \"a100\" (ambiguous: A100-40GB or A100-80GB); known";
  EXPECT_EQ(found.error().message.substr(0, expected.size()), expected);
  EXPECT_TRUE(find_gpu("a100-40gb"));
}

}  // namespace
}  // namespace vramscope::job
