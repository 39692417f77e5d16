// Hjson reader: a recursive-descent parser over the grammar of hjson.github.io/syntax.html.
#include "import/hjson.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "import/import_common.hpp"
#include "job/source_text.hpp"

namespace vramscope::job::detail {

namespace {

bool is_hjson_punctuator(char c) {
  return c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':';
}

bool is_line_end(char c) { return c == '\n' || c == '\r'; }

// A JSON number exactly (RFC 8259 grammar), which is what Hjson takes a quoteless value for when
// it is one: "-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?". "01", "+1", ".5" and "1." are
// quoteless strings.
bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

std::string_view trim_blanks(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// `raw` as the body of a JSON string literal: quotes, backslashes and control characters escaped.
std::string escaped(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() + 2);
  for (const char c : raw) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

class hjson_parser {
 public:
  explicit hjson_parser(std::string_view text) : text_(text) {
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  bool parse(hjson_document& doc) {
    doc_ = &doc;
    if (text_.starts_with("\xEF\xBB\xBF"))
      at_ = 3;  // a UTF-8 byte order mark, as nlohmann skips it
    skip_blanks();
    // A root that opens with neither brace nor bracket is an object without its braces.
    if (!done() && (peek() == '{' || peek() == '[')) {
      if (!value(doc.value)) return false;
    } else {
      if (done()) return fail(at_, "empty input: expected an object of options");
      doc.value = nlohmann::json::object();
      if (!members(doc.value, '\0', at_)) return false;
    }
    skip_blanks();
    if (!done())
      return fail(at_, fmt::format("unexpected '{}' after the end of the root value: expected "
                                   "the end of the file",
                                   peek()));
    return true;
  }

  std::size_t error_at = 0;
  std::string error;
  bool error_unlocated = false;  // a number too large for a double: no position, as before

 private:
  bool done() const { return at_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0';
  }

  bool fail(std::size_t where, std::string message) {
    if (error.empty()) {
      error_at = where;
      error = std::move(message);
    }
    return false;
  }

  // Blanks and the three comment forms; an unclosed /* runs to the end of the text.
  void skip_blanks() {
    while (!done()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++at_;
      } else if (c == '#' || (c == '/' && peek(1) == '/')) {
        while (!done() && !is_line_end(peek())) ++at_;
      } else if (c == '/' && peek(1) == '*') {
        const auto end = text_.find("*/", at_ + 2);
        at_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  bool value(nlohmann::json& out) {
    skip_blanks();
    if (done()) return fail(at_, "unexpected end of input: expected a value");
    const char c = peek();
    if (c == '{' || c == '[') {
      if (depth_ >= max_hjson_depth)
        return fail(at_, fmt::format("objects and arrays nested more than {} levels deep",
                                     max_hjson_depth));
      ++depth_;
      const std::size_t open = at_++;
      bool ok = false;
      if (c == '{') {
        out = nlohmann::json::object();
        ok = members(out, '}', open);
      } else {
        out = nlohmann::json::array();
        ok = elements(out, open);
      }
      --depth_;
      return ok;
    }
    if (c == '\'' && peek(1) == '\'' && peek(2) == '\'') return multiline_string(out);
    if (c == '"' || c == '\'') {
      std::string s;
      if (!quoted(s)) return false;
      out = std::move(s);
      return true;
    }
    return quoteless(out);
  }

  // Members up to `close` ('}', or '\0' for the braceless root, which ends at the end of input).
  // A comma between members is optional; one after the last member is allowed.
  bool members(nlohmann::json& object, char close, std::size_t open) {
    std::map<std::string, std::size_t> seen;
    for (;;) {
      skip_blanks();
      if (done()) {
        if (close == '\0') return true;
        return unclosed(open, "object", '}');
      }
      if (peek() == close) {
        ++at_;
        return true;
      }
      const std::size_t key_at = at_;
      std::string key;
      if (!key_name(key)) return false;
      skip_blanks();
      if (peek() != ':')
        return fail(at_, fmt::format("expected ':' after the key \"{}\"{}", key,
                                     done() ? ", found the end of input" : ""));
      ++at_;
      if (const auto first = seen.find(key); first != seen.end())
        return fail(key_at,
                    fmt::format("duplicate key \"{}\" (first at line {}): DeepSpeed refuses a "
                                "config that repeats a key in one object (\"Duplicate key in "
                                "DeepSpeed config\"); keep one of them",
                                key, line_of(first->second)));
      seen.emplace(key, key_at);
      path_.push_back(key);
      if (in_array_ == 0) {
        const auto [line, column] = line_and_column(key_at);
        doc_->keys[path_] = {line, column};
      }
      nlohmann::json member;
      const bool ok = value(member);
      path_.pop_back();
      if (!ok) return false;
      object[key] = std::move(member);
      skip_blanks();
      if (peek() == ',') {
        ++at_;
      }
    }
  }

  bool elements(nlohmann::json& array, std::size_t open) {
    ++in_array_;
    for (;;) {
      skip_blanks();
      if (done()) {
        --in_array_;
        return unclosed(open, "array", ']');
      }
      if (peek() == ']') {
        ++at_;
        --in_array_;
        return true;
      }
      nlohmann::json item;
      if (!value(item)) {
        --in_array_;
        return false;
      }
      array.push_back(std::move(item));
      skip_blanks();
      if (peek() == ',') ++at_;
    }
  }

  // An object or array left open at the end of input. When a quoteless string ran over a
  // comma or bracket, that value is the likely cause ("{enabled: tru}" reads "tru}"), so the error
  // is shown there; otherwise where the object or array was opened.
  bool unclosed(std::size_t open, const char* what, char close) {
    const auto [line, column] = line_and_column(open);
    if (!swallowed_.empty())
      return fail(swallowed_at_,
                  fmt::format("the quoteless value \"{}\" runs to the end of its line (Hjson "
                              "reads a value that is not quoted, a number, true, false or null "
                              "as a string up to the line's end), so the {} opened at line {}, "
                              "column {} is never closed: expected '{}' before the end of input; "
                              "quote the value, or end it before the '{}'",
                              swallowed_, what, line, column, close,
                              swallowed_.find(close) != std::string::npos ? close : ','));
    return fail(open, fmt::format("the {} opened here is never closed: expected '{}' before the "
                                  "end of input",
                                  what, close));
  }

  // A key: quoted, or quoteless (no blanks, no punctuator).
  bool key_name(std::string& key) {
    const char c = peek();
    if (c == '"' || c == '\'') return quoted(key);
    const std::size_t start = at_;
    while (!done() && peek() != ':') {
      const char k = peek();
      if (k == ' ' || k == '\t' || is_line_end(k)) {
        // "key :" is a key and blanks before its colon.
        std::size_t after = at_;
        while (after < text_.size() && (text_[after] == ' ' || text_[after] == '\t')) ++after;
        if (after < text_.size() && text_[after] == ':' && at_ > start) break;
        return fail(at_, fmt::format("blank in the key \"{}...\": expected ':' after a key "
                                     "(quote a key that holds blanks)",
                                     text_.substr(start, at_ - start)));
      }
      if (is_hjson_punctuator(k))
        return fail(at_, fmt::format("unexpected '{}': expected a key (quote a key that holds "
                                     "any of {{}}[],:)",
                                     k));
      ++at_;
    }
    if (at_ == start) return fail(at_, "expected a key before ':'");
    if (done()) return fail(at_, "unexpected end of input: expected ':' after a key");
    return decode(text_.substr(start, at_ - start), start, key);
  }

  // The JSON string whose body (already escaped) is `body`, decoded by nlohmann so that escapes
  // and UTF-8 checks match strict JSON exactly.
  bool decode_escaped(const std::string& body, std::size_t where, std::string& out) {
    auto parsed = nlohmann::json::parse("\"" + body + "\"", nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_string())
      return fail(where, "invalid string: a bad escape sequence or ill-formed UTF-8");
    out = parsed.get<std::string>();
    return true;
  }

  bool decode(std::string_view raw, std::size_t where, std::string& out) {
    return decode_escaped(escaped(raw), where, out);
  }

  // "..." or '...', on one line, with JSON's escapes (and \' in either).
  bool quoted(std::string& out) {
    const char quote = peek();
    const std::size_t start = at_++;
    std::string body;
    while (!done() && peek() != quote) {
      const char c = peek();
      if (is_line_end(c))
        return fail(start, fmt::format("string not closed on its line: expected {} before the "
                                       "line ends ('''...''' holds several lines)",
                                       quote));
      if (c == '\\') {
        if (peek(1) == '\'') {
          body += '\'';
          at_ += 2;
          continue;
        }
        if (at_ + 1 >= text_.size()) {
          at_ = text_.size();  // a backslash at the end of input: the string is not closed
          break;
        }
        body += c;
        body += peek(1);
        at_ += 2;
        continue;
      }
      if (c == '"') body += '\\';  // inside '...'
      body += c;
      ++at_;
    }
    if (done())
      return fail(start,
                  fmt::format("string not closed: expected {} before the end of input", quote));
    ++at_;
    return decode_escaped(body, start, out);
  }

  // '''...''': the text between, without escapes. The indentation of the opening quotes is
  // removed from each line, a first line left empty is dropped, and so is the last line break.
  bool multiline_string(nlohmann::json& out) {
    const std::size_t start = at_;
    const std::size_t indent = at_ - line_starts_[static_cast<std::size_t>(line_of(at_)) - 1];
    at_ += 3;
    while (!done() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) ++at_;
    if (peek() == '\n') {
      ++at_;
      skip_indent(at_, indent);
    }
    std::string raw;
    for (;;) {
      if (done())
        return fail(start, "multi-line string not closed: expected ''' before the end of input");
      const char c = peek();
      if (c == '\'' && peek(1) == '\'' && peek(2) == '\'') {
        at_ += 3;
        if (!raw.empty() && raw.back() == '\n') raw.pop_back();
        std::string decoded;
        if (!decode(raw, start, decoded)) return false;
        out = std::move(decoded);
        return true;
      }
      ++at_;
      if (c == '\r') continue;
      raw += c;
      if (c == '\n') skip_indent(at_, indent);
    }
  }

  void skip_indent(std::size_t& at, std::size_t indent) const {
    for (std::size_t i = 0;
         i < indent && at < text_.size() && (text_[at] == ' ' || text_[at] == '\t'); ++i)
      ++at;
  }

  // A quoteless value: true, false, null or a JSON number when that is all it holds before a
  // comma, a closing bracket, a comment or the line's end; otherwise a string running to the end
  // of the line (commas and brackets included), its blanks trimmed.
  bool quoteless(nlohmann::json& out) {
    const std::size_t start = at_;
    if (is_hjson_punctuator(peek()))
      return fail(at_, fmt::format("unexpected '{}': expected a value", peek()));
    for (;;) {
      const char c = peek();
      const bool line_end = done() || is_line_end(c);
      const bool stop = line_end || c == ',' || c == '}' || c == ']' || c == '#' ||
                        (c == '/' && (peek(1) == '/' || peek(1) == '*'));
      if (stop) {
        const std::string_view word = trim_blanks(text_.substr(start, at_ - start));
        if (word == "true" || word == "false" || word == "null") {
          out = nlohmann::json::parse(word);
          return true;
        }
        if (is_json_number(word)) return number(word, start, out);
        if (line_end) {
          std::string decoded;
          if (!decode(word, start, decoded)) return false;
          if (decoded.find_first_of(",}]") != std::string::npos && swallowed_.empty()) {
            swallowed_ = decoded;
            swallowed_at_ = start;
          }
          out = std::move(decoded);
          return true;
        }
      }
      ++at_;
    }
  }

  bool number(std::string_view word, std::size_t where, nlohmann::json& out) {
    try {
      out = nlohmann::json::parse(word);
      return true;
    } catch (const nlohmann::json::exception& e) {
      // Too large for a double ("2e7777"): nlohmann's own message, as strict JSON gave it.
      std::string what = e.what();
      if (const auto bracket = what.find("] "); bracket != std::string::npos)
        what = what.substr(bracket + 2);
      error_unlocated = true;
      return fail(where, what);
    }
  }

  int line_of(std::size_t offset) const { return line_and_column(offset).first; }

 public:
  // 1-based; the column counts bytes, as the diagnostics' columns do.
  std::pair<int, int> line_and_column(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    const auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const std::size_t line = static_cast<std::size_t>(next - line_starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
  }

 private:
  std::vector<std::size_t> line_starts_{0};
  std::string_view text_;
  std::size_t at_ = 0;
  int depth_ = 0;
  int in_array_ = 0;
  hjson_document* doc_ = nullptr;
  std::vector<std::string> path_;
  std::string swallowed_;  // the first quoteless string holding a comma or bracket
  std::size_t swallowed_at_ = 0;
};

}  // namespace

result<hjson_document> parse_hjson(std::string_view text, const std::string& source) {
  hjson_parser parser(text);
  hjson_document doc;
  if (parser.parse(doc)) return doc;
  if (parser.error_unlocated) return diagnostic{source, 0, 0, "json error: " + parser.error, ""};
  const auto [line, column] = parser.line_and_column(parser.error_at);
  return with_remedy(at(location(source, text, line, column), "json syntax error: " + parser.error),
                     syntax_remedy);
}

}  // namespace vramscope::job::detail
