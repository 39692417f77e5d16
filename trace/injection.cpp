// libvramscope_trace.so: a CUPTI injection library. The CUDA driver loads the library named by
// CUDA_INJECTION64_PATH when it initialises and calls InitializeInjection (CUPTI's sample
// cupti_trace_injection; docs/trace.md, "How it works"). We subscribe to CUPTI, enable MEMORY2
// activity records (cudaMalloc and friends) and DEVICE records (ordinal -> UUID), and callbacks
// on the exit of the driver's virtual-memory and stream-ordered calls, which MEMORY2 does not
// describe fully (cupti_activity.h, cupti_driver_cbid.h). Everything is turned into trace
// records by the CUDA-free code in src/watch and appended to
// $VRAMSCOPE_TRACE_DIR/trace-<pid>.jsonl.
//
// Rules for code that runs inside someone else's training job: never throw, never exit,
// never block for long (one mutex, held for a few microseconds except while writing a buffer
// out), and on any CUPTI error say so once on stderr and go quiet.

#include <cuda.h>
#include <cupti.h>  // also declares the driver calls' parameter structs (generated_cuda_meta.h)
#include <unistd.h>

#include <vramscope/trace/trace_record.hpp>
#include <vramscope/trace/trace_writer.hpp>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace {

using namespace vramscope::trace;

constexpr std::size_t activity_buffer_bytes = 1 << 20;
constexpr std::uint32_t flush_period_ms = 2000;

struct tracer {
  std::recursive_mutex mutex;  // CUPTI may call back on the thread that is inside our code
  trace_recorder recorder;
  trace_writer writer;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::atomic<bool> quiet{false};
  bool activities_enabled = false;  // ours to disable; another tool's must be left alone
  tracer(std::int64_t pid, std::optional<int> rank) : recorder(pid, rank) {}
};

// Leaked on purpose: CUPTI may deliver buffers while static destructors run.
tracer* g = nullptr;

void say(const char* format, ...) __attribute__((format(printf, 1, 2)));
void say(const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  std::fprintf(stderr, "vramscope trace (pid %d): %s\n", static_cast<int>(::getpid()), message);
}

const char* cupti_text(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) return "unknown CUPTI error";
  return text;
}

// Stops tracing this process for good; the program runs on untouched.
void go_quiet(const char* why) {
  if (g->quiet.exchange(true)) return;
  say("%s; tracing stops for this process", why);
  if (g->subscriber) cuptiUnsubscribe(g->subscriber);
  if (g->activities_enabled) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMORY2);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DEVICE);
  }
}

void write_out() {
  if (!g->writer.flush() && g->writer.failed()) go_quiet("cannot write the trace file");
}

// ---- activity records ----

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, activity_buffer_bytes));
  *size = *buffer ? activity_buffer_bytes : 0;
  *max_records = 0;
}

