#pragma once
// The JSON form of a sample: one line of `watch --log FILE.jsonl`, the output of
// `watch --once --json`, and the input of replay_source. docs/watch.md documents the fields.
//
//   {"time_ms": 1732200000000, "source": "nvml",
//    "gpus": [{"index": 0, "name": "...", "uuid": "GPU-...", "bus_id": "...", "total": 85520809984,
//              "used": 1048576, "free": ..., "reserved": ..., "utilization_gpu": 37,
//              "utilization_memory": 12, "peak_used": ..., "lost": true}],
//    "processes": [{"pid": 4242, "gpu_index": 0, "gpu_uuid": "GPU-...", "name": "python3", "type": "C",
//                   "used": ..., "peak_used": ..., "rank": 0, "local_rank": 0, "world_size": 8,
//                   "cuda_visible_devices": "0,1", "framework": "torch", "xla_mem_fraction": 0.9}],
//    "alerts": [{"id": "shared_gpu", "gpu": 0, "pids": [4242, 4243], "message": "..."}],
//    "warnings": ["nvml: GPU 1: utilisation unavailable: Not Supported"]}
//
// Sizes are integers in bytes. Figures that are unknown are omitted, never written as 0; "lost"
// appears only when true. Readers ignore keys they do not know, so newer logs stay readable. GPUs
// and processes are written in observe's JSON form of them (observe/observe_json.hpp, the names
// of the observation structs); logs written before that ("util_gpu", "util_memory", a process's
// "gpu") still read.

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/alerts.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

/// The object above. `source` is omitted when empty.
nlohmann::json to_json(const sample& s, std::span<const alert> alerts = {},
                       std::string_view source = {});

/// One line of JSONL (no newline), with invalid UTF-8 in names replaced.
std::string to_json_line(const sample& s, std::span<const alert> alerts = {},
                         std::string_view source = {});

/// Reads one line written by to_json_line. Alerts and warnings in the line are not read back
/// (they are recomputed). Fails with "<source>:<line>: <path>: expected ..." for a value of
/// the wrong type, or the JSON parser's message with the column.
result<sample> sample_from_json_line(std::string_view text, const std::string& source, int line);

}  // namespace vramscope::watch
