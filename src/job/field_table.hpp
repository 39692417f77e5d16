#pragma once
// The table of every settable field of the job spec, by dotted path ("parallel.tp"). The YAML
// reader, --set overrides, the writers, resolve_job (to reset derived values) and field_paths()
// all go through it, so a field is named, parsed and printed the same way everywhere.
// Private to the job module; immutable after first use, so thread-safe.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/job/job_spec.hpp>

#include <nlohmann/json.hpp>

#include "job/field_codecs.hpp"

namespace vramscope::job::detail {

struct field {
  std::string path;     // "parallel.tp"; shorthands have no dot ("precision", "optimizer")
  std::string expects;  // "an integer", for "expected ..., got a map"
  std::string allowed;  // what `vramscope keys` shows: "an integer, 1 to 1024"
  std::vector<std::string> choices;  // closed set of values (enums, booleans), else empty
  std::function<std::string(job_spec&, const raw_value&)> set;  // "" or the problem
  std::function<nlohmann::json(const job_spec&)> get;           // canonical value
  std::function<void(job_spec&, const job_spec&)> copy;         // dst.field = src.field
  bool written = true;  // false for shorthands, which the writers expand instead
  bool is_size = false; // bytes: the YAML writer prints "80GiB" rather than a bare count
  bool is_list = false; // a list of names: YAML sequences are read item by item
};

/// Every field, in the order of docs/job-spec.md and of the writers' output.
const std::vector<field>& fields();

/// nullptr when `path` names no field. Exact match on the dotted path.
const field* find_field(std::string_view path);

/// The sections of the spec in order: model, hardware, parallel, precision, optimizer,
/// training, lora, init, checkpoint, framework, env.
const std::vector<std::string>& section_names();

/// Keys under `section` ("tp", "dp_shard", ... for "parallel").
std::vector<std::string> keys_of(std::string_view section);

/// "parallel" for "parallel.tp"; "" for a top-level field.
std::string section_of(std::string_view path);

/// The suggestion for an unknown key in `section` ("" at the top level): a key of the same
/// section, else a dotted path elsewhere, else "".
std::string suggest_key(const std::string& key, const std::string& section);

}  // namespace vramscope::job::detail
