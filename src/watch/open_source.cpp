#include <vramscope/watch/gpu_source.hpp>
#include <vramscope/watch/nvml_source.hpp>
#include <vramscope/watch/smi_source.hpp>

#include <fmt/format.h>

namespace vramscope::watch {

namespace {

diagnostic no_gpu(const std::string& tried) { return error_at("", "no GPU found: " + tried); }

}  // namespace

std::optional<source_kind> parse_source_kind(std::string_view text) {
  if (text == "auto") return source_kind::automatic;
  if (text == "nvml") return source_kind::nvml;
  if (text == "smi" || text == "nvidia-smi") return source_kind::smi;
  return std::nullopt;
}

result<std::unique_ptr<gpu_source>> open_gpu_source(const source_options& options) {
  std::string tried;
  if (options.kind != source_kind::smi) {
    auto nvml = nvml_source::open(options.nvml_library);
    if (nvml) return std::unique_ptr<gpu_source>(std::move(*nvml));
    tried = nvml.error().message;
    if (options.kind == source_kind::nvml) return no_gpu(tried);
  }
  auto smi = smi_source::open(options.nvidia_smi);
  if (smi) return std::unique_ptr<gpu_source>(std::move(*smi));
  tried +=
      fmt::format("{}{}: {}", tried.empty() ? "" : "; ", smi.error().source, smi.error().message);
  return no_gpu(tried);
}

}  // namespace vramscope::watch
