#include "import/shell_launch.hpp"

#include "import/import_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include <vramscope/core/io.hpp>
#include <vramscope/core/units.hpp>

#include "job/source_text.hpp"

namespace vramscope::job::detail {

namespace {

// A command word's program, without its folders: `/usr/bin/srun` -> `srun`.
std::string_view program_name(std::string_view word) {
  const auto slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

// `script`'s name has one of `words` among its words.
template <std::size_t N>
bool named_with(const std::string& script, const std::string_view (&words)[N]) {
  for (const std::string& word : name_words(script))
    if (std::find(std::begin(words), std::end(words), word) != std::end(words)) return true;
  return false;
}

}  // namespace

bool not_training_script(const std::string& script) {
  static constexpr std::string_view words[] = {"generate", "generation", "samples",   "inference",
                                               "infer",    "eval",       "evaluate",  "evaluation",
                                               "server",   "serve",      "benchmark", "bench"};
  return named_with(script, words);
}

bool conversion_script(const std::string& script) {
  static constexpr std::string_view words[] = {"convert", "converter", "conversion", "preprocess"};
  return named_with(script, words);
}

namespace {

// A word as written: literal text, variables and arrays to expand, and text left as written.
enum class part_kind { text, variable, array, unresolved };
struct part {
  part_kind kind = part_kind::text;
  std::string value;  // the text, or the variable's name
  bool quoted = false;
  std::optional<std::string> fallback;  // ${NAME:-fallback}
  std::string raw;  // a variable's expansion as written ("${NAME}"); an array's "[@]" or "[*]"
};
struct raw_word {
  std::vector<part> parts;
  int line = 0, column = 0;
  std::shared_ptr<const sourced_file> file;  // null: written in the script itself
};
// The text a here-document gives its command (`cat <<EOT > ds.json`, bash(1) Here Documents):
// its lines as written, from line `line`; `quoted` when the delimiter was quoted, so that
// nothing in it is expanded.
struct heredoc {
  std::string body;
  int line = 0;
  bool quoted = false;
};

struct statement {
  std::vector<raw_word> words;
  std::vector<heredoc> heredocs;       // in the order of their operators
  bool array = false, append = false;  // NAME=( ... ) or NAME+=( ... )
  std::string name;
  int line = 0;
  char end = '\n';  // what ended it: '\n', ';', '&', '|', or 'c' for a case arm's ";;"
};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool ends_statement(char c) { return c == '\n' || c == ';' || c == '&' || c == '|'; }

// A line that opens a shell function (`name() {`, `function name {`; bash(1), Shell Function
// Definitions).
bool defines_function(std::string_view text) {
  bool found = false;
  for_each_line(text, [&](std::string_view line, int) {
    line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
    if (line.starts_with("function ")) {
      found = true;
    } else {
      std::size_t i = 0;
      while (i < line.size() && is_name_char(line[i])) ++i;
      std::string_view rest = line.substr(i);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
      found = i > 0 && rest.starts_with("()");
    }
    return !found;
  });
  return found;
}

// "NAME=" or "NAME+=" at the start of an unquoted word: the length of the prefix, or 0.
std::size_t assignment_prefix(const raw_word& w) {
  if (w.parts.empty() || w.parts[0].kind != part_kind::text || w.parts[0].quoted) return 0;
  const std::string& t = w.parts[0].value;
  if (t.empty() || !is_name_start(t[0])) return 0;
  std::size_t i = 1;
  while (i < t.size() && is_name_char(t[i])) ++i;
  if (i + 1 < t.size() && t[i] == '+' && t[i + 1] == '=') return i + 2;
  return i < t.size() && t[i] == '=' ? i + 1 : 0;
}

class lexer {
 public:
  lexer(std::string_view text, const std::string& source,
        std::shared_ptr<const sourced_file> file = nullptr)
      : text_(text), source_(source), file_(std::move(file)) {}

  /// The whole text as the inside of a double-quoted string, into `w`'s parts: how bash reads
  /// the fallback of ${NAME:-fallback} (its $NAME, ${NAME}, ${NAME:-...}, $(...) and $((...))
  /// expand; blanks and quotes stay text). Fails on an unterminated `${` or `$(`.
  maybe_error read_quoted_text(raw_word& w) {
    while (pos_ < text_.size())
      if (auto err = read_quoted_char(w)) return err;
    return std::nullopt;
  }

  maybe_error run(std::vector<statement>& out) {
    statement current;
    const auto finish = [&] {
      if (!current.words.empty()) {
        note_heredocs(current, out.size());
        out.push_back(std::move(current));
      } else if (current.end == 'c' && !out.empty()) {
        // A case arm's `;;` on a line of its own ends the arm of the statement before it.
        out.back().end = 'c';
      }
      current = statement{};
    };
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c)) {
        advance();
      } else if (c == '\\' && peek(1) == '\n') {
        advance(2);
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (ends_statement(c) && !redirecting(c)) {
        current.end = c == ';' && peek(1) == ';' ? 'c' : c;
        advance(current.end == 'c' ? 2 : 1);
        finish();
        if (c == '\n') read_heredoc_bodies(out);
      } else {
        raw_word w;
        if (auto err = read_word(w, false)) return err;
        const std::size_t prefix = assignment_prefix(w);
        // `declare -a NAME=( ... )` (also typeset, local, export, readonly, with their options):
        // the same array.
        const bool declared =
            !current.words.empty() &&
            std::all_of(current.words.begin(), current.words.end(), [&](const raw_word& d) {
              const std::string t = d.parts.size() == 1 && d.parts[0].kind == part_kind::text
                                        ? d.parts[0].value
                                        : std::string();
              return &d == &current.words.front()
                         ? t == "declare" || t == "typeset" || t == "local" || t == "export" ||
                               t == "readonly"
                         : t.size() > 1 && t[0] == '-';
            });
        if ((current.words.empty() || declared) && prefix > 0 && w.parts.size() == 1 &&
            w.parts[0].value.size() == prefix && peek(0) == '(') {
          current.words.clear();
          current.array = true;
          current.append = w.parts[0].value[prefix - 2] == '+';
          current.name = w.parts[0].value.substr(0, prefix - (current.append ? 2 : 1));
          current.line = w.line;
          if (auto err = read_array(current)) return err;
          out.push_back(std::move(current));
          current = statement{};
          continue;
        }
        if (current.words.empty()) current.line = w.line;
        current.words.push_back(std::move(w));
      }
    }
    finish();
    return std::nullopt;
  }

  /// After run() failed: the quote (' or ") that was never closed, or 0 when the failure was
  /// another (a `${`, `$(`, backquote or array left open).
  [[nodiscard]] char unclosed_quote() const { return unclosed_quote_; }

 private:
  // A here-document operator of a statement (`<<EOT`, `<<-EOT`, `<< 'EOF'`): its delimiter,
  // read with the body that starts on the next line.
  struct pending_heredoc {
    std::string delimiter;
    bool strip_tabs = false, quoted = false;
    std::size_t index = 0;  // of the statement
  };
  std::vector<pending_heredoc> pending_;

  void note_heredocs(const statement& s, std::size_t index) {
    for (std::size_t i = 0; i < s.words.size(); ++i) {
      const auto& parts = s.words[i].parts;
      if (parts.empty() || parts[0].kind != part_kind::text || parts[0].quoted) continue;
      const std::string& head = parts[0].value;
      if (!head.starts_with("<<") || head.starts_with("<<<")) continue;
      pending_heredoc p;
      p.strip_tabs = head.size() > 2 && head[2] == '-';
      p.index = index;
      p.delimiter = head.substr(p.strip_tabs ? 3 : 2);
      for (std::size_t k = 1; k < parts.size(); ++k) {
        p.delimiter += parts[k].kind == part_kind::text ? parts[k].value : parts[k].raw;
        p.quoted = p.quoted || parts[k].quoted;
      }
      if (p.delimiter.empty() && parts.size() == 1 && i + 1 < s.words.size())
        for (const auto& part : s.words[i + 1].parts) {
          p.delimiter += part.kind == part_kind::text ? part.value : part.raw;
          p.quoted = p.quoted || part.quoted;
        }
      if (!p.delimiter.empty()) pending_.push_back(std::move(p));
    }
  }

  // The bodies of the here-documents opened on the line just ended, each to the line that is
  // its delimiter (after leading tabs, for `<<-`), or to the end of the text.
  void read_heredoc_bodies(std::vector<statement>& out) {
    for (const auto& p : pending_) {
      heredoc h{"", line_, p.quoted};
      while (pos_ < text_.size()) {
        const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
        std::string_view row = text_.substr(pos_, end - pos_);
        if (row.ends_with('\r')) row.remove_suffix(1);
        if (p.strip_tabs) row.remove_prefix(std::min(row.find_first_not_of('\t'), row.size()));
        advance(end - pos_ + 1);
        if (row == p.delimiter) break;
        h.body += std::string(row) + "\n";
      }
      if (p.index < out.size()) out[p.index].heredocs.push_back(std::move(h));
    }
    pending_.clear();
  }

  // '&' of a redirection (`2>&1`, `&>> log`), not a statement's end.
  bool redirecting(char c) const {
    return c == '&' && (peek(1) == '>' || (pos_ > 0 && text_[pos_ - 1] == '>'));
  }
  char peek(std::size_t ahead) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance(std::size_t n = 1) {
    for (; n > 0 && pos_ < text_.size(); --n, ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }
  diagnostic here(int line, int column, const std::string& message) const {
    return at(location(source_, text_, line, column), message);
  }

  // The elements of NAME=( ... ), across lines, until the unquoted ')'.
  maybe_error read_array(statement& s) {
    const int line = line_, column = column_;
    advance();  // '('
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c) || ends_statement(c)) {  // ; & | inside ( ) separate words, as blanks
        advance();
      } else if (c == '\\' && peek(1) == '\n') {
        advance(2);
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (c == ')') {
        advance();
        return std::nullopt;
      } else {
        raw_word w;
        if (auto err = read_word(w, true)) return err;
        s.words.push_back(std::move(w));
      }
    }
    return here(line, column, fmt::format("array {} opened here is never closed with ')'", s.name));
  }

  void literal(raw_word& w, char c, bool quoted) {
    if (w.parts.empty() || w.parts.back().kind != part_kind::text ||
        w.parts.back().quoted != quoted)
      w.parts.push_back(part{part_kind::text, "", quoted, std::nullopt, {}});
    w.parts.back().value += c;
  }

  maybe_error read_word(raw_word& w, bool in_array) {
    w.line = line_;
    w.column = column_;
    w.file = file_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_blank(c) || (ends_statement(c) && !redirecting(c)) || (in_array && c == ')')) break;
      if (const std::size_t prefix = assignment_prefix(w);  // NAME=( opens an array
          c == '(' && !in_array && prefix > 0 && prefix == w.parts[0].value.size())
        break;

      if (c == '\\') {
        advance();
        if (pos_ < text_.size() && text_[pos_] != '\n') literal(w, text_[pos_], true);
        advance();
      } else if (c == '\'') {
        if (auto err = read_single(w)) return err;
      } else if (c == '"') {
        if (auto err = read_double(w)) return err;
      } else if (c == '$') {
        if (auto err = read_dollar(w, false)) return err;
      } else if (c == '`') {
        if (auto err = read_backquote(w, false)) return err;
      } else {
        literal(w, c, false);
        advance();
      }
    }
    // An empty quoted word ("") is still a word.
    if (w.parts.empty()) w.parts.push_back(part{part_kind::text, "", true, std::nullopt, {}});
    return std::nullopt;
  }

  maybe_error read_single(raw_word& w) {
    const int line = line_, column = column_;
    advance();
    w.parts.push_back(part{part_kind::text, "", true, std::nullopt, {}});
    while (pos_ < text_.size() && text_[pos_] != '\'') {
      w.parts.back().value += text_[pos_];
      advance();
    }
    if (pos_ >= text_.size()) {
      unclosed_quote_ = '\'';
      return here(line, column, "quote (') opened here is never closed");
    }
    advance();
    return std::nullopt;
  }

  maybe_error read_double(raw_word& w) {
    const int line = line_, column = column_;
    advance();
    w.parts.push_back(part{part_kind::text, "", true, std::nullopt, {}});
    while (pos_ < text_.size() && text_[pos_] != '"')
      if (auto err = read_quoted_char(w)) return err;
    if (pos_ >= text_.size()) {
      unclosed_quote_ = '"';
      return here(line, column, "quote (\") opened here is never closed");
    }
    advance();
    return std::nullopt;
  }

  // One character of double-quoted text at pos_, as bash reads it there: \", \\, \$ and \` are
  // the character, a backslash-newline is removed, $ starts an expansion, anything else is itself.
  maybe_error read_quoted_char(raw_word& w) {
    const char c = text_[pos_];
    if (c == '\\' && (peek(1) == '"' || peek(1) == '\\' || peek(1) == '$' || peek(1) == '`')) {
      literal(w, peek(1), true);
      advance(2);
    } else if (c == '\\' && peek(1) == '\n') {
      advance(2);
    } else if (c == '$') {
      return read_dollar(w, true);
    } else if (c == '`') {
      return read_backquote(w, true);
    } else {
      literal(w, c, true);
      advance();
    }
    return std::nullopt;
  }

  // `command`: the older form of $(command), not run either; it ends at the next backquote that
  // no backslash escapes.
  maybe_error read_backquote(raw_word& w, bool quoted) {
    const int line = line_, column = column_;
    for (std::size_t i = pos_ + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
        continue;
      }
      if (text_[i] != '`') continue;
      const std::string raw(text_.substr(pos_, i + 1 - pos_));
      advance(i + 1 - pos_);
      w.parts.push_back(part{part_kind::unresolved, raw, quoted, std::nullopt, {}});
      return std::nullopt;
    }
    return here(line, column, "backquote (`) opened here is never closed");
  }

  // The text from pos_ to the bracket closing the one at pos_ + skip - 1, as written.
  maybe_error closing(char open, char close, std::size_t skip, std::string& raw) {
    const int line = line_, column = column_;
    const std::size_t start = pos_;
    int depth = 0;
    for (std::size_t i = pos_ + skip - 1; i < text_.size(); ++i) {
      if (text_[i] == open) ++depth;
      if (text_[i] == close && --depth == 0) {
        raw = std::string(text_.substr(start, i + 1 - start));
        advance(i + 1 - start);
        return std::nullopt;
      }
    }
    return here(line, column,
                fmt::format("\"{}\" opened here is never closed", text_.substr(start, skip)));
  }

  maybe_error read_dollar(raw_word& w, bool quoted) {
    const char next = peek(1);
    std::string raw;
    if (next == '(') {  // $(command) or $((arithmetic)): not run
      if (auto err = closing('(', ')', 2, raw)) return err;
      w.parts.push_back(part{part_kind::unresolved, raw, quoted, std::nullopt, {}});
      return std::nullopt;
    }
    if (next == '{') {
      if (auto err = closing('{', '}', 2, raw)) return err;
      w.parts.push_back(braced(raw.substr(2, raw.size() - 3), raw, quoted));
      return std::nullopt;
    }
    if (is_name_start(next)) {
      advance();
      std::string name;
      while (pos_ < text_.size() && is_name_char(text_[pos_])) {
        name += text_[pos_];
        advance();
      }
      w.parts.push_back(part{part_kind::variable, name, quoted, std::nullopt, {}});
      return std::nullopt;
    }
    if (std::isdigit(static_cast<unsigned char>(next)) != 0 ||
        std::string_view("@*#?$!-").find(next) != std::string_view::npos) {
      w.parts.push_back(part{part_kind::unresolved, std::string("$") + next, quoted, std::nullopt, {}});
      advance(2);
      return std::nullopt;
    }
    literal(w, '$', quoted);
    advance();
    return std::nullopt;
  }

  // ${NAME}, ${NAME[@]}, ${NAME:-fallback}, ${1:-fallback}, and ${NAME:=fallback}, which expands
  // the same and also assigns the fallback to NAME (interpreter::assign_defaults); anything else
  // stays as written.
  static part braced(const std::string& inner, const std::string& raw, bool quoted) {
    std::size_t i = 0;
    while (i < inner.size() && (is_name_char(inner[i]))) ++i;
    const std::string name = inner.substr(0, i);
    const std::string rest = inner.substr(i);
    const bool named = !name.empty() &&
                       (is_name_start(name[0]) || std::all_of(name.begin(), name.end(), ::isdigit));
    if (!named) return part{part_kind::unresolved, raw, quoted, std::nullopt, {}};
    if (rest.empty()) return part{part_kind::variable, name, quoted, std::nullopt, raw};
    if (rest == "[@]" || rest == "[*]")
      return part{part_kind::array, name, quoted, std::nullopt, rest};
    for (std::string_view op : {":-", "-", ":=", "="}) {
      if (rest.rfind(op, 0) != 0) continue;
      std::string fallback = rest.substr(op.size());
      const bool single = fallback.size() >= 2 && fallback[0] == '\'' && fallback.back() == '\'';
      if (fallback.size() >= 2 && (fallback[0] == '"' || single) && fallback.back() == fallback[0])
        fallback = fallback.substr(1, fallback.size() - 2);
      // A fallback that refers to variables ("${BASE_DIR}/post") is expanded when it is used
      // (expander::fallback_text); in single quotes a '$' would be literal: left as written.
      if (single && fallback.find('$') != std::string::npos) break;
      return part{part_kind::variable, name, quoted, fallback, raw};
    }
    return part{part_kind::unresolved, raw, quoted, std::nullopt, {}};
  }

  std::string_view text_;
  const std::string& source_;
  std::shared_ptr<const sourced_file> file_;  // what read words are marked written in
  std::size_t pos_ = 0;
  int line_ = 1, column_ = 1;
  char unclosed_quote_ = 0;
};

