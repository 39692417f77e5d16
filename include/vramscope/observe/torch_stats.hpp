#pragma once
// Readers for PyTorch's own allocator figures: torch.cuda.memory_stats() saved as JSON and the
// text of torch.cuda.memory_summary() (also when it sits inside a log, each line prefixed by
// "[rank3]: " or a timestamp). docs/formats/memory-stats.md lists the shapes accepted.
//
// Pure functions of their input; thread-safe; time linear in the input; never throw on bad
// input. Failures are diagnostics with file:line:column and the offending line.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::observe {

/// memory_stats() JSON in any of these shapes:
///   {"allocated_bytes.all.peak": 123, ...}                      one rank, flat
///   {"rank": 3, "device": 3, "stats": {...}}                      one rank, nested
///   [{...}, {...}]                                                one entry per rank
///   {"0": {...}, "1": {...}}                                      keyed by rank
///   {"allocated_bytes": {"all": {"peak": 123, ...}, ...}, ...}    memory_stats_as_nested_dict()
/// The rank comes from a "rank" field, else the object key, else the file name (see
/// rank_from_file_name), else the position in a list. Python's repr of the same dicts (what
/// print(torch.cuda.memory_stats()) shows: an OrderedDict, a dict with single-quoted keys) is
/// read as the JSON it rewrites to, line for line; its diagnostics quote the pasted line, without
/// a column. JSON cut short (the text ends inside the
/// document) keeps every value read before the cut, except a number the text ends on (the cut
/// may have shortened it) and entries the cut left empty; each entry lacking a figure of
/// torch_stats names its keys in torch_stats::missing (figures empty, not 0), every entry has
/// torch_stats::cut set with cut_at_line at the cut, and a warning at the cut says so. Fails when a memory_stats key holds something other than a whole number,
/// when no memory_stats key is present, on JSON nested deeper than 32 levels, and on invalid
/// JSON before its end (with the position of the error). Keys that are neither memory_stats keys
/// nor "rank"/"device" are skipped with a warning in `found_warnings`.
result<std::vector<torch_stats>> parse_memory_stats_json(std::string_view text,
                                                         const std::string& source,
                                                         warnings& found_warnings);

/// Every memory_summary() table found in `text` (one per device or rank). Reads the full and
/// the abbreviated layout, units B/KiB/MiB/GiB/TiB/PiB (and the older KB/MB/GB, which were
/// powers of 1024 too), and fills `raw` with the memory_stats key of each cell. Figures are
/// the printed value times its unit, so they are low by less than one unit. A table cut off (the
/// paste ends before its closing border) keeps every complete row read; a last row cut in the
/// middle (no closing "|", or fewer than 5 cells, with nothing of the table after it) is dropped.
/// The rows it lacks are named in torch_stats::missing, their figures stay empty (unknown, not
/// 0), torch_stats::cut is set (also for a table that lacks only its closing border), and a warning at the last line read names them and what they leave undecided (without
/// "GPU reserved memory", the cache and fragmentation). Fails when a cell is not a number with a
/// unit, or on a broken row inside the table. Returns an empty vector when the text has no
/// table. Rows with an unknown label are skipped with a warning in `found_warnings`.
result<std::vector<torch_stats>> parse_memory_summary(std::string_view text,
                                                      const std::string& source,
                                                      warnings& found_warnings);

/// The rank encoded in a file name: "stats_rank3.json", "rank-3.json", "rank_3", "Rank3.json"
/// ("rank" then an optional -, _ or ., then digits) or "memory_stats.3.json" (digits as the last
/// dotted, dashed or underscored part of the stem). Directories in `path` are ignored.
std::optional<int> rank_from_file_name(std::string_view path);

}  // namespace vramscope::observe