void record_activity(const CUpti_Activity* record) {
  if (record->kind == CUPTI_ACTIVITY_KIND_MEMORY2) {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
    memory_activity a;
    a.operation = static_cast<std::uint32_t>(m->memoryOperationType);
    a.memory_kind = static_cast<std::uint32_t>(m->memoryKind);
    a.address = m->address;
    a.bytes = m->bytes;
    a.timestamp_ns = m->timestamp;
    a.device_id = m->deviceId;
    a.stream_id = m->streamId;
    a.has_stream = m->streamId != CUPTI_INVALID_STREAM_ID;
    a.is_async = m->isAsync != 0;
    if (auto r = g->recorder.on_memory_activity(a)) append_event_line(g->writer.buffer(), *r);
  } else if (record->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
    const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
    unsigned char uuid[16];
    std::memcpy(uuid, d->uuid.bytes, sizeof uuid);
    append_device_line(g->writer.buffer(), static_cast<int>(d->id), format_gpu_uuid(uuid),
                       d->name ? d->name : "", d->globalMemorySize);
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                               size_t valid) {
  if (g && !g->quiet) {
    std::lock_guard lock(g->mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
      record_activity(record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS &&
        dropped > 0)
      append_dropped_line(g->writer.buffer(), dropped);
    write_out();
  }
  std::free(buffer);
}

// ---- driver callbacks ----

template <typename Params>
const Params& params_of(const CUpti_CallbackData* cb) {
  return *static_cast<const Params*>(cb->functionParams);
}

int device_of(CUcontext context) {
  uint32_t device = 0;
  if (!context || cuptiGetDeviceId(context, &device) != CUPTI_SUCCESS) return -1;
  return static_cast<int>(device);
}

std::optional<uint32_t> stream_of(CUcontext context, CUstream stream, bool per_thread) {
  uint32_t id = 0;
  if (!context || cuptiGetStreamIdEx(context, stream, per_thread ? 1 : 0, &id) != CUPTI_SUCCESS)
    return std::nullopt;
  return id;
}

// Fills `c` from the parameters of a finished driver call; false for calls we do not record.
bool describe(CUpti_CallbackId id, const CUpti_CallbackData* cb, driver_call& c) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
      const auto& p = params_of<cuMemCreate_params>(cb);
      c.call = driver_call_kind::mem_create;
      c.handle = p.handle ? *p.handle : 0;
      c.size = p.size;
      if (p.prop && p.prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
        c.device = p.prop->location.id;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
      c.call = driver_call_kind::mem_release;
      c.handle = params_of<cuMemRelease_params>(cb).handle;
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      const auto& p = params_of<cuMemMap_params>(cb);
      c.call = driver_call_kind::mem_map;
      c.address = p.ptr;
      c.size = p.size;
      c.handle = p.handle;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
      const auto& p = params_of<cuMemUnmap_params>(cb);
      c.call = driver_call_kind::mem_unmap;
      c.address = p.ptr;
      c.size = p.size;
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
      // The _ptsz variant has the same parameter layout (generated_cuda_meta.h).
      const auto& p = params_of<cuMemAllocAsync_params>(cb);
      c.call = driver_call_kind::mem_alloc_async;
      c.address = p.dptr ? *p.dptr : 0;
      c.size = p.bytesize;
      c.device = device_of(cb->context);
      c.stream =
          stream_of(cb->context, p.hStream, id == CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
      const auto& p = params_of<cuMemFreeAsync_params>(cb);
      c.call = driver_call_kind::mem_free_async;
      c.address = p.dptr;
      c.device = device_of(cb->context);
      c.stream =
          stream_of(cb->context, p.hStream, id == CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz);
      return true;
    }
    default:
      return false;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  if (!g || g->quiet || domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_EXIT) return;
  if (cb->functionReturnValue &&
      *static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS)
    return;
  driver_call c;
  if (!describe(id, cb, c)) return;
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  c.timestamp_ns = now;
  std::lock_guard lock(g->mutex);
  append_event_line(g->writer.buffer(), g->recorder.on_driver_call(c));
  if (g->writer.buffer().size() >= activity_buffer_bytes) write_out();
}

// ---- set-up ----

constexpr CUpti_CallbackId traced_calls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemCreate,     CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,        CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,  CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
};

// Returns "" when every step worked, else what failed.
std::string enable_tracing() {
  for (auto id : traced_calls)
    if (auto r = cuptiEnableCallback(1, g->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
        r != CUPTI_SUCCESS)
      return std::string("cuptiEnableCallback: ") + cupti_text(r);
  if (auto r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS)
    return std::string("cuptiActivityRegisterCallbacks: ") + cupti_text(r);
  if (auto r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2); r != CUPTI_SUCCESS)
    return std::string("cuptiActivityEnable(MEMORY2): ") + cupti_text(r);
  g->activities_enabled = true;
  if (auto r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE); r != CUPTI_SUCCESS)
    say("no device records (%s); GPUs are named by ordinal", cupti_text(r));
  cuptiActivityFlushPeriod(flush_period_ms);
  return {};
}

void at_exit() {
  if (!g) return;
  if (!g->quiet) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(g->mutex);
  g->writer.close();
}

// Subscribes and fills the header's status; false when this process cannot be traced.
bool subscribe(trace_header& header) {
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "vramscope";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder;
  const CUptiResult r = cuptiSubscribe_v2(&g->subscriber, on_callback, nullptr, &params);
  if (r == CUPTI_SUCCESS) return true;
  g->subscriber = nullptr;
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    header.status = "multiple_subscribers";
    header.message = std::string("CUPTI is already used by ") +
                     (holder[0] ? holder : "another tool") + " (a profiler, Nsight or a debugger)";
  } else {
    header.status = "error";
    header.message = std::string("cuptiSubscribe: ") + cupti_text(r);
  }
  return false;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (started.exchange(true)) return 1;
  const auto pid = static_cast<std::int64_t>(::getpid());
  trace_header header = header_from_environment(pid);
  g = new tracer(pid, header.rank);
  std::lock_guard lock(g->mutex);
  const char* dir = std::getenv("VRAMSCOPE_TRACE_DIR");
  const std::string path = std::string(dir && *dir ? dir : ".") + "/" + trace_file_name(pid);
  std::string error;
  if (!g->writer.open(path, error)) {
    g->quiet = true;
    say("cannot open the trace file %s; this process is not traced", error.c_str());
    return 1;
  }
  if (subscribe(header)) {
    if (auto problem = enable_tracing(); !problem.empty()) {
      header.status = "error";
      header.message = problem;
    }
  }
  append_header_line(g->writer.buffer(), header);
  write_out();  // the header goes out at once: `vramscope trace` reads it to decide on sampling
  if (header.status != "ok") {
    go_quiet(header.message.c_str());
    return 1;
  }
  std::atexit(at_exit);
  return 1;
}
