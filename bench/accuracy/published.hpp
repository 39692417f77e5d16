#pragma once
// The published yardstick: GPU-memory figures other projects measured and published
// (bench/data/published/records.jsonl, a verbatim copy of the development set), each quality A
// or B record either translated into a job (bench/data/published/<id>.yaml) or listed with
// the feature the job spec lacks (bench/published/UNEXPRESSED.md). Every job is planned and
// compared on the one level its record measured; records that ran out of memory count for
// OOM agreement only. bench/published/README.md gives the conventions.
// Thread-safe: no shared state (a published_scorer is not shared).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::bench {

/// One record of the development set, as far as the scorer needs it.
struct published_record {
  std::string source;                // file the record came from
  int line = 0;                      // 1-based
  std::string id;                    // "LR01"
  std::string group;                 // the id's first two letters
  char quality = 'C';                // 'A', 'B' or 'C'; C is never scored
  std::string metric;                // memory_metric as published
  std::optional<std::size_t> level;  // index into level_names; nullopt: the metric is not stated
  std::optional<bytes> value;        // memory_value x memory_unit; nullopt for an OOM record
  bool oom = false;                  // the run did not fit
  bool exact_length = false;         // "seq_len_exact" says the sequence length is the tensor's
                                     // real length, not a cap (an exact translation is possible)
};

/// The level a published memory_metric measures (index into level_names), from its wording:
/// "not stated" -> none; active_bytes -> active; max_memory_allocated -> allocated; any
/// reserved figure (max_memory_reserved, reserved_bytes, memory_reserved) -> reserved;
/// "nvidia-smi" -> device; anything else -> none. Records without a level are scored for OOM
/// agreement only.
std::optional<std::size_t> level_of_metric(std::string_view metric);

/// Parses one JSON line. Required: "id" (two letters and digits), "quality" ("A", "B", "C"),
/// "oom" (bool), "memory_metric" (string or null); for a record that ran, "memory_value"
/// (number > 0) and "memory_unit" ("GB", "GiB", "MB", "MiB"). Messages name source:line and
/// the field: `records.jsonl:7: field "memory_unit": expected GB, GiB, MB or MiB, got "TB"`.
result<published_record> parse_published_record(std::string_view text, const std::string& source,
                                                int line);

/// Every non-blank line of a JSONL file. Fails on an unreadable file, the first bad line, or
/// an id given twice.
result<std::vector<published_record>> read_published_records(const std::string& path);

/// The records the job spec cannot express: id -> the missing feature, read from the rows of
/// a Markdown table whose first cell is a record id (`| LR01 | ... | missing feature |`); the
/// last cell is the feature. Fails naming file:line on a row with fewer than two cells, an
/// empty feature, or an id listed twice.
result<std::map<std::string, std::string>> read_unexpressed(const std::string& path);

/// One scored record.
struct published_case {
  published_record record;
  std::string job_file;
  std::optional<bytes> predicted;  // rank 0's peak at the record's level
  std::optional<double> error;     // (predicted - measured) / measured; ran and has a level
  bool predicted_oom = false;      // the plan does not fit, or a rank's simulation ran out
  std::string peak_phase;          // phase of rank 0's allocated peak
};

struct published_set {
  std::vector<published_case> cases;                                  // in record order
  std::vector<std::pair<published_record, std::string>> unexpressed;  // with the feature
  std::size_t quality_c = 0;                                          // records never scored
};

/// Plans DIR/<id>.yaml of every A/B record of DIR/records.jsonl. Fails (file:line) when a job
/// does not parse or plan, an A/B record has neither a job nor an entry in `unexpressed` or
/// has both, a C record has a job, or a job names no record. Job files name models as presets
/// or as paths relative to the working directory (the repository root).
result<published_set> score_published(const std::string& dir,
                                      const std::map<std::string, std::string>& unexpressed);

/// Figures of one group (or of all records, group "all").
struct published_group {
  std::string name;
  std::size_t records = 0;     // A/B records
  std::size_t expressed = 0;   // of which translated into a job
  std::size_t n = 0;           // scored for error (ran, metric stated)
  double median = 0, p90 = 0;  // of |relative error|, when n > 0
  std::size_t oom_agree = 0, oom_total = 0;
  double bias = 0;  // mean signed relative error (+: over-predicted), when n > 0
};

/// One entry per group in the order LR, TO, TL, PD, TN, PM, MG (then any other group by
/// name), and "all" last.
std::vector<published_group> summarize_published(const published_set& set);

}  // namespace vramscope::bench
