#pragma once
// The record-handling half of `vramscope trace`, which compiles and is tested without CUDA.
// The CUPTI injection library (trace/injection.cpp) copies each CUPTI memory activity record
// and each driver callback it receives into the plain structs below, and a trace_recorder
// turns them into trace_records, which a trace_writer appends to trace-<pid>.jsonl.
//
// File format (one JSON object per line; docs/trace.md):
//   {"type":"header","version":1,"pid":4242,"rank":0,"local_rank":0,"world_size":8,
//    "cuda_visible_devices":"0,1","host":"gpu-node-07","status":"ok","message":""}
//   {"type":"device","device":0,"uuid":"GPU-...","name":"NVIDIA H100 80GB HBM3","total":85...}
//   {"type":"event","timestamp":123456789,"device":0,"pid":4242,"rank":0,"kind":"alloc",
//    "address":"0x7f0000000000","bytes":2097152,"stream":7,"api":"cuMemCreate"}
//   {"type":"dropped","count":12}
// status is "ok", "multiple_subscribers" (another CUPTI client holds the single slot, so this
// process is not traced) or "error". Timestamps are CUPTI nanoseconds. device is the CUDA
// ordinal inside the process (-1 when unknown); "device" lines map it to a GPU UUID.
//
// Nothing here allocates GPU memory, calls CUDA or throws; none of it is thread-safe (the
// injection library serialises calls with one mutex).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <vramscope/core/units.hpp>

namespace vramscope::trace {

enum class trace_kind { alloc, free, map, unmap };

/// "alloc", "free", "map", "unmap".
std::string_view trace_kind_name(trace_kind kind);

/// One memory event of one process.
struct trace_record {
  std::uint64_t timestamp_ns = 0;
  int device = -1;  // CUDA ordinal in the process; -1 unknown
  std::int64_t pid = 0;
  std::optional<int> rank;
  trace_kind kind = trace_kind::alloc;
  std::uint64_t address = 0;  // 0 for cuMemCreate/cuMemRelease (no address yet)
  bytes size = 0;
  std::optional<std::uint32_t> stream;
  std::string_view api;  // static text: "memory2", "cuMemCreate", ...
};

/// The fields of a CUPTI MEMORY2 record (CUpti_ActivityMemory4 in CUPTI's cupti_activity.h).
struct memory_activity {
  std::uint32_t operation = 0;    // 1 allocation, 2 release
  std::uint32_t memory_kind = 0;  // 3 device, 4 array, 5 managed, 6 device static, ...
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t timestamp_ns = 0;
  std::uint32_t device_id = 0;
  std::uint32_t stream_id = 0;
  bool has_stream = false;  // false for synchronous allocations
  bool is_async = false;    // stream-ordered (pool) allocation
};

/// The driver calls the injection library subscribes to (CUPTI's cupti_driver_cbid.h;
/// docs/trace.md, "How it works").
enum class driver_call_kind {
  mem_create,       // cuMemCreate: physical memory, size + handle (+ device from its props)
  mem_release,      // cuMemRelease: handle
  mem_map,          // cuMemMap: address, size, handle
  mem_unmap,        // cuMemUnmap: address, size
  mem_alloc_async,  // cuMemAllocAsync(_ptsz): address (output), size, stream
  mem_free_async,   // cuMemFreeAsync(_ptsz): address, stream
};

/// One completed, successful driver call (the callback's exit site).
struct driver_call {
  driver_call_kind call = driver_call_kind::mem_create;
  std::uint64_t timestamp_ns = 0;
  int device = -1;  // when the call or its context tells; -1 unknown
  std::uint64_t address = 0;
  std::uint64_t handle = 0;
  bytes size = 0;
  std::optional<std::uint32_t> stream;
};

/// Turns CUPTI data into trace_records and keeps the maps needed to give every free, release
/// and unmap its size and device: handle -> (size, device) from cuMemCreate, address ->
/// (size, device) from allocations and maps. Memory of each map is bounded by the number of
/// live allocations.
class trace_recorder {
 public:
  trace_recorder(std::int64_t pid, std::optional<int> rank) : pid_(pid), rank_(rank) {}

  /// Device memory (device, device static, array) becomes alloc/free; host, pinned and managed
  /// memory is skipped (counted in skipped()), and so are stream-ordered records, which the
  /// cuMemAllocAsync/cuMemFreeAsync callbacks already report. Empty when skipped.
  std::optional<trace_record> on_memory_activity(const memory_activity& a);

  /// cuMemCreate/cuMemAllocAsync -> alloc, cuMemRelease/cuMemFreeAsync -> free,
  /// cuMemMap -> map, cuMemUnmap -> unmap. A release of a handle never created in this trace
  /// (or a free of an unknown address) becomes a record of size 0.
  trace_record on_driver_call(const driver_call& c);

  [[nodiscard]] std::uint64_t skipped() const { return skipped_; }

 private:
  struct extent {
    bytes size = 0;
    int device = -1;
  };
  trace_record make(trace_kind kind, std::uint64_t t, int device, std::uint64_t address, bytes size,
                    std::optional<std::uint32_t> stream, std::string_view api) const;
  extent take(std::unordered_map<std::uint64_t, extent>& map, std::uint64_t key);

  std::int64_t pid_;
  std::optional<int> rank_;
  std::unordered_map<std::uint64_t, extent> handles_;      // cuMemCreate handle
  std::unordered_map<std::uint64_t, extent> allocations_;  // address of a live allocation
  std::unordered_map<std::uint64_t, extent> mappings_;     // address of a live mapping
  std::uint64_t skipped_ = 0;
};

/// Appends one JSON line (with '\n') for a record, a device or the header to `out`. Text
/// values are escaped; they come from the driver and the environment.
void append_event_line(std::string& out, const trace_record& r);
void append_device_line(std::string& out, int device, std::string_view uuid, std::string_view name,
                        bytes total);

struct trace_header {
  std::int64_t pid = 0;
  std::optional<int> rank, local_rank, world_size;
  std::optional<std::string> cuda_visible_devices;
  std::string host;           // the machine's host name; empty when it cannot be read
  std::string status = "ok";  // "ok", "multiple_subscribers", "error"
  std::string message;
};
void append_header_line(std::string& out, const trace_header& h);

/// The header of this process: rank, local rank and world size from RANK, LOCAL_RANK and
/// WORLD_SIZE (values that are not whole numbers are left out), CUDA_VISIBLE_DEVICES as set,
/// and the host name (so folders from many nodes can be read together).
trace_header header_from_environment(std::int64_t pid);

/// This machine's host name (gethostname); empty when it cannot be read.
std::string host_name();
void append_dropped_line(std::string& out, std::uint64_t count);

/// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of a CUuuid.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

}  // namespace vramscope::trace
