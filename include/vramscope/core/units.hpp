#pragma once
// Byte quantities. Every memory figure in vramscope is a `bytes` value (unsigned, exact);
// literals make sizes readable: `2_MiB`, `80_GiB`. Formatting for people lives here too.

#include <cstdint>
#include <string>

namespace vramscope {

/// A count of bytes. Plain integer so arithmetic stays cheap; the name carries the unit.
using bytes = std::uint64_t;

inline constexpr bytes KiB = 1024;
inline constexpr bytes MiB = 1024 * KiB;
inline constexpr bytes GiB = 1024 * MiB;

inline namespace literals {
constexpr bytes operator""_KiB(unsigned long long n) { return n * KiB; }
constexpr bytes operator""_MiB(unsigned long long n) { return n * MiB; }
constexpr bytes operator""_GiB(unsigned long long n) { return n * GiB; }
}  // namespace literals

/// Rounds `n` up to a multiple of `step`. Requires: step > 0.
constexpr bytes round_up(bytes n, bytes step) { return (n + step - 1) / step * step; }

/// Ceiling division of unsigned integers. Requires: d > 0.
constexpr std::uint64_t ceil_div(std::uint64_t n, std::uint64_t d) { return (n + d - 1) / d; }

/// "12.34 GiB", "512.0 MiB", "1.5 KiB", "100 B": binary units, for tables meant for people.
std::string format_bytes(bytes n);

/// "8,030,261,248": an integer with thousands separators, for counts meant for people.
std::string format_count(std::uint64_t n);

/// Signed variant for deltas: "+1.25 GiB", "-300.0 MiB", "0 B".
std::string format_delta(std::int64_t n);

/// Parses "80GiB", "80 GB", "81920MiB", "1.5G", "123456" (bytes). Decimal suffixes (GB, MB)
/// are decimal powers, binary ones (GiB, MiB, G, M) powers of 1024. Returns false when the
/// text is not a size.
bool parse_bytes(std::string_view text, bytes& out);

}  // namespace vramscope
