#pragma once
// What tells nvidia-smi's --query-* CSV from other text with commas, for format detection.

#include <string_view>

namespace vramscope::observe::detail {

/// Whether `text` reads as nvidia-smi --query-gpu / --query-compute-apps CSV: its first non-empty
/// line is a header of field names, or each of its first lines (at most 8) has two or more
/// cells, each a value of a shape nvidia-smi prints (a number with or without its unit, a
/// "[N/A]", a UUID, a bus id, a short name or path). A log line ("2024-02-19 15:14:56: W ...")
/// or a note ("before import [5, 5, 5, 5]") is not.
bool looks_like_smi_csv(std::string_view text);

}  // namespace vramscope::observe::detail
