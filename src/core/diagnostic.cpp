#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <stdexcept>
#include <string>

namespace vramscope {

namespace detail {

void contract_failed(const char* file, int line, std::string_view message) {
  throw std::logic_error(std::string(file) + ":" + std::to_string(line) + ": " +
                         std::string(message));
}

}  // namespace detail

std::string diagnostic::to_string() const {
  std::string out;
  if (!source.empty()) out += source;
  if (line > 0) out += fmt::format(":{}", line);
  if (line > 0 && column > 0) out += fmt::format(":{}", column);
  if (!out.empty()) out += ": ";
  out += message;
  if (!context.empty()) {
    out += "\n" + context + "\n";
    out += std::string(static_cast<std::size_t>(std::max(column, 1) - 1), ' ') + "^ near here";
  }
  return out;
}

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diagonal = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace vramscope
