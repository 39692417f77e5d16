#include "observe/text_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace vramscope::observe::detail {

namespace {

constexpr std::size_t max_context = 200;  // longer lines are cut in messages

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

struct unit_entry {
  std::string_view name;
  bytes scale;
};

// Case-sensitive on purpose: "MB" and "Mb" are not the same thing, and formats print exact names.
constexpr unit_entry units[] = {
    {"bytes", 1},        {"B", 1},           {"KiB", KiB},       {"MiB", MiB},
    {"GiB", GiB},        {"TiB", 1024 * GiB}, {"PiB", 1024 * 1024 * GiB},
    {"KB", KiB},         {"kB", KiB},        {"MB", MiB},        {"GB", GiB},
    {"TB", 1024 * GiB},
    {"PB", 1024 * 1024 * GiB},
};

std::optional<bytes> scale_size(double number, bytes scale) {
  const double value = number * static_cast<double>(scale);
  if (!(value >= 0) || value >= 9.2e18) return std::nullopt;
  return static_cast<bytes>(std::llround(value));
}

std::size_t number_length(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i > 0 && i < s.size() && s[i] == '.') {
    std::size_t j = i + 1;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    if (j > i + 1) i = j;
  }
  return i;
}

}  // namespace

std::vector<text_line> split_lines(std::string_view text) {
  std::vector<text_line> lines;
  std::size_t start = 0;
  int number = 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, start, number++});
    start = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view skip_bom_and_space(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  return text;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

bool names_memory_failure(std::string_view low) {
  for (std::string_view w :
       {"out of memory", "not enough memory", "not enough gpu memory", "insufficient memory",
        "insufficient gpu memory", "not enough vram", "insufficient vram"})
    if (contains(low, w)) return true;
  for (std::size_t at = low.find("oom"); at != std::string_view::npos;
       at = low.find("oom", at + 1)) {
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(low[at - 1]));
    const bool ends =
        at + 3 >= low.size() || !std::isalpha(static_cast<unsigned char>(low[at + 3]));
    if (starts && ends) return true;
  }
  return false;
}

std::size_t ifind(std::string_view haystack, std::string_view needle, std::size_t from) {
  if (needle.empty()) return from <= haystack.size() ? from : std::string_view::npos;
  if (needle.size() > haystack.size()) return std::string_view::npos;
  const char first = lower(needle[0]);
  for (std::size_t i = from; i + needle.size() <= haystack.size(); ++i) {
    if (lower(haystack[i]) != first) continue;
    std::size_t k = 1;
    while (k < needle.size() && lower(haystack[i + k]) == lower(needle[k])) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = lower(c);
  return out;
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  if (!is_digits(s)) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  const auto magnitude = parse_uint(s);
  if (!magnitude || *magnitude > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  const auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

std::optional<double> parse_decimal(std::string_view s) {
  if (s.empty() || number_length(s) != s.size()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<bytes> parse_size_prefix(std::string_view s, std::size_t& used) {
  const std::size_t n = number_length(s);
  if (n == 0) return std::nullopt;
  const auto number = parse_decimal(s.substr(0, n));
  if (!number) return std::nullopt;
  std::size_t i = n;
  while (i < s.size() && s[i] == ' ') ++i;
  for (const auto& u : units) {
    if (s.substr(i, u.name.size()) != u.name) continue;
    const std::size_t after = i + u.name.size();
    // "B" must not be the start of a longer word ("Bytes" is not a unit here, "B." is).
    if (after < s.size() && ((s[after] >= 'a' && s[after] <= 'z') || (s[after] >= 'A' && s[after] <= 'Z')))
      continue;
    used = after;
    return scale_size(*number, u.scale);
  }
  return std::nullopt;
}

std::optional<bytes> parse_size(std::string_view s, bytes default_unit) {
  s = trim(s);
  std::size_t used = 0;
  if (auto size = parse_size_prefix(s, used); size && used == s.size()) return size;
  if (default_unit == 0) return std::nullopt;
  const auto number = parse_decimal(s);
  if (!number) return std::nullopt;
  return scale_size(*number, default_unit);
}

diagnostic error_on_line(const std::string& source, const text_line& line, int column,
                         std::string message) {
  std::string context(line.text);
  if (context.size() > max_context) {
    if (column > static_cast<int>(max_context)) {
      context.clear();
    } else {
      context.resize(max_context);
      context += "...";
    }
  }
  return diagnostic{source, line.number, column, std::move(message), std::move(context)};
}

diagnostic error_at_offset(const std::string& source, std::string_view text, std::size_t offset,
                           std::string message) {
  offset = std::min(offset, text.size());
  const std::size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t start = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  text_line line{text.substr(start, end - start), start, 1};
  if (!line.text.empty() && line.text.back() == '\r') line.text.remove_suffix(1);
  line.number = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
  return error_on_line(source, line, static_cast<int>(offset - start) + 1, std::move(message));
}

int column_of(const text_line& line, std::string_view part) {
  const char* begin = line.text.data();
  if (part.data() < begin || part.data() > begin + line.text.size()) return 0;
  return static_cast<int>(part.data() - begin) + 1;
}

std::string quoted(std::string_view s) {
  if (s.size() > 40) return fmt::format("\"{}...\"", s.substr(0, 40));
  return fmt::format("\"{}\"", s);
}

}  // namespace vramscope::observe::detail
