#include <vramscope/observe/read_observation.hpp>

#include <vramscope/core/io.hpp>
#include <vramscope/observe/oom_report.hpp>
#include <vramscope/observe/torch_stats.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "observe/kaldi_log.hpp"
#include "observe/memory_figures.hpp"
#include "observe/python_repr.hpp"
#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

constexpr std::size_t sniff_bytes = 64 * 1024;

bool is_json_list(std::string_view text) {
  std::string_view rest = detail::skip_bom_and_space(text.substr(1));
  return rest.empty() || rest.front() == '{' || rest.front() == ']';
}

// A memory_summary() table, or any message find_oom_reports reads (one definition of "an
// out-of-memory message", whatever its wording or wrapping).
bool has_log_markers(std::string_view text) {
  if (detail::contains(text, "memory summary, device ID ")) return true;
  warnings ignored;
  // A table cut above its title (memory_summary.cpp reads its rows).
  if (const auto untitled = parse_memory_summary(text, "", ignored); untitled && !untitled->empty())
    return true;
  return !find_oom_reports(text, "", ignored).empty();
}

// What a text that no reader took holds, and what would make it readable: quoted in the refusal
// so the user sees what was found instead of only the formats expected.
std::string what_to_paste(const detail::memory_figures& found) {
  std::string out;
  if (!found.lone.empty())
    out = fmt::format(
        "; found one allocator figure without its partner on line {}: the cache beside the tensors "
        "(reserved - allocated) is not in the paste; a line with both "
        "(torch.cuda.memory_allocated() and "
        "memory_reserved()) is read",
        fmt::join(found.lone, "; line "));
  if (!found.unread.empty())
    out += fmt::format(
        "; found sizes without a label this reader knows (allocated / active / reserved, MA / CA, "
        "used / total) on line {}",
        fmt::join(found.unread, "; line "));
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out + ". Paste nvidia-smi's whole output, torch.cuda.memory_summary(), or the log lines from the "
               "traceback through the out-of-memory error";
}

// Kaldi's GPU lines (kaldi_log.hpp; the figures reader leaves them alone). Its failure line is
// read there with the figures of the lines before it, so the out-of-memory reader's reading of
// the same line, and its warning, are replaced.
void add_kaldi(observation& out, detail::kaldi_log&& kaldi) {
  for (const auto& k : kaldi.ooms) {
    std::erase_if(out.ooms, [&](const oom_report& r) { return r.line == k.line; });
    std::erase_if(out.warnings, [&](const diagnostic& d) { return d.line == k.line; });
  }
  const auto move_all = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  move_all(out.ooms, kaldi.ooms);
  std::sort(out.ooms.begin(), out.ooms.end(),
            [](const auto& a, const auto& b) { return a.line < b.line; });
  move_all(out.gpus, kaldi.gpus);
  move_all(out.series, kaldi.series);
  move_all(out.compute_modes, kaldi.compute_modes);
}

result<observation> parse_log(std::string_view text, const std::string& source) {
  observation out;
  auto stats = parse_memory_summary(text, source, out.warnings);
  if (!stats) return stats.error();
  out.stats = std::move(*stats);
  out.ooms = find_oom_reports(text, source, out.warnings);
  auto figures = detail::find_memory_figures(text, source);
  auto kaldi = detail::find_kaldi_lines(text, source);
  if (out.stats.empty() && out.ooms.empty() && figures.empty() && kaldi.empty())
    return error_at(source, "no memory_summary() table, out-of-memory message or memory figures found" +
                                what_to_paste(figures));
  out.stats.insert(out.stats.end(), std::make_move_iterator(figures.stats.begin()),
                   std::make_move_iterator(figures.stats.end()));
  out.gpus = std::move(figures.gpus);
  out.vllm = std::move(figures.vllm);
  out.xla_pools = std::move(figures.xla_pools);
  out.series = std::move(figures.series);
  out.process_counts = std::move(figures.process_counts);
  out.rank_devices = std::move(figures.rank_devices);
  out.allocated_checks = std::move(figures.allocated_checks);
  // Ranks whose line gave no figure of what they hold (a CuPy pool's counts, or labelled sizes
  // the figures reader read from the same line).
  const auto figures_on = [&](int line) {
    return std::any_of(out.stats.begin(), out.stats.end(), [&](const torch_stats& s) {
      const auto at = s.raw.find("line");
      return s.source == source && at != s.raw.end() &&
             at->second == static_cast<std::uint64_t>(line);
    });
  };
  if (!out.rank_devices.empty() &&
      std::all_of(out.rank_devices.begin(), out.rank_devices.end(),
                  [&](const auto& r) { return !r.pool_held && !figures_on(r.line); }))
    out.warnings.push_back(error_at(
        source,
        fmt::format(
            "{} rank(s) name the GPU they use: read as which GPU each rank runs on; "
            "what each holds there is not read (its figures have no unit or label): "
            "nvidia-smi's process list, or torch.cuda.memory_stats() of each rank, gives it",
            out.rank_devices.size()),
        out.rank_devices.front().line));
  if (!out.process_counts.empty())
    out.warnings.push_back(
        error_at(source,
                 fmt::format("processes counted per GPU on {} line(s) ({} GPUs): read as counts "
                             "only; which processes "
                             "they are and what each holds are not in the paste (nvidia-smi's "
                             "process list gives both)",
                             out.process_counts.size(), out.process_counts.front().per_gpu.size()),
                 out.process_counts.front().line));
  if (out.ooms.empty())  // else the out-of-memory reader weighs TensorFlow's device lines
    out.gpus.insert(out.gpus.end(), figures.devices_at_start.begin(), figures.devices_at_start.end());
  add_kaldi(out, std::move(kaldi));
  return out;
}

