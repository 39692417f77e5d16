// Fuzzes the nvidia-smi -q -x reader: any bytes give an observation or a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/observe/nvidia_smi.hpp>
#include <vramscope/observe/observe_json.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto o = vramscope::observe::parse_nvidia_smi_xml(text, "fuzz.xml");
  if (!o) {
    check(!o.error().message.empty());
    return 0;
  }
  for (const auto& p : o->processes) check(p.gpu_index && *p.gpu_index < static_cast<int>(o->gpus.size()) + 1);
  (void)vramscope::observe::to_json(*o).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