using variables = std::map<std::string, std::vector<shell_word>>;

// One of folder_of's forms with its blanks and quotes taken out: an idiom of `idioms` (true
// when it names the file being read), or a folder form followed by a way from it, `$(cd
// FORM/../.. && pwd)`, `$(realpath FORM/..)`, and `$(dirname FORM)` for its parent (a project
// root two folders above the script). The way holds names and `..` only.
std::optional<std::string> folder_form(std::string_view text,
                                       const std::map<std::string, bool>& idioms,
                                       const std::pair<std::string, std::string>& folders) {
  if (const auto it = idioms.find(std::string(text)); it != idioms.end())
    return it->second ? folders.second : folders.first;
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> wrappers{
      {{"$(cd", "&&pwd)"},
       {"$(cd", ";pwd)"},
       {"$(realpath", ")"},
       {"$(readlink", ")"},
       {"$(dirname", ")"}}};
  for (const auto& [open, close] : wrappers) {
    if (text.size() <= open.size() + close.size() || !text.starts_with(open) ||
        !text.ends_with(close))
      continue;
    const std::string_view inner =
        text.substr(open.size(), text.size() - open.size() - close.size());
    // The inner form ends at a `)` followed by the way (or by nothing).
    for (std::size_t end = inner.size(); end > 0; --end) {
      if (inner[end - 1] != ')') continue;
      const std::string_view way = inner.substr(end);
      if (!way.empty() && (way[0] != '/' || way.find_first_of("$()`~") != std::string_view::npos))
        continue;
      const auto base = folder_form(inner.substr(0, end), idioms, folders);
      if (!base) continue;
      namespace fs = std::filesystem;
      fs::path folder = (fs::path(*base) / fs::path(way).relative_path()).lexically_normal();
      if (!folder.has_filename()) folder = folder.parent_path();  // "/a/b/" is "/a/b"
      if (open == "$(dirname") folder = folder.parent_path();
      std::string out = folder.string();
      while (out.size() > 1 && out.ends_with('/')) out.pop_back();
      return out;
    }
  }
  return std::nullopt;
}

// The command substitutions scripts write for their own folder, so that they run from anywhere:
// `$(dirname "$0")`, `$(cd "$(dirname "$0")" && pwd)`, `$(cd -- "$(dirname --
// "${BASH_SOURCE[0]}")" &> /dev/null && pwd)`, `$(dirname $(realpath $0))`, `$(realpath
// $(dirname $0))`, ... `$0` is the script bash runs, also inside a file it sources;
// `${BASH_SOURCE[0]}` is the file being read. What the folder is (folders: the script's, the
// file's), or nullopt for any other text and when the script is not on disk.
std::optional<std::string> folder_of(const std::string& raw,
                                     const std::pair<std::string, std::string>& folders) {
  if (folders.first.empty() || !raw.starts_with("$(") || raw.find("dirname") == std::string::npos)
    return std::nullopt;
  // Quotes, option words and redirections to /dev/null change nothing of the value; then blanks.
  std::string spaced = " ";
  for (const char c : raw)
    if (c != '"' && c != '\'') spaced += is_blank(c) || c == '\n' ? ' ' : c;
  spaced += ' ';
  for (const std::string_view drop : {" -- ", " -P ", " -L ", " -f ", " -e ", " -m ", " -s "})
    for (auto at = spaced.find(drop); at != std::string::npos; at = spaced.find(drop))
      spaced.replace(at, drop.size(), " ");
  std::string text;
  for (const char c : spaced)
    if (c != ' ') text += c;
  for (const std::string_view drop : {"&>/dev/null", "2>/dev/null", ">/dev/null", "2>&1"})
    for (auto at = text.find(drop); at != std::string::npos; at = text.find(drop))
      text.erase(at, drop.size());
  static const std::map<std::string, bool> idioms = [] {
    std::map<std::string, bool> out;  // each form, true when it names the file being read
    for (const std::string_view self :
         {"$0", "${0}", "${BASH_SOURCE[0]}", "${BASH_SOURCE}", "$BASH_SOURCE"})
      for (const std::string_view resolve : {"", "realpath", "readlink"}) {
        const std::string path =
            resolve.empty() ? std::string(self) : fmt::format("$({}{})", resolve, self);
        const std::string dir = fmt::format("$(dirname{})", path);
        for (const std::string& form :
             {dir, fmt::format("$(cd{}&&pwd)", dir), fmt::format("$(cd{};pwd)", dir),
              fmt::format("$(realpath{})", dir), fmt::format("$(readlink{})", dir)})
          out.emplace(form, self.find("BASH_SOURCE") != std::string_view::npos);
      }
    return out;
  }();
  return folder_form(text, idioms, folders);
}

// A test's value from its operands as the shell has expanded them (`open`: "[", "[[" or "test";
// `t`: the words between the brackets): = == != -eq -ne -lt -le -gt -ge, `-z A`, `-n A`; nullopt
// for anything else (a `[[` pattern, an operand that is no whole number where one is compared).
std::optional<bool> test_of(const std::string& open, const std::vector<std::string>& t) {
  const auto number = [](const std::string& v) -> std::optional<long long> {
    const std::size_t digits = v.starts_with('-') ? 1 : 0;
    if (v.size() <= digits || v.size() > 18 ||
        v.find_first_not_of("0123456789", digits) != std::string::npos)
      return std::nullopt;
    return std::stoll(v);
  };
  if (t.size() == 2 && (t[0] == "-z" || t[0] == "-n"))
    return t[0] == "-z" ? t[1].empty() : !t[1].empty();
  if (t.size() != 3) return std::nullopt;
  const std::string &a = t[0], &op = t[1], &b = t[2];
  if (op == "=" || op == "==" || op == "!=") {
    if (open == "[[" && b.find_first_of("*?[") != std::string::npos) return std::nullopt;
    return (a == b) == (op != "!=");
  }
  const auto x = number(a), y = number(b);
  if (!x || !y) return std::nullopt;
  if (op == "-eq") return *x == *y;
  if (op == "-ne") return *x != *y;
  if (op == "-lt") return *x < *y;
  if (op == "-le") return *x <= *y;
  if (op == "-gt") return *x > *y;
  if (op == "-ge") return *x >= *y;
  return std::nullopt;
}

std::string literal_text(const raw_word& w);

// The value of the test `words[from..]`, `[ ... ]`, `[[ ... ]]` or `test ...`, its operands'
// texts as `resolve(words, first, last)` expands them (nullopt where it cannot); test_of's.
template <class Resolve>
std::optional<bool> bracket_test(const std::vector<raw_word>& words, std::size_t from,
                                 Resolve&& resolve) {
  if (words.size() < from + 2) return std::nullopt;
  const std::string open = literal_text(words[from]);
  const std::string close = literal_text(words.back());
  std::size_t to = words.size();
  if ((open == "[" && close == "]") || (open == "[[" && close == "]]"))
    --to;
  else if (open != "test")
    return std::nullopt;
  const std::optional<std::vector<std::string>> t = resolve(words, from + 1, to);
  if (!t) return std::nullopt;
  return test_of(open, *t);
}

// Expands one word into fields. `split`: unquoted expansions are split on blanks (a command's
// words and array elements); assignments keep one field. Text past the budget (`left`, counted
// down, and max_shell_word_bytes a word) is dropped and `over` set: the caller reports it.
class expander {
 public:
  // `folders`: what `$(dirname "$0")` and `$(dirname "${BASH_SOURCE[0]}")` expand to (the
  // script's folder and that of the file being read), empty when the script is not on disk.
  expander(const variables& vars, const raw_word& w, bool split, std::vector<std::string>& missing,
           std::vector<std::string>& unset, std::size_t& left, bool& over,
           const std::pair<std::string, std::string>& folders)
      : vars_(vars),
        split_(split),
        missing_(missing),
        unset_(unset),
        left_(left),
        over_(over),
        folders_(folders) {
    cur_ = shell_word{"", w.line, w.column, false, w.file};
  }

  std::vector<shell_word> run(const raw_word& w) {
    for (const auto& p : w.parts) {
      switch (p.kind) {
        case part_kind::text:
          append(p.value, true);
          break;
        case part_kind::unresolved:
          if (const auto value = arithmetic(p.value)) {
            spread(std::to_string(*value), p.quoted, nullptr);
            break;
          }
          if (const auto folder = folder_of(p.value, folders_)) {
            spread(*folder, true, nullptr);
            break;
          }
          // "$@" of a shell given arguments (`bash -c '... "$@"' _ ARGS`, inner_command): a word
          // of each, as for "${ARGS[@]}".
          if (p.value == "$@" || p.value == "${@}")
            if (const auto it = vars_.find("@"); it != vars_.end()) {
              positional(it->second, p.quoted);
              break;
            }
          // `$1` of a script run with arguments (a wrapper's `bash inner.sh 8`, follow_child).
          if (p.value.size() == 2 && std::isdigit(static_cast<unsigned char>(p.value[1])) != 0)
            if (const auto it = vars_.find(p.value.substr(1));
                it != vars_.end() && !it->second.empty()) {
              spread(it->second[0].text, p.quoted, &it->second[0]);
              cur_.unresolved = cur_.unresolved || it->second[0].unresolved;
              break;
            }
          if (const auto output = chosen_output(p.value)) {
            spread(*output, p.quoted, nullptr);
            break;
          }
          append(p.value, true);
          cur_.unresolved = true;
          break;
        case part_kind::variable:
          variable(p);
          break;
        case part_kind::array:
          array(p);
          break;
      }
    }
    push();
    return std::move(fields_);
  }

 private:
  // `$( [ TEST ] && echo WORDS || echo WORDS )` (or without the `||` arm): flags a script
  // chooses by a test of its own values, the chosen echo's words as its output (empty when the
  // test fails and there is no other arm). nullopt for any other command, a test of values the
  // script does not set, or echo's -e / -E.
  std::optional<std::string> chosen_output(const std::string& raw) {
    if (raw.size() < 4 || !raw.starts_with("$(") || raw.starts_with("$((") || !raw.ends_with(')'))
      return std::nullopt;
    std::vector<statement> statements;
    static const std::string no_source;
    if (lexer(raw.substr(2, raw.size() - 3), no_source).run(statements)) return std::nullopt;
    if (statements.size() < 2 || statements.size() > 3 || statements[0].end != '&' ||
        (statements.size() == 3 && statements[1].end != '|'))
      return std::nullopt;
    const auto texts = [&](const std::vector<raw_word>& words, std::size_t from,
                           std::size_t to) -> std::optional<std::vector<std::string>> {
      std::vector<std::string> out;
      for (std::size_t i = from; i < to; ++i) {
        std::vector<std::string> missing, unset;
        const auto fields =
            expander(vars_, words[i], false, missing, unset, left_, over_, folders_).run(words[i]);
        if (fields.size() != 1 || fields[0].unresolved || !missing.empty() || !unset.empty())
          return std::nullopt;
        out.push_back(fields[0].text);
      }
      return out;
    };
    const auto value = bracket_test(statements[0].words, 0, texts);
    if (!value) return std::nullopt;
    const auto echoed = [&](const statement& st) -> std::optional<std::string> {
      if (st.words.empty() || literal_text(st.words[0]) != "echo") return std::nullopt;
      auto words = texts(st.words, 1, st.words.size());
      if (!words) return std::nullopt;
      if (!words->empty() && ((*words)[0] == "-e" || (*words)[0] == "-E")) return std::nullopt;
      if (!words->empty() && (*words)[0] == "-n") words->erase(words->begin());
      return fmt::format("{}", fmt::join(*words, " "));
    };
    if (*value) return echoed(statements[1]);
    if (statements.size() == 3) return echoed(statements[2]);
    if (!echoed(statements[1])) return std::nullopt;  // only the shape this reads
    return std::string();
  }

