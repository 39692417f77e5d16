#pragma once
// Small text helpers shared by the observation parsers: line splitting with positions, number
// and size parsing with overflow checks, and diagnostics that point into the text.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::observe::detail {

struct text_line {
  std::string_view text;   // without the line break (and without a trailing '\r')
  std::size_t offset = 0;  // of the first character in the whole text
  int number = 0;          // 1-based
};

/// Lines of `text`; a final line without a newline is included, an empty tail is not.
std::vector<text_line> split_lines(std::string_view text);

std::string_view trim(std::string_view s);
/// `text` without a leading UTF-8 byte-order mark and the white space after it: where a file's
/// first character is, for telling its format.
std::string_view skip_bom_and_space(std::string_view text);
bool contains(std::string_view haystack, std::string_view needle);
/// Whether lower-case `low` says memory ran out in words: "out of memory", "not enough (GPU)
/// memory", "insufficient (GPU) memory", "not enough VRAM", or "oom" as a word ("OOM during
/// ...", not "room").
bool names_memory_failure(std::string_view low);
/// ASCII case-insensitive search; npos when absent.
std::size_t ifind(std::string_view haystack, std::string_view needle, std::size_t from = 0);
std::string to_lower(std::string_view s);
bool is_digits(std::string_view s);

/// Splits on `sep` without trimming.
std::vector<std::string_view> split(std::string_view s, char sep);

/// Unsigned decimal integer, whole string, no sign; empty on overflow or junk.
std::optional<std::uint64_t> parse_uint(std::string_view s);
/// Signed decimal integer, whole string.
std::optional<std::int64_t> parse_int(std::string_view s);
/// "12", "12.5", "0.25": digits with at most one point, whole string.
std::optional<double> parse_decimal(std::string_view s);

/// A size as observation formats print it: a decimal number, optional spaces, then a unit among
/// B, bytes, KiB, MiB, GiB, TiB, PiB and KB, kB, MB, GB, TB, PB (the latter are powers of 1024 in
/// every format read here: nvidia-smi, torch, XLA; PaddlePaddle writes a small request in kB). Without a unit `default_unit` applies; a
/// default_unit of 0 makes the unit required. Rounded to whole bytes; empty when not a size or
/// above 2^63.
std::optional<bytes> parse_size(std::string_view s, bytes default_unit);

/// Reads a size at the start of `s` ("1.25 GiB. GPU 0 ..."): number, optional spaces, unit.
/// On success `used` is the number of characters consumed.
std::optional<bytes> parse_size_prefix(std::string_view s, std::size_t& used);

/// A diagnostic on line `line` at 1-based `column` (0: none), quoting the line.
diagnostic error_on_line(const std::string& source, const text_line& line, int column,
                         std::string message);

/// A diagnostic at byte `offset` of `text`: computes line and column and quotes the line.
diagnostic error_at_offset(const std::string& source, std::string_view text, std::size_t offset,
                           std::string message);

/// 1-based column of `part` inside `line` when `part` is a view into it, else 0.
int column_of(const text_line& line, std::string_view part);

/// Quotes a value for a message, shortened to 40 characters: "abc" or "abcdef...".
std::string quoted(std::string_view s);

}  // namespace vramscope::observe::detail
