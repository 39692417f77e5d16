#include <vramscope/observe/nvidia_smi.hpp>

#include <algorithm>

#include "observe/nvidia_smi_csv.hpp"
#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

std::string_view first_line(std::string_view text) {
  for (const auto& line : detail::split_lines(text.substr(0, 64 * 1024)))
    if (!detail::trim(line.text).empty()) return detail::trim(line.text);
  return {};
}

bool has_table_borders(std::string_view text) {
  const auto head = text.substr(0, 64 * 1024);
  return head.find("\n+--") != std::string_view::npos || head.substr(0, 3) == "+--";
}

// Whether `each` holds for every one of the first `most` non-empty lines of `text` (trimmed),
// and there is at least one.
template <class Line>
bool first_lines_all(std::string_view text, std::size_t most, Line&& each) {
  std::size_t lines = 0;
  for (std::size_t at = 0; at < text.size() && lines < most;) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = detail::trim(text.substr(at, end - at));
    at = end + 1;
    if (line.empty()) continue;
    ++lines;
    if (!each(line)) return false;
  }
  return lines > 0;
}

// A line of the process list's own header: its title ("| Processes: ... |"), the column names
// ("GPU   GI   CI   PID   Type   Process name   GPU Memory", "ID   ID   Usage") or the "|====|"
// rule under them.
// Only the table's bordered form: a list retyped without borders is read as a log.
bool is_process_list_header(std::string_view line) {
  if (!line.starts_with("|") && !line.starts_with("+")) return false;
  return detail::contains(line, "Processes:") || detail::contains(line, "PID") ||
         detail::contains(line, "Usage") || line.starts_with("|==") || line.starts_with("+--");
}

// The process list of the table pasted without the GPU rows above it: every non-empty line of
// the first few reads as "[|] GPU [GI CI] PID TYPE NAME MEMORY |" or as the list's own header,
// and one at least is a process row.
bool only_process_rows(std::string_view text) {
  bool row = false;
  const bool all = first_lines_all(text, 12, [&](std::string_view line) {
    const bool process = looks_like_process_row(line);
    row |= process;
    return process || is_process_list_header(line);
  });
  return all && row;
}

// The GPU rows of the table pasted without its header and borders: every non-empty line of the
// first few is a bordered row ("| ... | ... | ... |") and one of them has the memory cell
// ("2417MiB / 12189MiB").
bool only_gpu_rows(std::string_view text) {
  bool memory = false;
  const bool bordered = first_lines_all(text, 8, [&](std::string_view line) {
    memory |= detail::contains(line, "MiB /");
    return line.front() == '|' && line.back() == '|' &&
           std::count(line.begin(), line.end(), '|') >= 4;
  });
  return bordered && memory;
}

}  // namespace

std::optional<smi_format> detect_smi_format(std::string_view text) {
  const std::string_view first = first_line(text);
  if (first.empty()) return std::nullopt;
  if (first.front() == '<') return smi_format::xml;
  if (detail::contains(first, "NVSMI LOG")) return smi_format::text;
  if (detail::contains(text.substr(0, 64 * 1024), "NVIDIA-SMI") || has_table_borders(text) ||
      only_process_rows(text) || only_gpu_rows(text))
    return smi_format::table;
  if (detail::contains(first, ",") && detail::looks_like_smi_csv(text)) return smi_format::csv;
  return std::nullopt;
}

result<observation> parse_nvidia_smi(std::string_view text, const std::string& source,
                                     const smi_options& options) {
  const auto format = detect_smi_format(text);
  if (!format)
    return error_at(source, "could not tell the nvidia-smi format: expected the default table, "
                            "--query-*=... --format=csv output, -q text or -q -x XML");
  switch (*format) {
    case smi_format::xml: return parse_nvidia_smi_xml(text, source);
    case smi_format::table: return parse_nvidia_smi_table(text, source);
    case smi_format::text: return parse_nvidia_smi_text(text, source);
    case smi_format::csv: break;
  }
  return parse_nvidia_smi_csv(text, source, options);
}

}  // namespace vramscope::observe