  // `$((expr))` of whole numbers and variables the script sets to whole numbers: + - * / % and
  // parentheses, integer division truncating toward zero, as bash evaluates it (bash(1),
  // "ARITHMETIC EVALUATION"). Anything else (a variable the script does not set, a command, an
  // operator outside those, overflow, division by zero) leaves the word unresolved.
  std::optional<long long> arithmetic(const std::string& raw) const {
    // `$(expr $NNODES \* 8)` (or in backquotes): coreutils' expr(1) on whole numbers, each
    // operand and operator its own word, `*` escaped from the shell; the same arithmetic.
    for (const auto& [open, close] :
         {std::pair<std::string_view, std::string_view>{"$(", ")"}, {"`", "`"}}) {
      if (raw.size() <= open.size() + close.size() || !raw.starts_with(open) ||
          !raw.ends_with(close) || raw.starts_with("$(("))
        continue;
      std::string_view body(raw);
      body = body.substr(open.size(), body.size() - open.size() - close.size());
      const auto start = body.find_first_not_of(" \t");
      if (start == std::string_view::npos || body.substr(start).rfind("expr ", 0) != 0)
        return std::nullopt;
      std::string sum;
      for (std::string_view rest = body.substr(start + 5); !rest.empty();) {
        const auto word_start = rest.find_first_not_of(" \t");
        if (word_start == std::string_view::npos) break;
        rest.remove_prefix(word_start);
        const auto end = std::min(rest.find_first_of(" \t"), rest.size());
        std::string word(rest.substr(0, end));
        rest.remove_prefix(end);
        if (word == "\\*" || word == "'*'" || word == "\"*\"") word = "*";
        if (word == "\\(" || word == "\\)") word = word.substr(1);
        const bool op = word == "+" || word == "-" || word == "*" || word == "/" || word == "%" ||
                        word == "(" || word == ")";
        const bool operand =
            !word.empty() &&
            word.find_first_not_of(
                "0123456789$_{}abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
                std::string::npos;
        if (!op && !operand) return std::nullopt;
        sum += word + " ";
      }
      return sum.empty() ? std::nullopt : arithmetic("$((" + sum + "))");
    }
    if (raw.size() < 5 || raw.rfind("$((", 0) != 0 || !raw.ends_with("))")) return std::nullopt;
    const std::string expr = raw.substr(3, raw.size() - 5);
    std::size_t i = 0;
    int depth = 0;
    const auto skip = [&] {
      while (i < expr.size() && (is_blank(expr[i]) || expr[i] == '\n')) ++i;
    };
    std::function<std::optional<long long>()> sum, operand;
    operand = [&]() -> std::optional<long long> {
      skip();
      if (i >= expr.size()) return std::nullopt;
      if (expr[i] == '(') {
        if (++depth > 16) return std::nullopt;
        ++i;
        auto v = sum();
        skip();
        --depth;
        if (!v || i >= expr.size() || expr[i] != ')') return std::nullopt;
        ++i;
        return v;
      }
      if (expr[i] == '-' || expr[i] == '+') {
        const bool minus = expr[i++] == '-';
        if (++depth > 16) return std::nullopt;
        auto v = operand();
        --depth;
        if (!v || (minus && *v == std::numeric_limits<long long>::min())) return std::nullopt;
        return minus ? -*v : *v;
      }
      std::string text;
      if (std::isdigit(static_cast<unsigned char>(expr[i])) != 0) {
        while (i < expr.size() && std::isdigit(static_cast<unsigned char>(expr[i])) != 0)
          text += expr[i++];
      } else {
        bool braces = false;
        if (expr[i] == '$') {
          ++i;
          braces = i < expr.size() && expr[i] == '{';
          if (braces) ++i;
        }
        std::string name;
        while (i < expr.size() && is_name_char(expr[i])) name += expr[i++];
        if (braces && (i >= expr.size() || expr[i++] != '}')) return std::nullopt;
        const auto it = vars_.find(name);
        if (name.empty() || it == vars_.end() || it->second.empty() || it->second[0].unresolved)
          return std::nullopt;
        text = it->second[0].text;
      }
      if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
      return std::stoll(text);
    };
    const auto product = [&]() -> std::optional<long long> {
      auto v = operand();
      for (skip(); v && i < expr.size() && (expr[i] == '*' || expr[i] == '/' || expr[i] == '%');
           skip()) {
        const char op = expr[i++];
        const auto r = operand();
        if (!r) return std::nullopt;
        long long out = 0;
        if (op == '*' && __builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
        if (op != '*' && (*r == 0 || (*v == std::numeric_limits<long long>::min() && *r == -1)))
          return std::nullopt;
        v = op == '*' ? out : op == '/' ? *v / *r : *v % *r;
      }
      return v;
    };
    sum = [&]() -> std::optional<long long> {
      auto v = product();
      for (skip(); v && i < expr.size() && (expr[i] == '+' || expr[i] == '-'); skip()) {
        const char op = expr[i++];
        const auto r = product();
        long long out = 0;
        if (!r || (op == '+' ? __builtin_add_overflow(*v, *r, &out)
                             : __builtin_sub_overflow(*v, *r, &out)))
          return std::nullopt;
        v = out;
      }
      return v;
    };
    auto value = sum();
    skip();
    if (!value || i != expr.size()) return std::nullopt;
    return value;
  }

  void append(const std::string& text, bool keep) {
    if (text.size() > left_ || cur_.text.size() + text.size() > max_shell_word_bytes) over_ = true;
    if (over_) return;
    left_ -= text.size();
    cur_.text += text;
    started_ = started_ || keep;
  }
  void locate_at(const shell_word& from) {
    cur_.line = from.line;
    cur_.column = from.column;
    cur_.file = from.file;
  }
  void push() {
    if (started_) fields_.push_back(cur_);
    cur_ = shell_word{"", cur_.line, cur_.column, false, cur_.file};
    started_ = false;
  }
  // `value` split on blanks into fields unless quoted; `from` locates fields it starts.
  void spread(const std::string& value, bool quoted, const shell_word* from) {
    if (quoted || !split_) {
      if (from != nullptr && !started_) locate_at(*from);
      append(value, true);
      return;
    }
    // A command substitution left as written (`$(nvidia-smi --query-gpu=name | wc -l)`, kept in
    // a variable) stands for its output: one word, not the words of its command.
    std::size_t i = 0;
    int depth = 0;
    while (i < value.size()) {
      if (depth == 0 && value[i] == '`') {  // `command`, the older form: one word as well
        const std::size_t close = value.find('`', i + 1);
        const std::size_t end = close == std::string::npos ? value.size() : close + 1;
        if (from != nullptr && !started_) locate_at(*from);
        append(value.substr(i, end - i), true);
        i = end;
        continue;
      }
      if (value[i] == '$' && i + 1 < value.size() && value[i + 1] == '(') {
        ++depth;
        if (from != nullptr && !started_) locate_at(*from);
        append("$(", true);
        i += 2;
        continue;
      }
      if (depth > 0 && value[i] == '(') ++depth;
      if (depth > 0 && value[i] == ')') --depth;
      if (depth == 0 && (is_blank(value[i]) || value[i] == '\n')) {
        push();
        while (i < value.size() && (is_blank(value[i]) || value[i] == '\n')) ++i;
        continue;
      }
      if (from != nullptr && !started_) locate_at(*from);
      append(std::string(1, value[i]), true);
      ++i;
    }
  }
  // The fallback of ${NAME:-fallback} as bash expands it: lexed as a double-quoted string's
  // content (lexer::read_quoted_text), each variable in it replaced by its value (or its own
  // fallback, to a depth of 8), an array by its elements joined with blanks; a variable the
  // script does not set, text the lexer cannot close and other expansions stay as written and
  // make the word unresolved.
  std::string fallback_text(const std::string& text, int depth = 0) {
    static const std::string no_source;
    raw_word w;
    if (lexer(text, no_source).read_quoted_text(w)) {
      cur_.unresolved = true;
      return text;
    }
    std::string out;
    for (const auto& p : w.parts) {
      if (p.kind == part_kind::text) {
        out += p.value;
        continue;
      }
      if (p.kind == part_kind::unresolved) {
        if (const auto value = arithmetic(p.value)) {
          out += std::to_string(*value);
        } else {
          out += p.value;
          cur_.unresolved = true;
        }
        continue;
      }
      const auto it = vars_.find(p.value);
      if (p.kind == part_kind::array) {
        if (it == vars_.end()) {
          out += "${" + p.value + "[@]}";
          cur_.unresolved = true;
          continue;
        }
        for (std::size_t i = 0; i < it->second.size(); ++i) {
          out += (i > 0 ? " " : "") + it->second[i].text;
          cur_.unresolved = cur_.unresolved || it->second[i].unresolved;
        }
        continue;
      }
      const bool set = it != vars_.end() && !it->second.empty() && !it->second[0].text.empty();
      if (set) {
        out += it->second[0].text;
        cur_.unresolved = cur_.unresolved || it->second[0].unresolved;
      } else if (p.fallback && depth < 8) {
        out += fallback_text(*p.fallback, depth + 1);
      } else if (it == vars_.end()) {
        out += p.raw.empty() ? "$" + p.value : p.raw;
        cur_.unresolved = true;
      }  // else set to nothing: expands to nothing
    }
    return out;
  }

  void variable(const part& p) {
    const auto it = vars_.find(p.value);
    const bool set = it != vars_.end() && !it->second.empty() && !it->second[0].text.empty();
    if (!set && p.fallback) return spread(fallback_text(*p.fallback), p.quoted, nullptr);
    if (it == vars_.end()) {
      append("$" + p.value, true);
      cur_.unresolved = true;
      unset_.push_back(p.value);
      return;
    }
    if (it->second.empty()) return;
    spread(it->second[0].text, p.quoted, nullptr);
    cur_.unresolved = cur_.unresolved || it->second[0].unresolved;
  }
  void array(const part& p) {
    const auto it = vars_.find(p.value);
    if (it == vars_.end()) {
      missing_.push_back(p.value);
      return;
    }
    // "${ARGS[*]}" is one word, the elements joined with a space (IFS's first character), where
    // "${ARGS[@]}" makes a word of each (bash(1), "Arrays"): `bash -c "python x.py ${ARGS[*]}"`
    // runs them all, `bash -c "python x.py ${ARGS[@]}"` only the first (the others are $0, $1).
    positional(it->second, p.quoted, p.quoted && p.raw == "[*]");
  }

  // The elements of an array, or of "$@": a field of each, or one word when `joined`.
  void positional(const std::vector<shell_word>& elements, bool quoted, bool joined = false) {
    bool first = true;
    for (const auto& element : elements) {
      // Where no fields are made (an assignment, VAR="... ${ARGS[@]} ..."), bash joins the
      // elements with a space, as it joins "$@" where no word splitting is done.
      if (!first && split_ && !joined) push();
      if (!first && (!split_ || joined)) append(" ", true);
      first = false;
      spread(element.text, quoted, &element);
      cur_.unresolved = cur_.unresolved || element.unresolved;
    }
  }

  const variables& vars_;
  bool split_;
  std::vector<std::string>& missing_;
  std::vector<std::string>& unset_;  // scalar variables expanded while unset
  std::size_t& left_;
  bool& over_;
  const std::pair<std::string, std::string>& folders_;
  std::vector<shell_word> fields_;
  shell_word cur_;
  bool started_ = false;
};

constexpr std::array<std::string_view, 7> declarators{"export",  "local", "declare", "readonly",
                                                      "typeset", "env",   "set"};
constexpr std::array<std::string_view, 14> keywords{"if",   "elif", "while", "until", "for",
                                                    "case", "then", "else",  "do",    "fi",
                                                    "done", "esac", "{",     "}"};

std::string literal_text(const raw_word& w) {
  if (w.parts.size() != 1 || w.parts[0].kind != part_kind::text) return "";
  return w.parts[0].value;
}

// A word naming a Python program: ending in .py, without blanks but those inside a command
// substitution left as written (`$(dirname "$SCRIPT_DIR")/tools/pretrain_x.py`, a directory the
// script finds when it runs).
bool is_script(const std::string& word) {
  if (word.size() <= 3 || word.compare(word.size() - 3, 3, ".py") != 0) return false;
  int depth = 0;
  bool backquoted = false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if (c == '`')
      backquoted = !backquoted;
    else if (c == '$' && i + 1 < word.size() && word[i + 1] == '(')
      ++depth, ++i;
    else if (c == '(' && depth > 0)
      ++depth;
    else if (c == ')' && depth > 0)
      --depth;
    else if ((c == ' ' || c == '\t' || c == '\n') && depth == 0 && !backquoted)
      return false;
  }
  return true;
}

// A command's first word that starts a training launch: a distributed launcher, a job
// launcher, or Python itself (python, python3, /usr/bin/python3.10).
bool starts_a_launch(const std::string& word) {
  const std::string_view name = program_name(word);
  for (std::string_view c :
       {"torchrun", "dlrover-run", "deepspeed", "accelerate", "srun", "mpirun", "mpiexec", "jsrun"})
    if (name == c) return true;
  return name.starts_with("python");
}

// Commands that name a script without running it.
bool runs_nothing(const std::string& command) {
  for (std::string_view c : {"echo", "printf", "test", "[", "[[", "ls", "cat", "cp", "mv", "rm",
                             "mkdir", "cd", "wget", "curl"})
    if (command == c) return true;
  return false;
}

// Where the word that `text` starts with ends when eval reads it again: at a blank outside quotes,
// a command substitution (`$(python3 -c '...')`, backquotes) and the parentheses in it.
std::size_t evaluated_word_end(std::string_view text) {
  int depth = 0;
  char quote = 0;
  bool backquoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
    } else if (c == '\\') {
      ++i;
    } else if (c == '`') {
      backquoted = !backquoted;
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      ++depth, ++i;
    } else if (depth > 0 && c == '(') {
      ++depth;
    } else if (depth > 0 && c == ')') {
      --depth;
    } else if (c == '"' && depth == 0 && !backquoted) {
      quote = quote == '"' ? 0 : '"';
    } else if (c == '\'' && quote == 0 && depth == 0 && !backquoted) {
      quote = '\'';
    } else if ((c == ' ' || c == '\t' || c == '\n') && quote == 0 && depth == 0 && !backquoted) {
      return i;
    }
  }
  return text.size();
}

