#include "cli/axes.hpp"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <sstream>

namespace vramscope::cli {

namespace {

bool parse_int(const std::string& s, long long& v) {
  const auto* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, v);
  return r.ec == std::errc{} && r.ptr == end;
}

// "A..B" or "pow2:A..B" appended to `out`; false when `item` is not a range at all.
result<bool> expand_range(const std::string& item, const std::string& option,
                          std::vector<std::string>& out) {
  const bool pow2 = item.rfind("pow2:", 0) == 0;
  const std::string body = pow2 ? item.substr(5) : item;
  const auto dots = body.find("..");
  if (dots == std::string::npos) {
    if (!pow2) return false;
    return error_at(option, fmt::format("\"{}\" is not a range (expected pow2:A..B)", item));
  }
  long long lo = 0, hi = 0;
  if (!parse_int(body.substr(0, dots), lo) || !parse_int(body.substr(dots + 2), hi) || lo > hi ||
      (pow2 && lo < 1))
    return error_at(option, fmt::format("\"{}\" is not a range (expected A..B or pow2:A..B with "
                                        "integers A <= B{})",
                                        item, pow2 ? ", A >= 1" : ""));
  const std::size_t before = out.size();
  for (long long v = pow2 ? 1 : lo; v <= hi; v = pow2 ? v * 2 : v + 1) {
    if (v < lo) continue;
    if (out.size() - before >= max_range_values)
      return error_at(option, fmt::format("\"{}\" has more than {} values", item, max_range_values));
    out.push_back(std::to_string(v));
  }
  return true;
}

}  // namespace

result<axis> parse_axis(const std::string& text, const std::string& option) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return error_at(option, "expected key=value1,value2,... got \"" + text + "\"");
  axis a{text.substr(0, eq), {}};
  std::istringstream in(text.substr(eq + 1));
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    auto ranged = expand_range(item, option, a.values);
    if (!ranged) return ranged.error();
    if (!*ranged) a.values.push_back(item);
  }
  if (a.values.empty()) return error_at(option, "\"" + text + "\" lists no values");
  return a;
}

result<std::vector<axis>> parse_axes(const std::vector<std::string>& texts,
                                     const std::string& option) {
  std::vector<axis> axes;
  std::set<std::string> keys;
  for (const auto& t : texts) {
    auto a = parse_axis(t, option);
    if (!a) return a.error();
    if (!keys.insert(a->key).second)
      return error_at(option, fmt::format("\"{}\" given twice (list its values in one {} {}=...)",
                                          a->key, option, a->key));
    axes.push_back(std::move(*a));
  }
  return axes;
}

std::vector<std::vector<std::string>> combinations(const std::vector<axis>& axes) {
  std::vector<std::vector<std::string>> rows{{}};
  for (const auto& a : axes) {
    std::vector<std::vector<std::string>> next;
    next.reserve(rows.size() * a.values.size());
    for (const auto& row : rows)
      for (const auto& v : a.values) {
        auto r = row;
        r.push_back(a.key + "=" + v);
        next.push_back(std::move(r));
      }
    rows = std::move(next);
  }
  return rows;
}

}  // namespace vramscope::cli
