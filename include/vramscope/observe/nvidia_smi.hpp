#pragma once
// Readers for nvidia-smi output, the format every user can paste: the default table (old
// "MiB / MiB" layout of drivers <= 470 and the 2023+ layout with GI/CI process columns), the
// --query-gpu / --query-compute-apps CSV (with or without header and units), the `-q` plain text
// and `-q -x` XML.
// docs/formats/nvidia-smi.md describes what is read and what is ignored.
//
// All functions are pure: they read `text` and return an observation (gpus and/or processes,
// plus warnings for ignored parts) or a diagnostic naming `source`, the line and what was
// expected. They never throw on bad input and take time linear in the input. Thread-safe.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::observe {

/// A line of the default table's process list, with or without its '|' borders:
/// "GPU [GI CI] PID TYPE NAME MEMORY" with TYPE C, G, C+G or M+C and MEMORY "160MiB" or "N/A".
bool looks_like_process_row(std::string_view line);

enum class smi_format { table, csv, text, xml };

struct smi_options {
  /// The fields of a CSV written with `noheader`, in order, as given to --query-gpu= or
  /// --query-compute-apps= (e.g. {"index", "memory.used"}). Ignored when the CSV has a header.
  /// Without a header and without fields a CSV is rejected: its columns cannot be named safely.
  std::vector<std::string> csv_fields;
};

/// Guesses the format from content: XML declaration or <nvidia_smi_log> -> xml; the "NVSMI LOG"
/// banner of `-q` -> text; a "+---" /
/// "NVIDIA-SMI" table -> table; comma-separated rows -> csv. Empty when none fits.
std::optional<smi_format> detect_smi_format(std::string_view text);

/// Detects the format and parses. Fails with "could not tell ..." when detection fails.
result<observation> parse_nvidia_smi(std::string_view text, const std::string& source,
                                     const smi_options& options = {});

/// The default `nvidia-smi` table: GPU rows (index, name, bus id, memory used/total,
/// utilisation), the process table, driver and CUDA versions. The MIG devices table is skipped
/// with a warning. A paste cut off is read up to the cut, with a warning naming what it lacks: a
/// GPU row whose memory row is not there is dropped (an error when nothing else was read); a
/// process list without its closing border sets observation::processes_cut_from_gpu, and a last
/// process row cut in the middle is dropped; a screen that ends before its process list says so.
/// Fails on a GPU row followed by something other than its memory row, or a malformed process row.
result<observation> parse_nvidia_smi_table(std::string_view text, const std::string& source);

/// --query-gpu=... or --query-compute-apps=... with --format=csv[,noheader][,nounits]. A CSV
/// whose columns include "pid" is a process list, otherwise a GPU list. "[N/A]" and any other
/// "[...]" value is empty. Fails on a row with too few columns or a value that does not parse.
result<observation> parse_nvidia_smi_csv(std::string_view text, const std::string& source,
                                         const smi_options& options = {});

/// `nvidia-smi -q` plain text, any driver from 369 on, Linux or Windows: per "GPU <bus id>"
/// block the FB Memory Usage figures, name, UUID, utilisation and the Processes list (a
/// process's "Used GPU Memory" is empty where WDDM says "Not available"). Devices are indexed
/// by their order, as in the XML. Fails without the "NVSMI LOG" banner, or on a memory figure,
/// percentage or process id that does not parse (file, line and column).
result<observation> parse_nvidia_smi_text(std::string_view text, const std::string& source);

/// `nvidia-smi -q -x`. Any DTD version; unknown elements are ignored. Fails when the XML is
/// malformed (with the parser's line and column) or its root is not <nvidia_smi_log>.
result<observation> parse_nvidia_smi_xml(std::string_view text, const std::string& source);

}  // namespace vramscope::observe
