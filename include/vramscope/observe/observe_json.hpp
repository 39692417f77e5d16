#pragma once
// JSON forms of observations and snapshot summaries, for `--json` output and for tests. All
// figures are integers in bytes; absent figures are omitted (never written as 0). Strings from
// the input that are not valid UTF-8 must be dumped with nlohmann's error_handler_t::replace.

#include <nlohmann/json.hpp>

#include <vramscope/observe/observation.hpp>
#include <vramscope/observe/torch_snapshot.hpp>

namespace vramscope::observe {

/// One GPU: {"index", "name", "uuid", "bus_id", "total", "used", "free", "reserved",
/// "utilization_gpu", "utilization_memory"}; the lines of `watch --json` and `--log` use it too.
nlohmann::json to_json(const gpu_observation& g);

/// One process: {"pid", "gpu_index", "gpu_uuid", "gpu_bus_id", "name", "type", "used",
/// "gpu_instance", "compute_instance"}.
nlohmann::json to_json(const process_observation& p);

/// {"gpus": [...], "processes": [...], "stats": [...], "ooms": [...], "warnings": [...]}
nlohmann::json to_json(const observation& o);

/// {"source", "file_bytes", "protocol", "alloc_conf", "devices": [{"device", "final_state",
///  "trace_entries", "peak_allocated": {"bytes", "trace_index", "time_us"}, ...}], "warnings"}
nlohmann::json to_json(const snapshot_summary& s);

}  // namespace vramscope::observe
