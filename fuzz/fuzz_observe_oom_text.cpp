// Fuzzes the out-of-memory message finder on arbitrary log text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <vramscope/observe/oom_report.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vramscope::warnings warnings;
  const auto reports = vramscope::observe::find_oom_reports(text, "fuzz.log", warnings);
  int last_line = 0;
  for (const auto& r : reports) {
    check(r.line >= 1 && r.line >= last_line);
    check(r.raw.size() <= size * 6 + 16);  // joined wrapped lines, never more than the log
    last_line = r.line;
  }
  return 0;
}
