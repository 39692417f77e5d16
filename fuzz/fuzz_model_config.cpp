// Fuzzes parse_config_json: any bytes must give a model or a diagnostic, never a crash, and a
// model must be consistent (units add up to the tensors, every tensor's unit exists).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/model/config_reader.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_consistent(const vramscope::model::model_spec& spec) {
  std::uint64_t in_units = 0;
  vramscope::bytes size = 0;
  for (const auto& u : spec.units) {
    in_units += u.parameters;
    size += u.size;
  }
  check(in_units == spec.parameters());
  check(size == spec.size());
  check(spec.tensors.size() <= vramscope::model::max_inventory_tensors);
  check(!spec.units.empty());
  (void)spec.largest_unit();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = vramscope::model::parse_config_json(text, "fuzz/config.json");
  if (spec)
    check_consistent(*spec);
  else
    check(!spec.error().to_string().empty());
  return 0;
}
