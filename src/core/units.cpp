#include <vramscope/core/units.hpp>

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace vramscope {

std::string format_bytes(bytes n) {
  if (n >= GiB) return fmt::format("{:.2f} GiB", static_cast<double>(n) / static_cast<double>(GiB));
  if (n >= MiB) return fmt::format("{:.1f} MiB", static_cast<double>(n) / static_cast<double>(MiB));
  if (n >= KiB) return fmt::format("{:.1f} KiB", static_cast<double>(n) / static_cast<double>(KiB));
  return fmt::format("{} B", n);
}

std::string format_delta(std::int64_t n) {
  if (n == 0) return "0 B";
  const auto magnitude = static_cast<bytes>(n < 0 ? -n : n);
  return (n < 0 ? "-" : "+") + format_bytes(magnitude);
}

bool parse_bytes(std::string_view text, bytes& out) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) return false;
  std::size_t pos = 0;
  while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
  if (pos == 0) return false;
  const std::string number = s.substr(0, pos);
  if (number.find('.') != number.rfind('.') || number == "." || number.size() > 30) return false;
  std::string unit = s.substr(pos);
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 1;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  else return false;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end) * scale;
  if (end != number.c_str() + number.size()) return false;
  if (!(value >= 0) || value > 1.8e19) return false;
  out = static_cast<bytes>(std::llround(value));
  return true;
}

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return digits;
}

}  // namespace vramscope
