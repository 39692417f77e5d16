// Fuzzes the torch.cuda.memory_stats() JSON reader (also of Python's repr, what
// print(torch.cuda.memory_stats()) shows) and the memory_summary() text reader.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/observe/torch_stats.hpp>

#include "observe/python_repr.hpp"

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
  // A Python repr reads as the JSON it is rewritten to, line for line: the same figures, and
  // the same cut.
  if (vramscope::observe::detail::looks_like_python_repr(text)) {
    auto converted = vramscope::observe::detail::python_repr_as_json(text, "rank3.json");
    if (converted) {
      check(std::count(converted->begin(), converted->end(), '\n') == std::count(text.begin(), text.end(), '\n'));
      vramscope::warnings again;
      auto direct = vramscope::observe::parse_memory_stats_json(*converted, "rank3.json", again);
      check(direct.has_value() == stats.has_value());
      if (direct && stats) {
        check(direct->size() == stats->size());
        for (std::size_t i = 0; i < direct->size() && i < stats->size(); ++i)
          check((*direct)[i].raw == (*stats)[i].raw && (*direct)[i].cut == (*stats)[i].cut);
      }
    } else {
      check(!stats && converted.error().line > 0);
    }
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
