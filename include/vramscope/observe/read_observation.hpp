#pragma once
// One entry point for `explain --smi FILE --stats FILE ...`: tells which observation format a
// file holds and reads it. Memory snapshots (pickles) are not observations here; they are
// analysed by torch_snapshot.hpp, and handing one to these functions says so.

#include <optional>
#include <string>
#include <string_view>

#include <vramscope/core/result.hpp>
#include <vramscope/observe/nvidia_smi.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::observe {

enum class observation_format {
  smi_table,      // default nvidia-smi output
  smi_csv,        // nvidia-smi --query-*=... --format=csv
  smi_text,       // nvidia-smi -q
  smi_xml,        // nvidia-smi -q -x
  memory_stats,   // torch.cuda.memory_stats() as JSON
  log,            // text with memory_summary() tables and/or out-of-memory messages
};

/// Which format `text` holds, or empty when none fits. Cheap: looks at the first bytes and
/// searches for a few markers.
std::optional<observation_format> detect_observation_format(std::string_view text);

/// Detects and parses. `source` names the text in messages. A log yields its memory_summary
/// tables as stats and its out-of-memory messages as ooms; it fails when it holds neither.
/// A pickle fails with a message that points to `vramscope snapshot`.
result<observation> parse_observation(std::string_view text, const std::string& source,
                                      const smi_options& options = {});

/// Reads `path` (at most 64 MiB) and parses it. For memory_stats JSON without a rank field the
/// rank comes from the file name (rank_from_file_name).
result<observation> read_observation(const std::string& path, const smi_options& options = {});

}  // namespace vramscope::observe
