// Fuzzes the torch.cuda.memory_stats() JSON reader and the memory_summary() text reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/observe/torch_stats.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vramscope::warnings warnings;
  auto stats = vramscope::observe::parse_memory_stats_json(text, "rank3.json", warnings);
  if (stats) {
    for (const auto& s : *stats) check(!s.raw.empty());
  } else {
    check(!stats.error().message.empty());
  }
  auto summary = vramscope::observe::parse_memory_summary(text, "summary.txt", warnings);
  if (summary) {
    for (const auto& s : *summary) check(s.allocated.current && s.reserved.current);
  } else {
    check(summary.error().line > 0);
  }
  return 0;
}
