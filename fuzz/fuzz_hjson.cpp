// Fuzzes parse_hjson, the reader of DeepSpeed config files: any bytes must give a value or a
// located diagnostic, never a crash. Strict JSON is Hjson, so where nlohmann's strict parser
// reads an object or array, parse_hjson must read the same value, or refuse it for a repeated
// key or its nesting depth; and a value parse_hjson reads must read back equal from its dump.
// nlohmann takes a NUL byte for the end of input (its lexer), so text with one is left out of the
// comparison: parse_hjson refuses what follows it rather than drop it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "import/hjson.hpp"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = vramscope::job::detail::parse_hjson(text, "fuzz/ds_config.json");
  const auto strict = text.find('\0') == std::string_view::npos
                          ? nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false)
                          : nlohmann::json(nlohmann::json::value_t::discarded);
  if (!doc) {
    check(!doc.error().to_string().empty());
    if (!strict.is_discarded() && strict.is_structured()) {
      const std::string& message = doc.error().message;
      check(message.find("duplicate key") != std::string::npos ||
            message.find("nested more than") != std::string::npos);
    }
    return 0;
  }
  check(doc->value.is_structured());
  for (const auto& [path, where] : doc->keys) {
    check(!path.empty());
    check(where.first >= 1 && where.second >= 1);
  }
  if (!strict.is_discarded() && strict.is_structured()) check(strict == doc->value);
  const std::string written = doc->value.dump();
  auto again = vramscope::job::detail::parse_hjson(written, "fuzz/written.json");
  check(again.has_value());
  check(again->value == doc->value);
  return 0;
}