result<observation> parse_stats(std::string_view text, const std::string& source) {
  observation out;
  auto stats = parse_memory_stats_json(text, source, out.warnings);
  if (!stats) return stats.error();
  out.stats = std::move(*stats);
  return out;
}

}  // namespace

std::optional<observation_format> detect_observation_format(std::string_view text) {
  const std::string_view start = detail::skip_bom_and_space(text);
  if (start.empty()) return std::nullopt;
  if (start.front() == '<') return observation_format::smi_xml;
  // TensorFlow.js's tf.memory() printed as objects (memory_figures.hpp): a log, not
  // torch.cuda.memory_stats() JSON.
  if (const std::string_view first = start.substr(0, start.find('\n'));
      detail::contains(first, "numTensors") && detail::contains(first, "numBytes"))
    return observation_format::log;
  if (start.front() == '{' || (start.front() == '[' && is_json_list(start)) || detail::looks_like_python_repr(start))
    return observation_format::memory_stats;
  const std::string_view head = text.substr(0, sniff_bytes);
  if (detect_smi_format(text) == smi_format::text) return observation_format::smi_text;
  if (detail::contains(head, "NVIDIA-SMI")) return observation_format::smi_table;
  if (has_log_markers(text)) return observation_format::log;
  if (!detail::find_kaldi_lines(text, "").empty()) return observation_format::log;
  const auto smi = detect_smi_format(text);
  if (smi == smi_format::table) return observation_format::smi_table;
  // A log or a note with memory figures of its own (observe/memory_figures.hpp), before the CSV
  // reader, which takes any text with commas for a header-less CSV.
  if (!detail::find_memory_figures(text, "").empty()) return observation_format::log;
  if (smi == smi_format::csv) return observation_format::smi_csv;
  return std::nullopt;
}

namespace {

// The most lines of a file read. Telling a log from nvidia-smi output runs the out-of-memory
// reader over the whole text, and it and the memory_summary() reader index every line (about
// 80 bytes a line between them): 45 MB of 2-byte lines took 1.7 GiB. 2,000,000 lines bound that
// to about 160 MB, far above any nvidia-smi output or stats file; a 64 MiB log has that many
// only when its lines average under 32 bytes.
constexpr std::size_t max_lines = 2'000'000;

}  // namespace

result<observation> parse_observation(std::string_view text, const std::string& source,
                                      const smi_options& options) {
  std::size_t lines = 0;
  for (auto at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1))
    if (++lines > max_lines)
      return error_at(source,
                      fmt::format("more than {} lines, the most this reader takes (a bound on its "
                                  "memory): give the part of the log around the error",
                                  max_lines),
                      static_cast<int>(lines));
  if (!text.empty() && static_cast<unsigned char>(text.front()) == 0x80)
    return error_at(source, "this is a pickle (a PyTorch memory snapshot?): analyse it with `vramscope snapshot`");
  const auto format = detect_observation_format(text);
  if (!format) {
    const auto figures = detail::find_memory_figures(text, source);
    // Figures of a known label whose partner the paste lacks: the format was told, what is
    // missing is named.
    if (!figures.lone.empty() && figures.unread.empty())
      return error_at(source,
                      "memory figures, but no pair of them to weigh" + what_to_paste(figures));
    return error_at(
        source,
        "could not tell the format: expected nvidia-smi output (table, CSV, -q text or XML), "
        "torch.cuda.memory_stats() JSON, a memory_summary() table, a log with an "
        "out-of-memory message or memory figures (allocated / reserved, used / total)" +
            what_to_paste(figures));
  }
  switch (*format) {
    case observation_format::smi_table: return parse_nvidia_smi_table(text, source);
    case observation_format::smi_csv: return parse_nvidia_smi_csv(text, source, options);
    case observation_format::smi_xml: return parse_nvidia_smi_xml(text, source);
    case observation_format::smi_text: return parse_nvidia_smi_text(text, source);
    case observation_format::memory_stats: return parse_stats(text, source);
    case observation_format::log: break;
  }
  return parse_log(text, source);
}

result<observation> read_observation(const std::string& path, const smi_options& options) {
  auto text = read_file(path, 64_MiB);
  if (!text) return text.error();
  return parse_observation(*text, path, options);
}

}  // namespace vramscope::observe
