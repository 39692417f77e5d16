// Fuzzes parse_safetensors_header on whole files held in memory, then the unit inference that
// turns weights without a config into an inventory. An accepted header must keep its promises:
// entries sorted by offset, inside the data, sized as their shapes say, not overlapping.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/model/safetensors.hpp>

#include "model/checkpoint_inventory.hpp"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_header(const vramscope::model::safetensors_header& h, std::size_t file_size) {
  check(h.data_start == 8 + h.header_length && h.data_start <= file_size);
  std::uint64_t previous_end = 0;
  for (const auto& e : h.entries) {
    check(e.begin <= e.end && e.end <= file_size - h.data_start);
    check(e.begin >= previous_end);
    previous_end = e.end;
    std::uint64_t n = 1;
    for (auto d : e.shape) n *= d;
    check(vramscope::bytes_of(e.type, n) == e.end - e.begin);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto header = vramscope::model::parse_safetensors_header(bytes, "fuzz.safetensors");
  if (!header) {
    check(!header.error().to_string().empty());
    return 0;
  }
  check_header(*header, size);
  vramscope::model::safetensors_checkpoint weights{"fuzz.safetensors", {}, {}};
  for (const auto& e : header->entries) weights.tensors.push_back({e, "fuzz.safetensors"});
  const auto spec = vramscope::model::detail::inventory_from_checkpoint(weights, "fuzz");
  check(spec.parameters() == [&] {
    std::uint64_t n = 0;
    for (const auto& u : spec.units) n += u.parameters;
    return n;
  }());
  return 0;
}
