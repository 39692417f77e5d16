#include <vramscope/observe/torch_stats.hpp>

#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::optional<int> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 6 || !detail::is_digits(digits)) return std::nullopt;
  return static_cast<int>(*detail::parse_uint(digits));
}

// "rank3", "rank-3", "rank_3", "rank.3", not preceded by a letter ("frank3" is not a rank).
std::optional<int> after_rank_word(const std::string& name) {
  for (std::size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 1)) {
    if (at > 0 && is_letter(name[at - 1])) continue;
    std::size_t i = at + 4;
    if (i < name.size() && (name[i] == '-' || name[i] == '_' || name[i] == '.')) ++i;
    std::size_t j = i;
    while (j < name.size() && name[j] >= '0' && name[j] <= '9') ++j;
    if (auto r = small_number(std::string_view(name).substr(i, j - i))) return r;
  }
  return std::nullopt;
}

// "memory_stats.3.json", "stats-3.json": digits as the last part of the stem.
std::optional<int> trailing_number(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size() && is_letter(name[dot + 1]))
    name = name.substr(0, dot);
  const std::size_t sep = name.find_last_of("._-");
  if (sep == std::string_view::npos) return std::nullopt;
  return small_number(name.substr(sep + 1));
}

}  // namespace

std::optional<int> rank_from_file_name(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::string name = detail::to_lower(base);
  if (auto r = after_rank_word(name)) return r;
  return trailing_number(name);
}

}  // namespace vramscope::observe
