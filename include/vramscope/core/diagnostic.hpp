#pragma once
// A diagnostic is how vramscope reports bad input: where (source, line, column), what was
// expected, and the offending line with a caret, in the style of a compiler message:
//
//   job.yaml:12:5: unknown key "optimiser" (did you mean "optimizer"?)
//   optimiser: adamw
//   ^ near here

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vramscope {

struct diagnostic {
  std::string source;   // file name or "<stdin>", "--set", ...; may be empty
  int line = 0;         // 1-based; 0 when unknown
  int column = 0;       // 1-based; 0 when unknown
  std::string message;  // what is wrong and what was expected, lower-case start
  std::string context;  // the offending line, printed under the message with a caret

  /// "source:line:column: message" plus context and caret lines when known.
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const diagnostic&, const diagnostic&) = default;
};

/// A step that either passes or stops at what is wrong with its input.
using maybe_error = std::optional<diagnostic>;

/// Recoverable oddities found while reading input (an unknown column, a skipped record).
using warnings = std::vector<diagnostic>;

/// `text` in lower case (ASCII): names and option values compared without regard to case.
std::string lower_case(std::string_view text);

/// Returns the candidate closest to `word` by edit distance, or "" when none is close enough
/// (distance above a third of the word's length, at least 2).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace vramscope
