#include <vramscope/job/gpu_catalog.hpp>

#include <vramscope/job/job_names.hpp>

#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace vramscope::job {

namespace {

// NVML totals in MiB. "seen" = the figure appears as memory.total in several nvidia-smi outputs
// posted publicly (issue threads, READMEs; e.g. NVIDIA/nccl#1264 for the H100 SXM); other rows
// say why they are not confirmed.
constexpr const char* seen = "nvidia-smi memory.total in public logs";
constexpr std::array catalog{
    gpu_info{"V100-16GB", "Tesla V100-SXM2-16GB", 16384 * MiB, 70, "Volta",
             "V100-PCIE-16GB logs show 16384 MiB; some V100-SXM2-16GB reports show 16160 MiB",
             false, 254 * MiB,
             "16384 MiB less torch's total_memory=16130MB on a Tesla V100-SXM2-16GB "
             "(ultralytics/yolov3 README, test.py output, 2019): the usable figure is torch's"},
    gpu_info{"V100-32GB", "Tesla V100-SXM2-32GB", 32768 * MiB, 70, "Volta", seen, true,
             266 * MiB,
             "32768 MiB less torch's \"31.74 GiB total capacity\" on a V100-32GB (the OOM "
             "message of NVIDIA/Megatron-LM issue #525, 2023)"},
    gpu_info{"T4", "Tesla T4", 15360 * MiB, 75, "Turing", seen, true,
             388 * MiB,
             "nvidia-smi -q -x of a Tesla T4 (tests/data/realworld/smi_xml/telegraf_tesla-t4.xml)"},
    gpu_info{"A10", "NVIDIA A10", 23028 * MiB, 86, "Ampere", seen, true, 435 * MiB,
             "inferred: the A10G's (same GA102 board with 24 GB GDDR6 and ECC, same 23028 MiB "
             "total)"},
    gpu_info{"A10G", "NVIDIA A10G", 23028 * MiB, 86, "Ampere", seen, true,
             435 * MiB,
             "nvidia-smi -q -x of an A10G (tests/data/realworld/smi_xml/telegraf_a10g.xml)"},
    gpu_info{"RTX-3090", "NVIDIA GeForce RTX 3090", 24576 * MiB, 86, "Ampere", seen, true,
             316 * MiB,
             "nvidia-smi -q -x of an RTX 3090 (tests/data/realworld/smi_xml/telegraf_rtx-3090-v12.xml)"},
    gpu_info{"RTX-A6000", "NVIDIA RTX A6000", 49140 * MiB, 86, "Ampere", seen, true, 459 * MiB,
             "believed: 49140 MiB less torch's \"47.54 GiB total capacity\", the figure public "
             "OOM messages of 48 GB GA102 boards show (the messages found do not name the GPU)"},
    gpu_info{"A40", "NVIDIA A40", 46068 * MiB, 86, "Ampere", seen, true, 582 * MiB,
             "46068 MiB less torch's \"total capacity of 44.42 GiB\" on an A40 (a public GRPO "
             "project's note \"A40 GPU Memory Fix\", SGLang and trainer on one A40)"},
    gpu_info{"A100-40GB", "NVIDIA A100-SXM4-40GB", 40960 * MiB, 80, "Ampere", seen, true,
             512 * MiB,
             "40960 MiB less torch's \"total capacity of 39.50 GiB\" on an A100 40GB (TianheWu/CoSeR issue #10, 2025)"},
    gpu_info{"A100-80GB", "NVIDIA A100-SXM4-80GB", 81920 * MiB, 80, "Ampere", seen, true,
             869 * MiB,
             "nvidia-smi -q -x of an A100-SXM4-80GB, driver 535 "
             "(tests/data/realworld/smi_xml/telegraf_a100-sxm4-v12.xml); torch's \"79.15 GiB\""},
    gpu_info{"L4", "NVIDIA L4", 23034 * MiB, 89, "Ada Lovelace", seen, true,
             556 * MiB,
             "nvidia-smi -q of an L4 (tests/data/realworld/smi_q/thamada_gls_L4.txt)"},
    gpu_info{"RTX-4090", "NVIDIA GeForce RTX 4090", 24564 * MiB, 89, "Ada Lovelace", seen, true,
             357 * MiB,
             "24564 MiB less torch's \"total capacity of 23.64 GiB\" on an RTX 4090 (ali-vilab/VGen issue #104, 2024)"},
    gpu_info{"L40", "NVIDIA L40", 46068 * MiB, 89, "Ada Lovelace",
             "assumed equal to the L40S (same 48 GB board); not seen in a log", false, 609 * MiB,
             "inferred: the L40S's (same AD102 board, same 46068 MiB total)"},
    gpu_info{"L40S", "NVIDIA L40S", 46068 * MiB, 89, "Ada Lovelace", seen, true,
             609 * MiB,
             "nvidia-smi -q of an L40S, driver 595 (tests/data/realworld/smi_q/gpuexporter_linux_l40s_595.txt)"},
    gpu_info{"RTX-6000-Ada", "NVIDIA RTX 6000 Ada Generation", 49140 * MiB, 89, "Ada Lovelace",
             seen, true, 572 * MiB,
             "46068 MiB (ECC on) less torch's \"total capacity of 44.43 GiB\" on an RTX 6000 Ada "
             "(DINGYANB/MTVCrafter issue #21, 2025); with ECC off the total is 49140 MiB"},
    gpu_info{"H100-PCIe", "NVIDIA H100 PCIe", 81559 * MiB, 90, "Hopper",
             "one public log (81559 MiB); same as the SXM part", false, 480 * MiB,
             "inferred: the H100 SXM's (same GH100 with 80 GB HBM, same 81559 MiB total)"},
    gpu_info{"H100-80GB", "NVIDIA H100 80GB HBM3", 81559 * MiB, 90, "Hopper", seen, true,
             480 * MiB,
             "nvidia-smi -q of our H100, driver 580 (tests/data/realworld/smi_q/vramscope_h100_580.txt); torch reported 79.18 GiB"},
    gpu_info{"H100-NVL", "NVIDIA H100 NVL", 95830 * MiB, 90, "Hopper", seen, true,
             594 * MiB,
             "nvidia-smi -q of an H100 NVL (tests/data/realworld/smi_q/thamada_gls_H100NVLx2.txt)"},
    gpu_info{"H200", "NVIDIA H200", 143771 * MiB, 90, "Hopper", seen, true, 615 * MiB,
             "our H200: NVML's total 150,754,820,096 B less torch's total_memory "
             "150,109,880,320 B (bench/data/full-h200.jsonl, gpu_total_bytes of the JAX and "
             "PyTorch records; torch said 139.80 GiB)"},
    gpu_info{"B200", "NVIDIA B200", 183359 * MiB, 100, "Blackwell", seen, true, 729 * MiB,
             "183359 MiB less torch's \"total capacity of 178.35 GiB\" in public B200 "
             "out-of-memory messages (several projects' notes; one 8xB200 run shows 178.36)"},
};

// Extra spellings, as users and tools write them. Compared after normalize_name.
constexpr std::pair<std::string_view, std::string_view> aliases[] = {
    {"v100", "V100-16GB"},          {"v100-sxm2-16gb", "V100-16GB"},
    {"v100-pcie-16gb", "V100-16GB"}, {"v100-sxm2-32gb", "V100-32GB"},
    {"a10g", "A10G"},               {"3090", "RTX-3090"},
    {"rtx3090", "RTX-3090"},        {"geforce-rtx-3090", "RTX-3090"},
    {"a6000", "RTX-A6000"},         {"a100-sxm4-40gb", "A100-40GB"},
    {"a100-pcie-40gb", "A100-40GB"}, {"a100-40g", "A100-40GB"},
    {"a100-sxm4-80gb", "A100-80GB"}, {"a100-80g", "A100-80GB"},
    {"a100-sxm", "A100-80GB"},      {"NVIDIA A100 80GB PCIe", "A100-80GB"},
    {"a100-pcie-80gb", "A100-80GB"}, {"4090", "RTX-4090"},
    {"rtx4090", "RTX-4090"},        {"geforce-rtx-4090", "RTX-4090"},
    {"rtx-6000-ada-generation", "RTX-6000-Ada"}, {"h100", "H100-80GB"},
    {"h100-sxm", "H100-80GB"},      {"h100-sxm5", "H100-80GB"},
    {"h100-sxm5-80gb", "H100-80GB"}, {"h100-80gb-hbm3", "H100-80GB"},
    {"h100-80g", "H100-80GB"},      {"h100-nvl-94gb", "H100-NVL"},
    {"h200-141gb", "H200"},         {"h200-sxm", "H200"},
    {"NVIDIA H200 NVL", "H200"},    {"h200-nvl", "H200"},
};

// Matching key: normalize_name also drops a leading vendor word.
std::string key_of(std::string_view name) {
  std::string key = normalize_name(name);
  for (std::string_view vendor : {"nvidia", "tesla"})
    if (key.rfind(vendor, 0) == 0 && key.size() > vendor.size()) key = key.substr(vendor.size());
  if (key.rfind("geforce", 0) == 0) key = key.substr(7);
  return key;
}

const gpu_info* by_canonical(std::string_view name) {
  for (const auto& g : catalog)
    if (g.name == name) return &g;
  return nullptr;
}

std::string catalog_list() {
  std::string out;
  for (const auto& g : catalog) out += (out.empty() ? "" : ", ") + std::string(g.name);
  return out;
}

// Catalog names that start with the query ("a100" -> A100-40GB, A100-80GB).
std::vector<std::string> prefix_matches(const std::string& key) {
  std::vector<std::string> out;
  for (const auto& g : catalog)
    if (key_of(g.name).rfind(key, 0) == 0) out.emplace_back(g.name);
  return out;
}

}  // namespace

