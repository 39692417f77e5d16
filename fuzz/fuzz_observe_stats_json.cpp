// Fuzzes the torch.cuda.memory_stats() JSON reader and the memory_summary() text reader.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/observe/torch_stats.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// A figure is read, or the summary names its row among those not in the paste (a table cut off
// is read up to the cut; what it lacks is unknown, never 0).
template <class Figure>
bool read_or_named(const Figure& figure, const std::vector<std::string>& missing, std::string_view row) {
  return figure.current || std::find(missing.begin(), missing.end(), row) != missing.end();
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
    for (const auto& s : *summary)
      check(read_or_named(s.allocated, s.missing, "Allocated memory") &&
            read_or_named(s.reserved, s.missing, "GPU reserved memory"));
  } else {
    check(summary.error().line > 0);
  }
  return 0;
}