// Words a command line may start with that run the rest of the line as the command itself:
// bash's `time [-p]`, `exec`, `command` and `eval` (its words, already split, are the command),
// `nohup`, `env [-i] [-u NAME] [NAME=value ...]`,
// coreutils' `stdbuf -oL -eL` (bash(1) SHELL GRAMMAR, Pipelines; env(1), nohup(1), stdbuf(1)).
// Removes them, so that the launcher or the interpreter after them is the command's first word.
void drop_command_prefixes(std::vector<shell_word>& fields) {
  std::size_t at = 0;
  for (bool dropped = true; dropped && at < fields.size();) {
    dropped = false;
    const std::string& word = fields[at].text;
    if (word == "time" || word == "exec" || word == "command" || word == "nohup" ||
        word == "stdbuf" || word == "env" || word == "eval") {
      ++at;
      dropped = true;
      while (at < fields.size()) {
        const std::string& next = fields[at].text;
        const bool option = next.size() > 1 && next[0] == '-';
        const std::size_t eq = next.find('=');
        const bool assignment =
            word == "env" && eq != std::string::npos && eq > 0 && next.find_first_of("/ ") > eq;
        if (!option && !assignment) break;
        // env -u NAME: the name is the option's value.
        at += word == "env" && (next == "-u" || next == "--unset") ? 2u : 1u;
      }
    }
  }
  const bool evaluated =
      std::any_of(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(at),
                  [](const shell_word& w) { return w.text == "eval"; });
  if (at > 0 && at < fields.size())
    fields.erase(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(at));
  // `eval "$CMD"`: eval joins its words and reads them again as a command (bash(1), eval), so a
  // quoted command line is its words, split at blanks, each at the word it came from. Read again,
  // a control operator in them (`| tee log`, `; echo done`, `&& ...`) ends the command, and a
  // redirection (`> log`, `2>&1`) is not one of its words.
  if (evaluated) {
    std::vector<shell_word> words;
    bool ended = false, target = false;
    for (const auto& f : fields) {
      std::string_view rest = f.text;
      while (!rest.empty() && !ended) {
        const auto start = rest.find_first_not_of(" \t\n");
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        // `#` starting a word comments out the rest of its line; eval joins its words with
        // blanks, so without a newline after it that is the rest of the command.
        if (rest.front() == '#') {
          const auto newline = rest.find('\n');
          if (newline == std::string_view::npos) {
            ended = true;
            break;
          }
          rest.remove_prefix(newline);
          continue;
        }
        const std::size_t end = evaluated_word_end(rest);
        std::string_view piece = rest.substr(0, end);
        if (piece.size() >= 2 && (piece.front() == '"' || piece.front() == '\'') &&
            piece.back() == piece.front())
          piece = piece.substr(1, piece.size() - 2);
        rest.remove_prefix(end);
        if (piece == "|" || piece == "|&" || piece == "||" || piece == "&&" || piece == ";" ||
            piece == "&") {
          ended = true;
          break;
        }
        if (target) {  // the file of a redirection written apart from its operator
          target = false;
          continue;
        }
        const std::size_t digits = std::min(piece.find_first_not_of("0123456789"), piece.size());
        const std::string_view op = piece.substr(digits);
        if (op.starts_with(">") || op.starts_with("&>")) {
          target = op.find_first_not_of(">&|") == std::string_view::npos;
          continue;
        }
        shell_word w = f;
        w.text = std::string(piece);
        words.push_back(std::move(w));
      }
    }
    fields = std::move(words);
  }
}

// An open conditional or loop: whether the script's arguments choose it, and where it opens.
struct region {
  bool chosen = false;
  bool is_case = false;
  int line = 0, column = 0;
  // A condition (or case word) of the script's own values, evaluated: only the branch it takes
  // is read. `taking`: the branch being read is taken; `taken`: some branch already was.
  bool evaluated = false;
  bool taking = true;
  bool taken = false;
  std::string subject;  // a case's word
  int arm = 0;  // the branch being read: 0 for the first, one more at each elif, else or case arm
  // An `if` whose test is a list (`[[ A ]] || [[ B ]]`): the tests after the first are statements
  // of their own, read into the value so far (unknown: nullopt) until one ends the list; `op` is
  // the operator before the next.
  bool header_open = false;
  std::optional<bool> header_value;
  char header_op = 0;
};

