// Fuzzes the nvidia-smi table, `-q` text and CSV readers, and the dispatcher that picks one: any bytes give an observation or a diagnostic,
// never a crash or a hang, and what they give can be written as JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include <vramscope/observe/nvidia_smi.hpp>
#include <vramscope/observe/observe_json.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_observation(const vramscope::result<vramscope::observe::observation>& o) {
  if (!o) {
    check(!o.error().message.empty());
    return;
  }
  for (const auto& g : o->gpus) check(!g.used || *g.used < (std::uint64_t{1} << 63));
  for (const auto& p : o->processes) check(p.pid >= 0);
  (void)vramscope::observe::to_json(*o).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_observation(vramscope::observe::parse_nvidia_smi_table(text, "fuzz.txt"));
  check_observation(vramscope::observe::parse_nvidia_smi_text(text, "fuzz.txt"));
  check_observation(vramscope::observe::parse_nvidia_smi(text, "fuzz.txt"));
  // Without a header and without fields the columns are named from their values, or refused.
  const auto inferred = vramscope::observe::parse_nvidia_smi_csv(text, "fuzz.csv");
  check_observation(inferred);
  if (!inferred) check(inferred.error().source == "fuzz.csv");
  vramscope::observe::smi_options fields;
  fields.csv_fields = {"index", "name", "memory.total", "memory.used", "memory.free"};
  check_observation(vramscope::observe::parse_nvidia_smi_csv(text, "fuzz.csv", fields));
  return 0;
}
