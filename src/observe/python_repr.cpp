#include "observe/python_repr.hpp"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "observe/text_util.hpp"

namespace vramscope::observe::detail {

namespace {

constexpr std::string_view ordered_dict = "OrderedDict(";

// What an open bracket of the repr is, and so what its closing bracket and commas become.
enum class frame { ordered_dict, pairs, pair, tuple, dict, list };

struct converter {
  std::string_view text;
  const std::string& source;
  std::string out;
  std::vector<frame> open;
  std::size_t at = 0;

  diagnostic fail(std::string message) const { return error_at_offset(source, text, at, std::move(message)); }

  bool in(frame f) const { return !open.empty() && open.back() == f; }

  // A string in ' or ", from `at`; the text may end inside it (a cut), and the JSON ends there too.
  void string() {
    const char quote = text[at++];
    out += '"';
    while (at < text.size() && text[at] != quote) {
      const char c = text[at++];
      if (c == '\\' && at < text.size()) {
        const char e = text[at++];
        if (e == '\'')
          out += '\'';
        else
          out.append({'\\', e});
      } else if (c == '"') {
        out += "\\\"";
      } else {
        out += c;
      }
    }
    if (at < text.size()) {
      ++at;
      out += '"';
    }
  }

  // A name: True, False, None or OrderedDict(; anything else is not what memory_stats holds.
  status name() {
    std::size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    const std::string_view word = text.substr(at, end - at);
    if (word == "True" || word == "False" || word == "None") {
      out += word == "True" ? "true" : word == "False" ? "false" : "null";
      at = end;
      return ok();
    }
    if (word == "OrderedDict" && end < text.size() && text[end] == '(') {
      open.push_back(frame::ordered_dict);
      at = end + 1;
      return ok();
    }
    if (end == text.size() && std::string_view(ordered_dict).starts_with(word)) {
      at = end;  // cut inside the name
      return ok();
    }
    return fail(fmt::format("Python value '{}' in a memory_stats() repr: expected whole numbers in a dict or "
                            "OrderedDict",
                            word.empty() ? text.substr(at, 1) : word));
  }

  status opening(char c) {
    if (c == '{') {
      open.push_back(frame::dict);
      out += '{';
    } else if (c == '[') {
      open.push_back(in(frame::ordered_dict) ? frame::pairs : frame::list);
      out += in(frame::pairs) ? '{' : '[';
    } else {  // '('
      open.push_back(in(frame::pairs) ? frame::pair : frame::tuple);
      if (in(frame::tuple)) out += '[';
    }
    ++at;
    return ok();
  }

  status closing(char c) {
    const frame f = open.empty() ? frame::list : open.back();
    const bool fits = (c == '}' && f == frame::dict) || (c == ']' && (f == frame::list || f == frame::pairs)) ||
                      (c == ')' && (f == frame::pair || f == frame::tuple || f == frame::ordered_dict));
    if (open.empty() || !fits) return fail(fmt::format("unbalanced '{}' in a memory_stats() repr", c));
    open.pop_back();
    if (f == frame::dict) out += '}';
    if (f == frame::list || f == frame::tuple) out += ']';
    if (f == frame::pairs) out += '}';
    ++at;
    return ok();
  }

  result<std::string> run() {
    while (at < text.size()) {
      const char c = text[at];
      if (c == '\'' || c == '"') {
        string();
      } else if (c == '{' || c == '[' || c == '(') {
        if (auto st = opening(c); !st) return st.error();
      } else if (c == '}' || c == ']' || c == ')') {
        if (auto st = closing(c); !st) return st.error();
      } else if (c == ',' && in(frame::pair)) {
        out += ':';  // (key, value) of an OrderedDict
        ++at;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        if ((c == 'e' || c == 'E') && !out.empty() && std::isdigit(static_cast<unsigned char>(out.back()))) {
          out += c;  // a number's exponent
          ++at;
        } else if (auto st = name(); !st) {
          return st.error();
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) || std::isspace(static_cast<unsigned char>(c)) ||
                 c == ',' || c == ':' || c == '-' || c == '+' || c == '.') {
        out += c;
        ++at;
      } else {
        return fail(fmt::format("'{}' in a memory_stats() repr: expected a dict of whole numbers", c));
      }
    }
    return std::move(out);
  }
};

}  // namespace

bool looks_like_python_repr(std::string_view text) {
  text = skip_bom_and_space(text);
  if (text.starts_with(ordered_dict)) return true;
  if (text.starts_with('[')) text = skip_bom_and_space(text.substr(1));
  if (text.starts_with(ordered_dict)) return true;
  if (!text.starts_with('{')) return false;
  text = skip_bom_and_space(text.substr(1));
  return text.starts_with('\'');
}

result<std::string> python_repr_as_json(std::string_view text, const std::string& source) {
  converter c{text, source, {}, {}, 0};
  return c.run();
}

}  // namespace vramscope::observe::detail
