#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vramscope {

namespace detail {

void contract_failed(const char* file, int line, std::string_view message) {
  throw std::logic_error(std::string(file) + ":" + std::to_string(line) + ": " +
                         std::string(message));
}

}  // namespace detail

namespace {

// Text from an input file shown to a terminal: control characters (ESC starts sequences that
// recolour, move the cursor or retitle the window; CR rewrites the line) are shown as \xNN,
// and so are the C1 controls U+0080-U+009F. `keep` is a control left as it is ('\0': none).
std::string printable(std::string_view text, char keep) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if ((c < 0x20 && c != '\t' && (keep == '\0' || text[i] != keep)) || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c1) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::string diagnostic::to_string() const {
  std::string out;
  if (!source.empty()) out += printable(source, '\0');
  if (line > 0) out += fmt::format(":{}", line);
  if (line > 0 && column > 0) out += fmt::format(":{}", column);
  if (!out.empty()) out += ": ";
  out += printable(message, '\n');  // a message may run over lines
  if (!context.empty()) {
    // The caret stays under the character it points at, escapes before it counted.
    const auto before = std::min(static_cast<std::size_t>(std::max(column, 1) - 1), context.size());
    out += "\n" + printable(context, '\0') + "\n";
    out += std::string(printable(std::string_view(context).substr(0, before), '\0').size() +
                           (static_cast<std::size_t>(std::max(column, 1) - 1) - before),
                       ' ') +
           "^ near here";
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