std::span<const gpu_info> gpu_catalog() { return catalog; }

const gpu_info* lookup_gpu(std::string_view name) {
  const std::string key = key_of(name);
  if (key.empty()) return nullptr;
  // The keys of every name the catalog and the aliases spell, made once: every job resolves
  // its GPU, and a what-if grid resolves one job per row.
  struct spelling {
    std::string key;
    const gpu_info* gpu;
  };
  static const std::vector<spelling> spellings = [] {
    std::vector<spelling> out;
    for (const auto& g : catalog) {  // in the catalog's order, its name before nvidia-smi's
      out.push_back({key_of(g.name), &g});
      out.push_back({key_of(g.smi_name), &g});
    }
    for (const auto& [alias, target] : aliases)
      out.push_back({key_of(alias), by_canonical(target)});
    return out;
  }();
  for (const auto& s : spellings)
    if (s.key == key) return s.gpu;
  return nullptr;
}

result<const gpu_info*> find_gpu(std::string_view name) {
  if (const gpu_info* g = lookup_gpu(name)) return g;
  const std::string text(name);
  const auto prefixed = prefix_matches(key_of(name));
  std::string hint;
  if (prefixed.size() > 1) {
    hint = " (ambiguous: ";
    for (std::size_t i = 0; i < prefixed.size(); ++i)
      hint += (i == 0 ? "" : i + 1 == prefixed.size() ? " or " : ", ") + prefixed[i];
    hint += ")";
  } else if (std::string best = did_you_mean(text, gpu_names()); !best.empty()) {
    hint = fmt::format(" (did you mean \"{}\"?)", best);
  }
  return error_at("", fmt::format("unknown GPU \"{}\"{}; known GPUs: {}; for another GPU set "
                                  "hardware.gpu_memory",
                                  text, hint, catalog_list()));
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const auto& g : catalog) names.emplace_back(g.name);
  return names;
}

std::string format_compute_capability(int cc) { return fmt::format("{}.{}", cc / 10, cc % 10); }

}  // namespace vramscope::job