// `text` matches the case pattern `pattern` (`*` any run, `?` one character); nullopt for
// bracket expressions, which are not read.
std::optional<bool> glob_match(std::string_view pattern, std::string_view text) {
  if (pattern.find('[') != std::string_view::npos) return std::nullopt;
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

class interpreter {
 public:
  interpreter(std::string_view text, const std::string& source)
      : text_(text),
        source_(source),
        script_text_(text),
        script_source_(source),
        left_(max_shell_expanded_bytes + 4 * text.size()) {
    // Sourced files are looked for only beside a script read from disk.
    std::error_code failed;
    if (!source.empty() && std::filesystem::is_regular_file(source, failed)) {
      const auto folder = std::filesystem::absolute(source, failed).parent_path();
      if (!failed)
        folders_ = {folder.lexically_normal().string(), folder.lexically_normal().string()};
    }
  }

  // One statement of the script (or of a `bash -c` string inside it): an array, an assignment,
  // a declaration or a command, read in order.
  maybe_error one_statement(const statement& s, shell_launch& out, std::vector<shell_word>& loose) {
    const bool arm_ends = s.end == 'c';
    if (s.array) {
      if (!skipping())
        if (auto err = assign_array(s)) return err;
      if (arm_ends) awaiting_pattern_ = true;
      return std::nullopt;
    }
    std::vector<raw_word> words = s.words;
    if (!strip_pattern(words, s)) {
      if (arm_ends) awaiting_pattern_ = true;  // an empty arm: `two) ;;`
      return std::nullopt;
    }
    if (!strip_keywords(words, s)) {
      if (arm_ends) awaiting_pattern_ = true;
      return std::nullopt;
    }
    if (arm_ends) awaiting_pattern_ = true;
    if (skipping()) return std::nullopt;
    if (!s.heredocs.empty() && literal_text(words[0]) == "read") {
      read_heredoc(words, s);
      return std::nullopt;
    }
    if (!s.heredocs.empty()) written_file(words, s, out);
    strip_redirections(words);
    bool exported = false;
    while (!words.empty() && std::find(declarators.begin(), declarators.end(),
                                       literal_text(words[0])) != declarators.end()) {
      exported = exported || literal_text(words[0]) == "export";
      words.erase(words.begin());
      while (!words.empty() && literal_text(words[0]).rfind('-', 0) == 0)
        words.erase(words.begin());
    }
    std::vector<std::pair<std::string, shell_word>> set_here;
    while (!words.empty() && (assignment_prefix(words[0]) > 0 || exported)) {
      const std::string name =
          assignment_prefix(words[0]) > 0 ? assign(words[0]) : literal_text(words[0]);
      if (auto err = over_budget(words[0].line)) return err;
      if (exported) export_variable(name, words[0], out);
      set_here.push_back(
          {name, shell_word{"", words[0].line, words[0].column, false, words[0].file}});
      words.erase(words.begin());
    }
    if (words.empty()) {
      for (const auto& [name, at] : set_here) assigned(name, at.line, at.column);
      return std::nullopt;
    }
    assign_defaults(words);
    std::vector<shell_word> fields;
    for (const auto& w : words)
      for (auto& f : expand(w, true)) fields.push_back(std::move(f));
    if (auto err = over_budget(s.line)) return err;
    // bash recognises `NAME=value` as an assignment only where it is written before the
    // command; one that an expansion produces (`$ENV_ARGS deepspeed ...` with ENV_ARGS="A=1")
    // is the command's name, which no program has (bash(1), "SIMPLE COMMAND EXPANSION").
    name_is_assignment_ = !fields.empty() && assignment_like(fields[0].text);
    const shell_word launch_before = out.script;
    if (!fields.empty()) command(fields, out, loose);  // "${EMPTY[@]}" alone is no command
    name_is_assignment_ = false;
    // Assignments written before a command are in that command's environment (bash(1),
    // "SIMPLE COMMAND EXPANSION"): `CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun ...` exports it to
    // the launch.
    const bool launched_here = out.script.line != launch_before.line ||
                               out.script.column != launch_before.column ||
                               out.script.text != launch_before.text;
    if (launched_here && !exported)
      for (const auto& [name, at] : set_here) {
        raw_word where;
        where.line = at.line;
        where.column = at.column;
        where.file = at.file;
        export_variable(name, where, out);
      }
    return std::nullopt;
  }

  maybe_error run(const std::vector<statement>& statements, shell_launch& out) {
    seed_slurm(out);
    seed_grid_engine();
    std::vector<shell_word> loose;  // words of commands that start with an option
    for (const auto& s : statements)
      if (auto err = one_statement(s, out, loose)) return err;
    // What a sourced file's statements expanded past the budget, when no statement followed it.
    if (!statements.empty())
      if (auto err = over_budget(statements.back().line)) return err;
    if (out.script.text.empty() && loose.empty()) sourced_arguments(loose, out);
    if (out.script.text.empty()) {
      // A plain argument list: a line that is neither arguments nor shell plumbing of a launch.
      out.args = std::move(loose);
      for (const auto& w : other_commands_)
        note_at(w, fmt::format("\"{}\" starts no argument (--flag) and runs no "
                               "Python script; the line is ignored",
                               w.text));
    }
    out.chosen_by_arguments = chosen_;
    // A function's body runs when it is called, with what is set by then, but is read here
    // where it is written: in a script that defines one, an expansion above an assignment is no
    // evidence.
    if (!defines_function(text_)) out.expanded_before_set = expanded_before_set_;
    out.run_time_values = run_time_;
    out.set_from_arguments = set_from_arguments_;
    out.unrun_launches = unrun_launches_;
    out.notes.insert(out.notes.end(), notes_.begin(), notes_.end());
    return std::nullopt;
  }

 private:
  // A SLURM batch script's `#SBATCH --nodes=N`, `--ntasks-per-node=N`, `--ntasks=N` and
  // `--gpus-per-task=N` set, in the job's environment, SLURM_JOB_NUM_NODES (and SLURM_NNODES),
  // SLURM_NTASKS_PER_NODE, SLURM_NTASKS (and SLURM_NPROCS) and SLURM_GPUS_PER_TASK (sbatch(1),
  // "OUTPUT ENVIRONMENT VARIABLES"): the script's own values for those names, located at the
  // #SBATCH line. A script that sets the name itself wins, as it would in bash.
  void seed_slurm(shell_launch& out) {
    for_each_line(text_, [&](std::string_view row, int line) {
      const auto first = row.find_first_not_of(" \t");
      if (first == std::string_view::npos || row.substr(first, 7) != "#SBATCH") return true;
      std::vector<std::pair<std::string, int>> words;  // each word with its column
      for (std::size_t i = first + 7; i < row.size();) {
        while (i < row.size() && is_blank(row[i])) ++i;
        std::size_t j = i;
        while (j < row.size() && !is_blank(row[j]) && row[j] != '#') ++j;
        if (j > i) words.emplace_back(std::string(row.substr(i, j - i)), static_cast<int>(i) + 1);
        if (j < row.size() && row[j] == '#') break;  // a comment after the options
        i = j;
      }
      for (std::size_t k = 0; k < words.size(); ++k) {
        std::string key = words[k].first, value;
        if (const auto eq = key.find('='); eq != std::string::npos) {
          value = key.substr(eq + 1);
          key.resize(eq);
        } else if (key == "-N" || key == "--nodes" || key == "--ntasks-per-node" ||
                   key == "--gpus-per-node" || key == "--gres" || key == "--gpus-per-task" ||
                   key == "--ntasks" || key == "-n") {
          if (k + 1 < words.size()) value = words[k + 1].first;
        } else if (key.size() > 2 && (key.rfind("-N", 0) == 0 || key.rfind("-n", 0) == 0)) {
          value = key.substr(2);
          key.resize(2);
        }
        // --gpus-per-node=[type:]N, --gpus-per-task=[type:]N; --gres=gpu[:type][:N][,other...]
        // (a GPU when N is absent).
        if (key == "--gpus-per-node" || key == "--gpus-per-task")
          value = value.substr(value.rfind(':') + 1);
        if (key == "--gres") value = gres_gpus(value);
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) continue;
        std::vector<const char*> names;
        if (key == "-N" || key == "--nodes") names = {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"};
        if (key == "--ntasks-per-node") names = {"SLURM_NTASKS_PER_NODE"};
        if (key == "--gpus-per-node") names = {"SLURM_GPUS_PER_NODE", "SLURM_GPUS_ON_NODE"};
        if (key == "--gres") names = {"SLURM_GPUS_ON_NODE"};
        if (key == "--gpus-per-task") names = {"SLURM_GPUS_PER_TASK"};
        if (key == "--ntasks" || key == "-n") names = {"SLURM_NTASKS", "SLURM_NPROCS"};
        if (names.empty()) continue;
        const shell_word word{value, line, words[k].second, false, nullptr};
        for (const char* name : names) vars_[name] = {word};
        if (key == "-N" || key == "--nodes") out.sbatch_nodes = word;
        if (key == "--ntasks-per-node") out.sbatch_tasks_per_node = word;
        if (key == "--gpus-per-node" || key == "--gres") out.sbatch_gpus_per_node = word;
        if (key == "--gpus-per-task") out.sbatch_gpus_per_task = word;
      }
      return true;
    });
  }

  // A Grid Engine job script's `#$ -l NAME=N` resource requests. ABCI's full-node resource types
  // (rt_F: a node of four V100, rt_AF: eight A100, rt_HF: eight H100; ABCI user guide, "Job
  // Execution Resource") take the node count as N, and the job's environment then has
  // SGE_RESOURCE_TYPE (the type) and Grid Engine's NHOSTS (the hosts granted, sge_conf(5)'s job
  // environment). A script that sets either name itself wins, as it would in bash.
  void seed_grid_engine() {
    for_each_line(text_, [&](std::string_view row, int line) {
      const auto first = row.find_first_not_of(" \t");
      if (first == std::string_view::npos || row.substr(first, 2) != "#$") return true;
      std::size_t at = row.find("-l ", first + 2);
      if (at == std::string_view::npos) return true;
      at += 3;
      while (at < row.size() && is_blank(row[at])) ++at;
      std::size_t end = at;
      while (end < row.size() && !is_blank(row[end])) ++end;
      const std::string_view requests = row.substr(at, end - at);
      for (std::size_t start = 0; start < requests.size();) {
        const std::size_t comma = std::min(requests.find(',', start), requests.size());
        const std::string_view item = requests.substr(start, comma - start);
        const std::size_t eq = item.find('=');
        const std::size_t column = at + start + 1;
        start = comma + 1;
        if (eq == std::string_view::npos) continue;
        const std::string name(item.substr(0, eq)), count(item.substr(eq + 1));
        if (name != "rt_F" && name != "rt_AF" && name != "rt_HF") continue;
        if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos) continue;
        if (!vars_.count("SGE_RESOURCE_TYPE"))
          vars_["SGE_RESOURCE_TYPE"] = {
              shell_word{name, line, static_cast<int>(column), false, nullptr}};
        if (!vars_.count("NHOSTS"))
          vars_["NHOSTS"] = {
              shell_word{count, line, static_cast<int>(column + eq + 1), false, nullptr}};
      }
      return true;
    });
  }

  // The GPU count of a --gres value ("gpu:4", "gpu:a100:8,nvme:1", "gpu" for one), or "".
  static std::string gres_gpus(const std::string& value) {
    for (std::size_t start = 0; start <= value.size();) {
      const auto end = std::min(value.find(',', start), value.size());
      const std::string item = value.substr(start, end - start);
      start = end + 1;
      if (item != "gpu" && item.rfind("gpu:", 0) != 0) continue;
      const std::string last = item.substr(item.rfind(':') + 1);
      if (item == "gpu" || last.find_first_not_of("0123456789") != std::string::npos) return "1";
      return last;
    }
    return "";
  }

  std::vector<shell_word> expand(const raw_word& w, bool split) {
    if (count_ > max_shell_words || over_) return {};  // the caller reports it
    std::vector<std::string> missing, unset;
    auto fields = expander(vars_, w, split, missing, unset, left_, over_, folders_).run(w);
    if (w.line > 0)
      for (const auto& name : unset) unset_uses_.emplace(name, w.line);
    for (const auto& name : missing)
      note(w.line, w.column,
           fmt::format("${{{}[@]}}: the script sets no array {}; it expands to "
                       "nothing",
                       name, name));
    count_ += fields.size();
    return fields;
  }

  // Where `$NAME` or `${NAME...` is first written at or after line `from` (a word spanning
  // lines, such as a double-quoted argument string, holds it on one of its own): line and
  // column, or `from` and column 1 when not found.
  std::pair<int, int> written_at(const std::string& name, int from) const {
    std::pair<int, int> found{from, 1};
    for_each_line(text_, [&](std::string_view line, int number) {
      if (number < from) return true;
      const std::size_t at = find_expansion(line, name);
      if (at == std::string_view::npos) return true;
      found = {number, static_cast<int>(at) + 1};
      return false;
    });
    return found;
  }

  // The word count or expanded text past its bound, reported at `line`.
  maybe_error over_budget(int line) const {
    if (count_ > max_shell_words)
      return at(location(source_, text_, line, 1),
                fmt::format("more than {} words after expansion", max_shell_words));
    if (over_)
      return at(location(source_, text_, line, 1),
                fmt::format("the expanded text grows past this reader's budget (a word at most "
                            "{}, the script {} in all): does a variable grow into itself?",
                            format_bytes(max_shell_word_bytes),
                            format_bytes(max_shell_expanded_bytes + 4 * text_.size())));
    return std::nullopt;
  }

  void note(int line, int column, const std::string& message) {
    notes_.push_back(at(location(source_, text_, line, column), message));
  }
  // Where a word is written: in the script, or in the sourced file it came from.
  diagnostic where(const shell_word& w) const {
    return word_location(script_source_, script_text_, w);
  }
  void note_at(const shell_word& w, const std::string& message) {
    notes_.push_back(at(where(w), message));
  }

  // Conditionals and loops: their headers are skipped. An `if`/`elif` test of the script's own
  // values (`[ "$X" = true ]`, `[[ $N -gt 1 ]]`, `[ -z "$Y" ]`) and a `case` of such a word are
  // evaluated, and only the branch they take is read; other conditionals and loops are read as
  // if every branch ran (noted). Those the script's arguments choose open a region read as not
  // taken (assign, assign_array).
  bool strip_keywords(std::vector<raw_word>& words, const statement& s) {
    const int line = s.line;
    if (!regions_.empty() && regions_.back().header_open) {
      continue_test_list(regions_.back(), words, s.end);
      return false;
    }
    while (!words.empty()) {
      const std::string first = literal_text(words[0]);
      if (std::find(keywords.begin(), keywords.end(), first) == keywords.end()) return true;
      if (first == "if" || first == "while" || first == "until" || first == "for" ||
          first == "case") {
        const bool dead = skipping();
        const auto absent = !dead && first == "if" && s.end != '&' && s.end != '|'
                                ? argument_absent_test(words)
                                : std::nullopt;
        const bool chosen = !dead && !absent && by_arguments(words);
        region r;
        r.chosen = chosen || in_chosen();
        r.is_case = first == "case";
        r.line = line;
        r.column = words[0].column;
        if (dead) {
          r.evaluated = true, r.taking = false, r.taken = true;
        } else if (absent && !r.chosen) {
          r.evaluated = true, r.taking = *absent, r.taken = *absent;
        } else if (!r.chosen && first == "if" && (s.end == '&' || s.end == '|')) {
          r.header_open = true;
          r.header_value = test_value(words, ';');
          r.header_op = s.end;
        } else if (!r.chosen && first == "if") {
          if (const auto v = test_value(words, s.end))
            r.evaluated = true, r.taking = *v, r.taken = *v;
        } else if (!r.chosen && first == "case") {
          if (auto subject = case_subject(words))
            r.evaluated = true, r.taking = false, r.subject = std::move(*subject);
        }
        if (first == "case") awaiting_pattern_ = true;
        if (first == "for" && !dead) loop_variable(words, line);
        if (!dead && !r.evaluated && !r.chosen && !r.header_open)
          note_every_branch(line, words[0].column, first);
        regions_.push_back(std::move(r));
        return false;
      }
      if (first == "elif" && !regions_.empty()) {
        region& r = regions_.back();
        ++r.arm;
        if (!r.chosen && by_arguments(words)) {
          r = region{};
          r.chosen = true;
          r.line = line;
          r.column = words[0].column;
        } else if (r.evaluated && r.taken) {
          r.taking = false;
        } else if (r.evaluated) {
          if (const auto v = test_value(words, s.end)) {
            r.taking = *v, r.taken = *v;
          } else {
            r.evaluated = false, r.taking = true;  // the rest is read as before
          }
        }
        return false;
      }
      if (first == "else" && !regions_.empty()) ++regions_.back().arm;
      if (first == "else" && !regions_.empty() && regions_.back().evaluated &&
          !regions_.back().is_case) {
        regions_.back().taking = !regions_.back().taken;
        regions_.back().taken = true;
      }
      if ((first == "fi" || first == "done" || first == "esac") && !regions_.empty()) {
        if (first == "esac") awaiting_pattern_ = false;
        regions_.pop_back();
      }
      words.erase(words.begin());
    }
    return false;
  }

  // `for NAME in WORDS`: the body runs once per word, so a launch that takes $NAME is one job
  // per value (a sweep over micro-batch sizes or layouts). NAME is left unset, as the script
  // gives it no single value, and recorded as known only when the script runs, at the loop's
  // line, with the values as written.
  void loop_variable(const std::vector<raw_word>& words, int line) {
    if (words.size() < 3 || literal_text(words[2]) != "in") return;
    const std::string name = literal_text(words[1]);
    if (name.empty() || !is_name_start(name[0]) ||
        !std::all_of(name.begin(), name.end(), [](char c) { return is_name_char(c); }))
      return;
    std::vector<std::string> values;
    bool all_literal = true;
    for (std::size_t i = 3; i < words.size(); ++i) {
      const std::string w = literal_text(words[i]);
      if (w == "do" || w == ";") break;
      if (w.empty())
        all_literal = false;
      else
        values.push_back(w);
    }
    const std::string list = all_literal && !values.empty()
                                 ? fmt::format("{}", fmt::join(values, " "))
                                 : std::string("the values its list gives when it runs");
    run_time_.emplace_back(
        "$" + name,
        at(location(source_, text_, line, words[0].column),
           fmt::format("{} takes each value of this for loop ({}), the loop body running once per "
                       "value: each a job of its own",
                       name, list)));
  }

  // Redirections (`2>&1`, `> log`, `&>> ${LOG}`, `<input`) are not words of the command.
  // A file the script writes from a here-document (`cat <<EOT > $DS_CONFIG`, `cat > f <<EOF`):
  // the output redirection's target as expanded, with the (first) body, expanded unless its
  // delimiter was quoted.
  void written_file(const std::vector<raw_word>& words, const statement& s, shell_launch& out) {
    for (std::size_t i = 0; i < words.size(); ++i) {
      const auto& parts = words[i].parts;
      if (parts.empty() || parts[0].kind != part_kind::text || parts[0].quoted) continue;
      std::string head = parts[0].value;
      if (head.starts_with("1")) head.erase(0, 1);
      if (!head.starts_with(">") || head.starts_with(">&")) continue;
      const std::size_t op = head.starts_with(">>") || head.starts_with(">|") ? 2 : 1;
      raw_word target = words[i];
      if (head.size() == op && parts.size() == 1) {
        if (i + 1 >= words.size()) return;
        target = words[i + 1];
      } else {
        target.parts[0].value.erase(0, parts[0].value.size() - head.size() + op);
      }
      written_file_entry file;
      for (const auto& f : expand(target, false)) file.path.text += f.text;
      file.path.line = s.line;
      file.path.column = words[i].column;
      file.path.file = file_;
      file.line = s.heredocs.front().line;
      file.text = heredoc_text(s.heredocs.front()).text;
      out.written_files.push_back(std::move(file));
      return;
    }
  }

  // A here-document's body as its command reads it: expanded as a double-quoted string is,
  // unless its delimiter was quoted.
  shell_word heredoc_text(const heredoc& h) {
    shell_word out{"", h.line, 1, false, file_};
    raw_word body;
    if (h.quoted || lexer(h.body, source_).read_quoted_text(body)) {
      out.text = h.body;
      return out;
    }
    for (const auto& f : expand(body, false)) {
      out.text += f.text;
      out.unresolved = out.unresolved || f.unresolved;
    }
    return out;
  }

  // `read -r -d '' NAME <<EOF ... EOF` (bash(1), read): NAME holds the body, a command line the
  // script runs later (`bash -c "$NAME"`).
  void read_heredoc(const std::vector<raw_word>& words, const statement& s) {
    std::string name;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const std::string word = literal_text(words[i]);
      if (word == "-d" || word == "-p" || word == "-t" || word == "-n" || word == "-N" ||
          word == "-u" || word == "-i") {
        ++i;  // the option's value
        continue;
      }
      if (word.empty() || word[0] == '-' || word[0] == '<' || !is_name_start(word[0]) ||
          !std::all_of(word.begin(), word.end(), is_name_char))
        continue;
      name = word;
      break;
    }
    if (name.empty() || not_taken(name, s.line, 1)) return;
    vars_[name] = {heredoc_text(s.heredocs.front())};
    assigned(name, s.line, 1);
  }

  static void strip_redirections(std::vector<raw_word>& words) {
    for (std::size_t i = 0; i < words.size();) {
      const auto& parts = words[i].parts;
      const std::string head =
          !parts.empty() && parts[0].kind == part_kind::text && !parts[0].quoted ? parts[0].value
                                                                                 : "";
      std::size_t k = 0;
      while (k < head.size() && std::isdigit(static_cast<unsigned char>(head[k])) != 0) ++k;
      if (k == 0 && head.rfind("&>", 0) == 0) k = 1;
      const bool op = k < head.size() && (head[k] == '>' || head[k] == '<');
      if (!op) {
        ++i;
        continue;
      }
      std::size_t end = k;
      while (end < head.size() && (head[end] == '>' || head[end] == '<' || head[end] == '&')) ++end;
      const bool bare = end == head.size() && parts.size() == 1;  // the target is the next word
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
      if (bare && i < words.size()) words.erase(words.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  // Whether a branch not taken encloses the statement being read.
  bool skipping() const {
    return std::any_of(regions_.begin(), regions_.end(),
                       [](const region& r) { return r.evaluated && !r.taking; });
  }

  // The words' text when every one is the script's own, else nullopt.
  std::optional<std::vector<std::string>> resolved_texts(const std::vector<raw_word>& words,
                                                         std::size_t from, std::size_t to) {
    std::vector<std::string> out;
    for (std::size_t i = from; i < to; ++i) {
      const auto fields = expand(words[i], false);
      if (fields.size() != 1 || fields[0].unresolved) return std::nullopt;
      out.push_back(fields[0].text);
    }
    return out;
  }

  // The value of an `if`/`elif` header's test: `[ A op B ]`, `[[ A op B ]]` or `test A op B`
  // with = == != -eq -ne -lt -le -gt -ge, `-z A`, `-n A`, of words the script sets. nullopt for
  // anything else (a compound test ending the statement at && or ||, a command, a pattern).
  std::optional<bool> test_value(const std::vector<raw_word>& words, char end) {
    if (end == '&' || end == '|') return std::nullopt;
    // `if $USE_FP16; then`, `if ! $FLAG`: a variable holding the name of the builtin `true` or
    // `false` (or `:`), run as the condition's command (bash(1), true and false).
    if (words.size() == 2 || (words.size() == 3 && literal_text(words[1]) == "!")) {
      const auto t = resolved_texts(words, words.size() - 1, words.size());
      if (!t || ((*t)[0] != "true" && (*t)[0] != "false" && (*t)[0] != ":")) return std::nullopt;
      const bool value = (*t)[0] != "false";
      return words.size() == 3 ? !value : value;
    }
    return script_test(words, 1);
  }

  // The bracket test starting at words[from], of words the script sets (bracket_test).
  std::optional<bool> script_test(const std::vector<raw_word>& words, std::size_t from) {
    return bracket_test(words, from,
                        [&](const std::vector<raw_word>& w, std::size_t first, std::size_t to) {
                          return resolved_texts(w, first, to);
                        });
  }

  // Once a script: a conditional or loop this reader does not evaluate has every branch read.
  void note_every_branch(int line, int column, const std::string& keyword) {
    if (noted_branches_) return;
    note(line, column,
         fmt::format("\"{}\": vramscope does not run the script; it reads every branch and loop "
                     "body once, in order (later values win)",
                     keyword));
    noted_branches_ = true;
  }

  // The next test of an `if` whose test is a list, `if [[ A ]] || [[ B ]] && [[ C ]]; then`
  // (NVIDIA's Llama 3 examples: `[[ "$TOKENIZER_ARG" == "MOCK" ]] || [[ "$DATA_ARG" == "MOCK" ]]`).
  // bash runs the list left to right, && and || of equal precedence, so the value so far meets
  // each next test by the operator before it. A test this reader cannot evaluate (a command, a
  // pattern, a value the arguments choose) is unknown, and leaves the list unknown unless the
  // value so far decides it (true || x, false && x). Once the list ends, a known value chooses
  // the branch as a single test does; an unknown one has every branch read.
  void continue_test_list(region& r, const std::vector<raw_word>& words, char end) {
    std::optional<bool> next;
    if (!by_arguments(words)) next = script_test(words, 0);
    const std::optional<bool> a = r.header_value;
    if (r.header_op == '|')
      r.header_value = (a == true || next == true)     ? std::optional<bool>(true)
                       : (a == false && next == false) ? std::optional<bool>(false)
                                                       : std::nullopt;
    else
      r.header_value = (a == false || next == false) ? std::optional<bool>(false)
                       : (a == true && next == true) ? std::optional<bool>(true)
                                                     : std::nullopt;
    if (end == '&' || end == '|') {
      r.header_op = end;
      return;
    }
    r.header_open = false;
    if (r.header_value)
      r.evaluated = true, r.taking = *r.header_value, r.taken = *r.header_value;
    else
      note_every_branch(r.line, r.column, "if");
  }

  // `X=$1; if [ -z "$X" ]; then X=default; fi`, the default ${1:-default} also writes: read as
  // run without arguments (as ${1:-default} is), a positional argument is empty, so the `-z`
  // branch is taken. nullopt for any other test (an `-n` branch does something only with the
  // argument: which it does is chosen when the script runs), as for all the arguments choose.
  std::optional<bool> argument_absent_test(const std::vector<raw_word>& words) {
    if (words.size() != 5 && !(words.size() == 4 && literal_text(words[1]) == "test"))
      return std::nullopt;
    const std::string open = literal_text(words[1]);
    if (words.size() == 5 && !((open == "[" && literal_text(words[4]) == "]") ||
                               (open == "[[" && literal_text(words[4]) == "]]")))
      return std::nullopt;
    if (literal_text(words[2]) != "-z") return std::nullopt;
    const auto operand = expand(words[3], false);
    if (operand.size() != 1 || !operand[0].unresolved || !only_an_argument(operand[0].text))
      return std::nullopt;
    return true;
  }

  // A word that is one positional argument whole, as it stays after expansion: `$1`, `${2}`,
  // `${10}` (megatron_args' positional() asks whether a text holds one anywhere).
  static bool only_an_argument(std::string_view text) {
    if (!text.starts_with('$')) return false;
    text.remove_prefix(1);
    const bool braced = text.starts_with('{');
    if (braced) {
      if (!text.ends_with('}')) return false;
      text = text.substr(1, text.size() - 2);
    }
    return !text.empty() && (braced || text.size() == 1) && text[0] != '0' &&
           text.find_first_not_of("0123456789") == std::string_view::npos;
  }

  // The word of `case WORD in` when the script sets it.
  std::optional<std::string> case_subject(const std::vector<raw_word>& words) {
    if (words.size() != 3 || literal_text(words[2]) != "in") return std::nullopt;
    const auto t = resolved_texts(words, 1, 2);
    if (!t) return std::nullopt;
    return (*t)[0];
  }

  // A case arm's pattern (`--tp)`, `-z|--zero-stage)`, `*)`) where one is expected: dropped from
  // `words`, and in a case whose word is known, whether the arm is taken (the first that
  // matches). Returns false when the whole statement was pattern.
  bool strip_pattern(std::vector<raw_word>& words, const statement& s) {
    if (!awaiting_pattern_ || regions_.empty() || !regions_.back().is_case || words.empty() ||
        literal_text(words[0]) == "esac")
      return true;
    const auto pattern_text = [&](const raw_word& w) -> std::optional<std::string> {
      std::string out;
      for (const auto& p : w.parts) {
        if (p.kind != part_kind::text) return std::nullopt;
        out += p.value;
      }
      if (out.starts_with('(')) out.erase(0, 1);
      return out;
    };
    if (s.end == '|') {  // `-z|` of `-z|--zero-stage)`
      patterns_.push_back(pattern_text(words[0]));
      return false;
    }
    const auto& last = words[0].parts.back();
    if (last.kind != part_kind::text || !last.value.ends_with(')')) return true;
    auto final_pattern = pattern_text(words[0]);
    if (final_pattern) final_pattern->pop_back();  // the ')'
    patterns_.push_back(final_pattern);
    region& r = regions_.back();
    if (r.evaluated && !skipping_above()) {
      bool match = false, known = true;
      for (const auto& p : patterns_) {
        const auto m = p ? glob_match(*p, r.subject) : std::nullopt;
        if (!m) known = false;
        match = match || m.value_or(false);
      }
      if (!known && !match) {
        r.evaluated = false, r.taking = true;  // read the rest as before
      } else {
        r.taking = !r.taken && match;
        r.taken = r.taken || match;
      }
    }
    patterns_.clear();
    awaiting_pattern_ = false;
    ++r.arm;
    words.erase(words.begin());
    return !words.empty();
  }

  // Whether a branch not taken encloses the innermost region.
  bool skipping_above() const {
    return regions_.size() > 1 &&
           std::any_of(regions_.begin(), regions_.end() - 1,
                       [](const region& r) { return r.evaluated && !r.taking; });
  }

  // Whether the words (a conditional's header) read the script's arguments: $1, ${2}, $#, $@,
  // $*, or a variable set from them.
  bool by_arguments(const std::vector<raw_word>& words) const {
    for (std::size_t i = 1; i < words.size(); ++i)
      for (const auto& p : words[i].parts) {
        if (p.kind == part_kind::unresolved && p.value.size() >= 2 && p.value[0] == '$' &&
            (std::isdigit(static_cast<unsigned char>(p.value[1])) != 0 ||
             std::string_view("#@*").find(p.value[1]) != std::string_view::npos))
          return true;
        if ((p.kind == part_kind::variable || p.kind == part_kind::array) &&
            (from_arguments_.contains(p.value) ||
             std::all_of(p.value.begin(), p.value.end(), ::isdigit)))
          return true;
      }
    return false;
  }

  bool in_chosen() const { return !regions_.empty() && regions_.back().chosen; }
  // Whether a region enclosing the innermost one is chosen by the arguments.
  bool in_chosen_above() const {
    return std::any_of(regions_.begin(), regions_.end(), [](const region& r) { return r.chosen; });
  }

  // The outermost region the arguments choose: where a refusal points.
  const region& choosing_region() const {
    return *std::find_if(regions_.begin(), regions_.end(),
                         [](const region& r) { return r.chosen; });
  }

  std::string line_text(int line) const {
    std::size_t start = 0;
    for (int l = 1; l < line && start != std::string_view::npos; ++l) {
      start = text_.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start == std::string_view::npos || start >= text_.size()) return "";
    const auto end = std::min(text_.find('\n', start), text_.size());
    std::string row(text_.substr(start, end - start));
    const auto first = row.find_first_not_of(" \t");
    row = first == std::string::npos ? "" : row.substr(first);
    if (const auto semi = row.find("; then"); semi != std::string::npos) row.resize(semi);
    if (const auto semi = row.find("; do"); semi != std::string::npos) row.resize(semi);
    return row;
  }

  // An assignment inside a region the arguments choose: read as not taken. The earlier value
  // stays (noted once a region); a variable without one is unresolved, recorded with where the
  // region opens. An append (`ARGS+=(--flag)`, `X+=...`) to a variable set before leaves it as it
  // was, whatever it holds (an array whose first word is known only at run time). Returns true
  // when the assignment was handled so.
  bool not_taken(const std::string& name, int line, int column, bool append = false) {
    if (!in_chosen_above()) return false;
    const region& r = choosing_region();
    const auto it = vars_.find(name);
    if (it != vars_.end() && !it->second.empty() &&
        (append || (!it->second[0].text.empty() && !it->second[0].unresolved))) {
      if (noted_regions_.insert(r.line).second)
        note(r.line, r.column,
             fmt::format("\"{}\" is chosen by the script's arguments, which a file does not "
                         "have: read as run without them, so values set before it are kept ({} "
                         "= {} on line {}, not line {})",
                         line_text(r.line), name, it->second[0].text, it->second[0].line, line));
      return true;
    }
    vars_[name] = {shell_word{"$" + name, line, column, true, file_}};
    from_arguments_.insert(name);
    if (std::none_of(chosen_.begin(), chosen_.end(),
                     [&](const auto& c) { return c.first == name; }))
      chosen_.emplace_back(
          name, at(location(source_, text_, r.line, r.column),
                   fmt::format("{} is set only in branches of \"{}\", which the script's "
                               "arguments choose (vramscope reads the script as run without "
                               "them)",
                               name, line_text(r.line))));
    return true;
  }

  void export_variable(const std::string& name, const raw_word& w, shell_launch& out) {
    const auto it = vars_.find(name);
    if (name.empty() || it == vars_.end() || it->second.empty()) return;
    shell_word value = it->second[0];
    value.line = w.line;
    value.column = w.column;
    value.file = w.file;
    std::erase_if(out.exports, [&](const auto& e) { return e.first == name; });
    out.exports.emplace_back(name, value);
  }

  // Returns the variable's name.
  // `${NAME:=default}` (and `${NAME=default}`) in a command's words assigns the default to an
  // unset (or, with the colon, empty) NAME as it expands (bash(1), Parameter Expansion), which
  // scripts use as `: "${SEQ_LENGTH:=4096}"`: the script's own value from there on.
  void assign_defaults(const std::vector<raw_word>& words) {
    for (const auto& w : words)
      for (const auto& p : w.parts) {
        if (p.kind != part_kind::variable || !p.fallback || p.raw.size() < p.value.size() + 3)
          continue;
        const std::string_view op = std::string_view(p.raw).substr(2 + p.value.size());
        const bool colon = op.starts_with(":=");
        if (!colon && !op.starts_with("=")) continue;
        const auto it = vars_.find(p.value);
        const bool set = it != vars_.end();
        if (set && !(colon && (it->second.empty() || it->second[0].text.empty()))) continue;
        if (not_taken(p.value, w.line, w.column)) continue;
        shell_word joined{"", w.line, w.column, false, w.file};
        for (const auto& f : expand(raw_word{{p}, w.line, w.column, w.file}, false)) {
          joined.text += f.text;
          joined.unresolved = joined.unresolved || f.unresolved;
        }
        vars_[p.value] = {joined};
        assigned(p.value, w.line, w.column);
      }
  }

  std::string assign(const raw_word& w) {
    const std::size_t prefix = assignment_prefix(w);
    raw_word value = w;
    const bool append = value.parts[0].value[prefix - 2] == '+';
    const std::string name = value.parts[0].value.substr(0, prefix - (append ? 2 : 1));
    value.parts[0].value.erase(0, prefix);
    if (not_taken(name, w.line, w.column, append)) return name;
    const bool reads_arguments = by_arguments({raw_word{}, value});
    shell_word joined{"", w.line, w.column, false, w.file};
    for (const auto& f : expand(value, false)) {
      joined.text += f.text;
      joined.unresolved = joined.unresolved || f.unresolved;
    }
    // A variable expanded (as nothing) before this first assignment: the lines before it took
    // no value from it.
    // (Not `X=$X`, which takes the environment's value: only a use on an earlier line.)
    if (const auto use = unset_uses_.find(name);
        use != unset_uses_.end() && vars_.find(name) == vars_.end() && use->second < w.line) {
      const auto [line, column] = written_at(name, use->second);
      expanded_before_set_.emplace_back(
          name, at(location(source_, text_, line, column),
                   fmt::format("{} is expanded here, before the script sets it (line {}), so "
                               "bash expands it to nothing",
                               name, w.line)));
    }
    auto& slot = vars_[name];
    if (append && !slot.empty()) {
      slot[0].text += joined.text;
      slot[0].unresolved = slot[0].unresolved || joined.unresolved;
    } else {
      slot = {joined};
    }
    // `X=$1` is the script's argument; `X=${1:-MOCK}` is MOCK when run without arguments.
    if (reads_arguments && slot[0].unresolved) {
      from_arguments_.insert(name);
      set_from_arguments_.emplace_back(
          name, at(location(source_, text_, w.line, w.column),
                   fmt::format("{} is set here to {}, an argument the script is given when it "
                               "runs",
                               name, slot[0].text)));
    } else if (!append)
      from_arguments_.erase(name);
    // A value the script computes when it runs (a command's output, arithmetic of one, the
    // environment) or is given when it runs (`TP=$1`): recorded where it is set, which is where a
    // reader of the file writes the number. An argument written into the launch itself
    // (`--tensor-model-parallel-size $1`) is reported where it is written.
    if (slot[0].unresolved && !slot[0].text.empty())
      run_time_.emplace_back(
          slot[0].text,
          at(location(source_, text_, w.line, w.column),
             reads_arguments ? fmt::format("{} is set here to {}, an argument the script is given "
                                           "when it runs",
                                           name, slot[0].text)
                             : fmt::format("{} is set here to {}, known only when the script runs",
                                           name, slot[0].text)));
    return name;
  }

  // "NAME=..." with NAME a shell name: the form of an assignment.
  static bool assignment_like(const std::string& word) {
    if (word.empty() || !is_name_start(word[0])) return false;
    std::size_t i = 1;
    while (i < word.size() && is_name_char(word[i])) ++i;
    return i < word.size() && word[i] == '=';
  }

  // A variable set by a statement of its own, outside any command, in the order first set.
  void assigned(const std::string& name, int line, int column) {
    if (std::none_of(assigned_.begin(), assigned_.end(),
                     [&](const auto& a) { return a.first == name; }))
      assigned_.push_back({name, shell_word{"", line, column, false, file_}});
  }

  // A file that runs no command and has no argument lines, but sets variables holding
  // arguments (`MODEL_ARGS="--num-layers 27 ..."`, NVIDIA's model-argument files that launch
  // scripts source): its arguments are what those variables hold, in the order they are first
  // set, as the sourcing script passes them.
  void sourced_arguments(std::vector<shell_word>& loose, shell_launch& out) {
    std::string names;
    const shell_word* first = nullptr;
    for (const auto& [name, set_at] : assigned_) {
      const auto it = vars_.find(name);
      if (it == vars_.end() || it->second.empty()) continue;
      raw_word use;
      use.line = set_at.line;
      use.column = set_at.column;
      use.file = set_at.file;
      use.parts.push_back(part{it->second.size() > 1 ? part_kind::array : part_kind::variable,
                               name, false, std::nullopt, {}});
      std::vector<shell_word> words = expand(use, true);
      if (std::none_of(words.begin(), words.end(),
                       [](const shell_word& w) { return w.text.rfind("--", 0) == 0; }))
        continue;
      // A variable holding a whole launch (`run_cmd="deepspeed ... pretrain_gpt.py ..."`) that
      // nothing in the file expands: the file builds its launch and never starts it.
      if (!words.empty() && starts_a_launch(words.front().text) &&
          find_expansion(text_, name) == std::string_view::npos) {
        const auto script = std::find_if(words.begin(), words.end(),
                                         [](const shell_word& w) { return is_script(w.text); });
        if (script != words.end()) {
          unrun_launches_.push_back(
              at(where(set_at),
                 fmt::format("{} is set to a launch of {} ({} ...) that the file never runs (no "
                             "command expands ${}): running the file starts no training; run it "
                             "(eval \"${}\") to plan it",
                             name, script->text, words.front().text, name, name, name)));
          continue;
        }
      }
      loose.insert(loose.end(), words.begin(), words.end());
      names += (names.empty() ? "" : ", ") + name;
      if (first == nullptr) first = &set_at;
    }
    if (first == nullptr) return;
    out.arguments_from = shell_word{names.substr(0, names.find(',')), first->line, first->column,
                                    false, first->file};
    note_at(*first,
            fmt::format("the file runs no command: read as the arguments its variables hold ({}), "
                        "as a script that sources it passes them",
                        names));
  }

  maybe_error assign_array(const statement& s) {
    if (not_taken(s.name, s.line, 1, s.append)) return std::nullopt;
    assigned(s.name, s.line, 1);
    std::vector<shell_word> elements;
    for (const auto& w : s.words)
      for (auto& f : expand(w, true)) elements.push_back(std::move(f));
    if (auto err = over_budget(s.line)) return err;
    auto& slot = vars_[s.name];
    if (!s.append) slot.clear();
    slot.insert(slot.end(), elements.begin(), elements.end());
    return std::nullopt;
  }

  // `source FILE` before the launch, as bash runs it: FILE's statements where the command stands,
  // with the script's variables and setting them for what follows. Read where the script is on
  // disk and FILE is a relative path found from its folder (bash reads it from the working
  // directory: the script's folder, else one or two folders above, where scripts are run from)
  // or lies inside that folder (the folder idioms, folder_of); not the environment's own files
  // (a virtualenv's `activate`), not past max_sourced_depth, not a file already being read.
  // False, with `missing` saying where it was looked for when it was, when not read.
  //
  // `arguments`: for a child shell run on the file (`bash FILE.sh ARGS`, follow_child), its
  // arguments, which it reads as $1, $2, ... (nullptr for `source`).
  bool follow(const shell_word& file, shell_launch& out, std::vector<shell_word>& loose,
              std::string& missing, const std::vector<shell_word>* arguments = nullptr) {
    namespace fs = std::filesystem;
    if (folders_.first.empty() || file.unresolved || file.text.empty() ||
        file.text.find('$') != std::string::npos)
      return false;
    const fs::path given(file.text);
    if (given.filename() == "activate") return false;
    const fs::path folder(folders_.first);
    std::vector<fs::path> candidates;
    if (given.is_absolute()) {
      // Inside the script's folder, or the folder one or two above it that relative names are
      // also looked for from (a project root the script names as `$(dirname "$0")/../..`);
      // elsewhere it is the machine's own (`/etc/profile`), as is anything under the root.
      const fs::path normal = given.lexically_normal();
      const auto under = [&](const fs::path& top) {
        const auto [end, unused] =
            std::mismatch(top.begin(), top.end(), normal.begin(), normal.end());
        return end == top.end();
      };
      bool inside = under(folder);
      fs::path top = folder;
      for (int up = 0; up < 2 && !inside; ++up) {
        top = top.parent_path();
        if (top.empty() || top == top.root_path()) break;
        inside = under(top);
      }
      if (!inside) return false;
      candidates.push_back(normal);
    } else {
      fs::path base = folder;
      for (int up = 0; up < 3 && !base.empty(); ++up, base = base.parent_path()) {
        candidates.push_back((base / given).lexically_normal());
        if (base == base.parent_path()) break;
      }
    }
    std::error_code failed;
    auto found = std::find_if(candidates.begin(), candidates.end(),
                              [&](const fs::path& c) { return fs::is_regular_file(c, failed); });
    if (found == candidates.end() && given.is_absolute()) {
      // A copy of the project laid out otherwise (the script moved beside the files it names from
      // the project's root, `$ROOT/configs/model.sh`): the file found by the end of its path,
      // longest first, from the same folders. (A relative name was looked for from them whole.)
      std::vector<fs::path> parts;
      for (const auto& part : given.lexically_normal().relative_path())
        if (!part.empty()) parts.push_back(part);
      const bool plain = std::none_of(parts.begin(), parts.end(),
                                      [](const fs::path& p) { return p == ".." || p == "."; });
      for (std::size_t skip = 1; plain && skip < parts.size() && found == candidates.end();
           ++skip) {
        fs::path tail;
        for (std::size_t i = skip; i < parts.size(); ++i) tail /= parts[i];
        fs::path base = folder;
        for (int up = 0; up < 3 && !base.empty(); ++up, base = base.parent_path()) {
          if (fs::is_regular_file(base / tail, failed)) {
            candidates.push_back((base / tail).lexically_normal());
            found = candidates.end() - 1;
            break;
          }
          if (base == base.parent_path()) break;
        }
      }
    }
    if (found == candidates.end()) {
      missing = fmt::format("not found at {}", candidates.front().string());
      return false;
    }
    // Named as the script is named: its path as given, then the way from its folder.
    const fs::path way = found->lexically_relative(folder);
    const std::string path =
        way.empty() ? fs::proximate(*found, failed).string()
                    : (fs::path(script_source_).parent_path() / way).lexically_normal().string();
    const auto into = where(file);
    if (std::find(reading_.begin(), reading_.end(), found->string()) != reading_.end() ||
        static_cast<int>(reading_.size()) >= max_sourced_depth) {
      notes_.push_back(at(into, fmt::format("source {}: not read again ({} deep in sourced files)",
                                            file.text, reading_.size())));
      missing = "read already";
      return false;
    }
    auto text = read_file(found->string(), bytes{max_sourced_bytes});
    if (!text) {
      missing = text.error().to_string();
      return false;
    }
    auto read = std::make_shared<const sourced_file>(sourced_file{path, std::move(*text)});
    std::vector<statement> statements;
    if (auto err = lexer(read->text, read->path, read).run(statements)) {
      notes_.push_back(at(into, fmt::format("source {}: not read, bash stops on it ({}: {})",
                                            file.text, read->path, err->message)));
      missing = fmt::format("{} does not parse", read->path);
      return false;
    }
    out.followed.emplace_back(file, read);
    notes_.push_back(at(
        into, arguments == nullptr
                  ? fmt::format("source {}: {} is read as bash runs it, its settings part of "
                                "the launch",
                                file.text, read->path)
                  : fmt::format("{} runs {}: read as that shell runs it, with the variables this "
                                "file gives it{}",
                                file.text, read->path,
                                arguments->empty() ? "" : " and its arguments as $1, $2, ...")));
    // A child shell's assignments stay in it: the script's variables are restored after it
    // (a sourced file's are the script's own). Its positional parameters, while it is read.
    std::optional<variables> parent;
    if (arguments != nullptr) {
      parent = vars_;
      for (std::size_t i = 0; i < arguments->size() && i < 9; ++i)
        vars_[std::to_string(i + 1)] = {(*arguments)[i]};
    }
    const auto saved_text = text_;
    const auto saved_source = source_;
    const auto saved_file = file_;
    const auto saved_folders = folders_;
    text_ = read->text;
    source_ = read->path;
    file_ = read;
    folders_.second = found->parent_path().string();
    reading_.push_back(found->string());
    for (const auto& s : statements)
      if (one_statement(s, out, loose)) break;  // over budget: reported at the next statement
    reading_.pop_back();
    text_ = saved_text;
    source_ = saved_source;
    file_ = saved_file;
    folders_ = saved_folders;
    if (parent) vars_ = std::move(*parent);
    return true;
  }

  // `bash FILE.sh [ARGS]`, `sh FILE.sh`, `./FILE.sh` before the launch: a wrapper that sets the
  // job's variables and runs the script holding the launch. The child shell runs FILE with the
  // variables the command gives it (the assignments before it) and the exported ones; it is read
  // as a sourced file is (so it sees the script's other variables too), its arguments as $1, $2,
  // ..., and what it sets is dropped after it. Returns true when the file was read.
  bool follow_child(const std::vector<shell_word>& fields, shell_launch& out,
                    std::vector<shell_word>& loose) {
    if (fields.empty() || !out.script.text.empty()) return false;
    std::size_t at = 0;
    const std::string_view program = program_name(fields[0].text);
    if (program == "bash" || program == "sh") {
      at = 1;
      while (at < fields.size() && fields[at].text.starts_with('-') && fields[at].text != "-c")
        ++at;
      if (at < fields.size() && fields[at].text == "-c") return false;
    }
    if (at >= fields.size() || !fields[at].text.ends_with(".sh")) return false;
    shell_word file = fields[at];
    const std::vector<shell_word> arguments(fields.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                                            fields.end());
    std::string missing;
    return follow(file, out, loose, missing, &arguments);
  }

  // The first command running a `pretrain_*.py` (else any `.py`) is the launch; later ones are
  // noted. Commands that start with an option are a plain argument list.
  void command(std::vector<shell_word>& fields, shell_launch& out, std::vector<shell_word>& loose) {
    drop_command_prefixes(fields);
    if (fields.empty()) return;  // `eval ""`, `eval "${UNSET[*]}"`: no command at all
    if (fields[0].text == "sed") substitutions(fields, out);
    if (inner_command(fields, out, loose)) return;
    // `source FILE` / `. FILE` before the launch: the file's assignments are not read.
    if ((fields[0].text == "source" || fields[0].text == ".") && fields.size() > 1 &&
        out.script.text.empty()) {
      shell_word file = fields[1];
      file.line = fields[0].line;
      file.column = fields[0].column;
      file.file = fields[0].file;
      std::string missing;
      if (!follow(file, out, loose, missing)) {
        out.sourced.push_back({std::move(file), std::move(missing)});
      }
    } else if (follow_child(fields, out, loose)) {
      return;
    }
    // `echo torchrun ... pretrain_gpt.py ...`: the launch written out after echo, word by word,
    // printed and not run (not `echo $CMD`, which shows a command the script may run too).
    if ((fields[0].text == "echo" || fields[0].text == "printf") && fields.size() > 2 &&
        starts_a_launch(fields[1].text) &&
        detail::line_at(text_, fields[1].line).find(fields[1].text) != std::string::npos) {
      const auto printed = std::find_if(fields.begin() + 1, fields.end(),
                                        [](const shell_word& f) { return is_script(f.text); });
      if (printed != fields.end())
        unrun_launches_.push_back(
            at(where(fields[0]),
               fmt::format("the launch of {} is only printed ({} {} ...), not run: running the "
                           "file starts no training; remove the {} to plan it",
                           printed->text, fields[0].text, fields[1].text, fields[0].text)));
    }
    const auto script = runs_nothing(fields[0].text)
                            ? fields.end()
                            : std::find_if(fields.begin(), fields.end(),
                                           [](const shell_word& f) { return is_script(f.text); });
    if (script == fields.end()) {
      if (fields[0].text.rfind('-', 0) == 0)
        loose.insert(loose.end(), fields.begin(), fields.end());
      else
        other_commands_.push_back(fields[0]);
      return;
    }
    // `pretrain_gpt.py --help` prints the usage and exits (argparse): no launch.
    if (std::any_of(script + 1, fields.end(),
                    [](const shell_word& f) { return f.text == "--help" || f.text == "-h"; })) {
      note(script->line, script->column,
           fmt::format("{} --help prints its usage and exits; it is no launch", script->text));
      return;
    }
    const bool pretrain = script->text.find("pretrain_") != std::string::npos;
    const bool have = !out.script.text.empty();
    const bool have_pretrain = have && out.script.text.find("pretrain_") != std::string::npos;
    // A training launch after a checkpoint conversion or a generation run is the one to plan.
    const auto trains = [](const std::string& name) {
      return !not_training_script(name) && !conversion_script(name);
    };
    if (have && !trains(out.script.text) && trains(script->text)) {
      note(out.script.line, out.script.column,
           fmt::format("{} trains nothing: the launch of {} after it is read", out.script.text,
                       script->text));
    } else if (have && (have_pretrain || !pretrain)) {
      if (!out.launch_chosen) out.launch_chosen = launch_chosen(script, fields);
      note(script->line, script->column,
           fmt::format("another launch ({}) is ignored: the "
                       "arguments of {} are read",
                       script->text, out.script.text));
      return;
    }
    out.launcher.assign(fields.begin(), script);
    first_launch_ = {};
    if (in_chosen_above()) {
      first_launch_.region_line = choosing_region().line;
      first_launch_.arm = choosing_region().arm;
      first_launch_.line = script->line;
      first_launch_.words = memory_words(script + 1, fields.end());
    }
    out.name_is_assignment = name_is_assignment_ && depth_ == 0;
    out.outer = outer_;
    out.script = *script;
    out.args.assign(script + 1, fields.end());
  }

  // A launch's words that can change what it trains: all but paths (a checkpoint or data folder,
  // a log file), which launches in the branches of one conditional commonly vary by the branch.
  static std::vector<std::string> memory_words(std::vector<shell_word>::const_iterator from,
                                               std::vector<shell_word>::const_iterator to) {
    std::vector<std::string> words;
    for (; from != to; ++from)
      if (from->text.find('/') == std::string::npos) words.push_back(from->text);
    return words;
  }

  // A launch in another branch of the conditional the script's arguments choose than the first
  // launch's (`if [ "$FP_TYPE" = bf16 ]; then torchrun ...; elif ...; then torchrun ...
  // --fp8-hybrid` with FP_TYPE=$1): which of them runs is decided by an argument the file does not
  // have, and when they differ in more than paths they are different jobs. Located where the script
  // takes the argument the conditional tests, else at the conditional.
  std::optional<diagnostic> launch_chosen(std::vector<shell_word>::const_iterator script,
                                          const std::vector<shell_word>& fields) const {
    if (first_launch_.region_line == 0 || !in_chosen_above()) return std::nullopt;
    const region& r = choosing_region();
    if (r.line != first_launch_.region_line || r.arm == first_launch_.arm) return std::nullopt;
    const auto words = memory_words(script + 1, fields.end());
    if (words == first_launch_.words) return std::nullopt;
    // The first word that only one of the two launches has.
    std::string differs;
    for (const auto& w : words)
      if (std::find(first_launch_.words.begin(), first_launch_.words.end(), w) ==
          first_launch_.words.end()) {
        differs = w;
        break;
      }
    for (const auto& w : first_launch_.words)
      if (differs.empty() && std::find(words.begin(), words.end(), w) == words.end()) differs = w;
    const std::string conditional = line_text(r.line);
    const std::string what = fmt::format(
        "\"{}\" (line {}) chooses which of its launches runs (lines {} and {}), and they are "
        "different jobs{}; write the one to plan into the file without the choice",
        conditional, r.line, first_launch_.line, script->line,
        differs.empty() ? "" : fmt::format(" (\"{}\" is in one only)", differs));
    for (const auto& [name, where] : set_from_arguments_)
      if (find_expansion(conditional, name) != std::string_view::npos)
        return at(where, fmt::format("{}, and {}", where.message, what));
    return at(location(source_, text_, r.line, r.column),
              fmt::format("the script's arguments choose {}", what));
  }

  // The `s/PLACEHOLDER/value/[flags]` scripts of a sed command (any delimiter, given alone or
  // after -e; sed(1)), with the replacement as the script's variables expanded it.
  static void substitutions(const std::vector<shell_word>& fields, shell_launch& out) {
    for (std::size_t i = 1; i < fields.size(); ++i) {
      const std::string& w = fields[i].text;
      if (w.size() < 4 || w[0] != 's' || std::isalnum(static_cast<unsigned char>(w[1])) ||
          w[1] == '\\' || w[1] == '\n')
        continue;
      const char delimiter = w[1];
      const std::size_t middle = w.find(delimiter, 2);
      if (middle == std::string::npos || middle == 2) continue;
      const std::size_t end = w.find(delimiter, middle + 1);
      if (end == std::string::npos) continue;
      shell_word value = fields[i];
      value.text = w.substr(middle + 1, end - middle - 1);
      out.sed_substitutions.push_back({w.substr(2, middle - 2), std::move(value)});
    }
  }

  // `bash -c "..."` and `sh -c '...'`, alone or after a launcher (`srun ... sh -c "${CMD}"`):
  // the string is a command line of its own, read as one, every word of it located at the
  // string. Returns false when `fields` has no such shell.
  // `w` (a -c string) is written as it reads at its place in the script: a quote there, then
  // its first line.
  bool written_literally(const shell_word& w) const {
    bool found = false;
    for_each_line(text_, [&](std::string_view line, int number) {
      if (number < w.line) return true;
      const auto at = static_cast<std::size_t>(std::max(w.column, 1) - 1);
      if (at < line.size() && (line[at] == '\'' || line[at] == '"')) {
        const std::string_view first = std::string_view(w.text).substr(0, w.text.find('\n'));
        found = line.substr(at + 1).starts_with(first);
      }
      return false;
    });
    return found;
  }

  bool inner_command(const std::vector<shell_word>& fields, shell_launch& out,
                     std::vector<shell_word>& loose) {
    // The shell's own options may come before -c (`bash -x -c "..."`, `bash -lc` is not read).
    const auto shell_before = [&](std::size_t c) {
      std::size_t s = c;
      while (s > 0 && fields[s - 1].text.size() > 1 && fields[s - 1].text[0] == '-' &&
             fields[s - 1].text != "-c")
        --s;
      return s > 0 && is_shell(fields[s - 1].text) ? s - 1 : fields.size();
    };
    std::size_t c = 1;
    while (c + 1 < fields.size() && !(fields[c].text == "-c" && shell_before(c) < c)) ++c;
    std::size_t shell = c + 1 < fields.size() ? shell_before(c) : fields.size();
    std::size_t at_string = c + 1;
    if (shell == fields.size()) {
      // A command line that srun hands whole, as one argument, to a wrapper that runs it on each
      // node (`srun run_pt_on_node.sh "$TRAINING_CMD"`, the command a string of words whose
      // first names the Python script): read as a -c string is, srun and the wrapper before it.
      at_string = fields.size();
      if (program_name(fields[0].text) == "srun" &&
          std::none_of(fields.begin(), fields.end(),
                       [](const shell_word& f) { return is_script(f.text); }))
        for (std::size_t i = 1; i < fields.size(); ++i) {
          const std::string& t = fields[i].text;
          const auto first = t.find_first_not_of(" \t\n");
          const auto end = t.find_first_of(" \t\n", first);
          if (first == std::string::npos || end == std::string::npos ||
              !is_script(t.substr(first, end - first)))
            continue;
          at_string = i;
          shell = i;
          break;
        }
    }
    if (at_string >= fields.size() || depth_ >= 4) return false;
    const bool wrapper = shell == at_string;
    const std::string what =
        wrapper ? fields[0].text + "'s command argument" : fields[shell].text + " -c";
    const shell_word& string = fields[at_string];
    std::vector<statement> statements;
    lexer strings(string.text, source_);
    if (auto err = strings.run(statements)) {
      if (wrapper) return false;  // words that are no command line: an argument like others
      note(string.line, string.column,
           fmt::format("{}: the command string is not read ({})", what, err->message));
      // A quote the string never closes is bash's own syntax error ("unexpected EOF while
      // looking for matching quote"): the shell runs nothing of it.
      if (const char quote = strings.unclosed_quote(); quote != 0)
        out.failing_strings.push_back(
            at(where(string),
               fmt::format("the {} -c string stops that shell with a syntax error before it runs "
                           "anything in it: a quote ({}) it opens is never closed; close it to "
                           "plan it",
                           fields[shell].text, quote)));
      return true;
    }
    // `bash -c 'STRING' NAME ARGS...`: the string's $1, $2, ... and "$@" are ARGS (NAME is its
    // $0; bash(1), -c), as `srun bash -c '... torchrun ... "$@"' _ pretrain_gpt.py $ARGS` hands
    // the launch its program and arguments. The enclosing shell's own are back after it.
    std::map<std::string, std::optional<std::vector<shell_word>>> shadowed;
    if (!wrapper && at_string + 1 < fields.size()) {
      const std::vector<shell_word> given(
          fields.begin() + static_cast<std::ptrdiff_t>(at_string) + 2, fields.end());
      for (std::size_t i = 0; i <= 9; ++i) {
        const std::string name = i == 0 ? "@" : std::to_string(i);
        const auto it = vars_.find(name);
        shadowed[name] = it == vars_.end() ? std::nullopt : std::optional(it->second);
        if (i == 0)
          vars_[name] = given;
        else if (i <= given.size())
          vars_[name] = {given[i - 1]};
        else
          vars_.erase(name);
      }
    }
    ++depth_;
    const std::vector<shell_word> enclosing = outer_;
    if (shell >= 1)
      outer_.assign(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(shell));
    // Where the string's words are written: a string written in the script itself ('...' or
    // "..." spanning lines) holds them on its own lines; one that an expansion produced is
    // located at the string.
    const bool literal = written_literally(string);
    const auto relocate = [&](raw_word& w) {
      w.file = string.file;
      if (!literal) {
        w.line = string.line, w.column = string.column;
        return;
      }
      w.column = w.line == 1 ? string.column + w.column : w.column;
      w.line = string.line + w.line - 1;
    };
    for (auto st : statements) {
      for (auto& w : st.words) relocate(w);
      st.line = literal ? string.line + st.line - 1 : string.line;
      if (auto err = one_statement(st, out, loose)) {
        note(string.line, string.column,
             fmt::format("{}: the command string is not read ({})", what, err->message));
        break;
      }
    }
    --depth_;
    outer_ = enclosing;
    for (auto& [name, value] : shadowed)
      if (value)
        vars_[name] = std::move(*value);
      else
        vars_.erase(name);
    return true;
  }

  static bool is_shell(const std::string& word) {
    const std::string_view name = program_name(word);
    return name == "sh" || name == "bash" || name == "zsh" || name == "dash";
  }

  std::string_view text_;
  std::string source_;            // the file being read: the script, or a file it sources
  std::string_view script_text_;  // the script itself
  std::string script_source_;
  std::shared_ptr<const sourced_file> file_;  // the sourced file being read; null: the script
  // The script's folder and the folder of the file being read (absolute), empty when the script
  // is not on disk; and the sourced files being read, outermost first.
  std::pair<std::string, std::string> folders_;
  std::vector<std::string> reading_;
  int depth_ = 0;  // nested -c strings being read
  variables vars_;
  std::vector<shell_word> outer_;  // the launcher of the `sh -c` string being read, if any
  std::vector<diagnostic> notes_;
  std::vector<shell_word> other_commands_;  // first words of commands that are not arguments
  std::vector<std::pair<std::string, shell_word>> assigned_;  // variables set, first place each
  std::vector<std::pair<std::string, diagnostic>> run_time_;  // shell_launch::run_time_values
  std::vector<std::pair<std::string, diagnostic>> set_from_arguments_;
  std::vector<diagnostic> unrun_launches_;  // shell_launch::unrun_launches
  // The launch read, when a conditional the script's arguments choose encloses it: that
  // conditional's line, the branch, the launch's line and its words but paths (launch_chosen).
  struct {
    int region_line = 0, arm = 0, line = 0;
    std::vector<std::string> words;
  } first_launch_;
  bool name_is_assignment_ = false;  // the command being read is named by an expanded NAME=...
  std::size_t count_ = 0;
  std::size_t left_;     // expanded bytes still allowed
  bool over_ = false;    // an expansion ran past left_ or max_shell_word_bytes
  bool noted_branches_ = false;
  std::vector<region> regions_;
  bool awaiting_pattern_ = false;                     // a case arm's pattern comes next
  std::vector<std::optional<std::string>> patterns_;  // the arm's patterns so far (nullopt: unread)
  std::set<std::string> from_arguments_;              // variables set from the script's arguments
  std::set<int> noted_regions_;                       // lines of chosen regions already noted
  std::vector<std::pair<std::string, diagnostic>> chosen_;
  // Scalar variables expanded while unset, each with the line of the first word that expanded
  // it (where in that word is found only when an assignment after it is reported).
  std::map<std::string, int> unset_uses_;
  std::vector<std::pair<std::string, diagnostic>> expanded_before_set_;
};

}  // namespace

std::size_t find_expansion(std::string_view text, std::string_view name) {
  for (auto at = text.find('$'); at != std::string_view::npos; at = text.find('$', at + 1)) {
    std::string_view rest = text.substr(at + 1);
    if (rest.starts_with('{')) rest.remove_prefix(1);
    if (rest.starts_with(name) && (rest.size() == name.size() || !is_name_char(rest[name.size()])))
      return at;
  }
  return std::string_view::npos;
}

diagnostic word_location(const std::string& source, std::string_view text, const shell_word& w,
                         int line, int column) {
  if (w.file != nullptr) return location(w.file->path, w.file->text, line, column);
  return location(source, text, line, column);
}

diagnostic word_location(const std::string& source, std::string_view text, const shell_word& w) {
  return word_location(source, text, w, w.line, w.column);
}

result<shell_launch> read_shell_launch(std::string_view text, const std::string& source) {
  std::vector<statement> statements;
  if (auto err = lexer(text, source).run(statements)) return *err;
  shell_launch out;
  if (auto err = interpreter(text, source).run(statements, out)) return *err;
  return out;
}

bool looks_like_megatron(std::string_view text) {
  for (std::string_view rest = text; !rest.empty();) {
    const auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (is_blank(line[i]) || line[i] == '"' || line[i] == '\'')) ++i;
      if (i < line.size() && line[i] == '#') break;
      std::size_t j = i;
      while (j < line.size() && !is_blank(line[j]) && line[j] != '"' && line[j] != '\'') ++j;
      const std::string_view word = line.substr(i, j - i);
      const std::string_view base = program_name(word);
      // Megatron's own flag names: the model's layers, or its tensor-parallel size where the
      // model's arguments come from a sourced file.
      if (word == "--num-layers" || word.rfind("--num-layers=", 0) == 0 ||
          word == "--tensor-model-parallel-size" ||
          word.rfind("--tensor-model-parallel-size=", 0) == 0 ||
          // Megatron-LLM spells its flags with underscores
          word == "--num_layers" || word == "--tensor_model_parallel_size" ||
          (base.rfind("pretrain_", 0) == 0 && base.size() > 12 &&
           base.substr(base.size() - 3) == ".py"))
        return true;
      i = j;
    }
  }
  return false;
}

}  // namespace vramscope::job::detail
