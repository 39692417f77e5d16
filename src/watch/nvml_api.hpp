#pragma once
// The part of NVML's C ABI that nvml_source uses, declared here because nvml.h is not
// installed on build machines (nvtop does the same). Layouts and constants follow NVIDIA's
// nvml.h (NVML API version 13; NVIDIA/go-nvml carries a copy as gen/nvml/nvml.h); the
// static_asserts pin their LP64 sizes.

#include <cstddef>
#include <cstdint>
#include <string>

namespace vramscope::watch::nvml {

using return_t = int;  // nvmlReturn_t
struct device_st;
using device_t = device_st*;  // nvmlDevice_t, opaque

// nvmlReturn_t values (nvml.h, enum nvmlReturn_enum).
inline constexpr return_t success = 0;
inline constexpr return_t not_supported = 3;
inline constexpr return_t no_permission = 4;
inline constexpr return_t insufficient_size = 7;
inline constexpr return_t driver_not_loaded = 9;
inline constexpr return_t function_not_found = 13;
inline constexpr return_t gpu_is_lost = 15;
inline constexpr return_t argument_version_mismatch = 25;

// usedGpuMemory of a process when the driver cannot tell (e.g. under WDDM).
inline constexpr std::uint64_t value_not_available = ~std::uint64_t{0};

struct memory_v1 {  // nvmlMemory_t
  std::uint64_t total;
  std::uint64_t free;
  std::uint64_t used;  // includes memory reserved by the driver
};

struct memory_v2 {  // nvmlMemory_v2_t
  std::uint32_t version;
  std::uint64_t total;
  std::uint64_t reserved;
  std::uint64_t free;
  std::uint64_t used;  // excludes reserved
};

// Versioned-struct rule: sizeof | (version << 24) -> 0x02000028.
inline constexpr std::uint32_t memory_v2_version = sizeof(memory_v2) | (2u << 24);

struct process_v1 {  // nvmlProcessInfo_v1_t, used by the unversioned function
  std::uint32_t pid;
  std::uint64_t used_gpu_memory;
};

struct process_v2 {  // nvmlProcessInfo_v2_t == nvmlProcessInfo_t, used by _v2 and _v3
  std::uint32_t pid;
  std::uint64_t used_gpu_memory;
  std::uint32_t gpu_instance_id;      // 0xFFFFFFFF without MIG
  std::uint32_t compute_instance_id;  // 0xFFFFFFFF without MIG
};

struct process_535 {  // the _v3 record of drivers 535.43-535.98 only
  process_v2 base;
  std::uint64_t used_gpu_cc_protected_memory;
};

struct utilization {  // nvmlUtilization_t
  std::uint32_t gpu;
  std::uint32_t memory;
};

struct pci_info {  // nvmlPciInfo_t as filled by _v2 and _v3
  char bus_id_legacy[16];
  std::uint32_t domain;
  std::uint32_t bus;
  std::uint32_t device;
  std::uint32_t pci_device_id;
  std::uint32_t pci_sub_system_id;
  char bus_id[32];
};

static_assert(sizeof(memory_v1) == 24);
static_assert(sizeof(memory_v2) == 40 && memory_v2_version == 0x02000028);
static_assert(sizeof(process_v1) == 16);
static_assert(sizeof(process_v2) == 24);
static_assert(sizeof(process_535) == 32);
static_assert(sizeof(utilization) == 8);
static_assert(sizeof(pci_info) == 68);

inline constexpr unsigned name_buffer = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned uuid_buffer = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned driver_buffer = 80;

using init_fn = return_t (*)();
using error_string_fn = const char* (*)(return_t);
using count_fn = return_t (*)(unsigned*);
using handle_fn = return_t (*)(unsigned, device_t*);
using text_fn = return_t (*)(device_t, char*, unsigned);
using memory_fn = return_t (*)(device_t, void*);
using process_fn = return_t (*)(device_t, unsigned*, void*);
using utilization_fn = return_t (*)(device_t, utilization*);
using pci_fn = return_t (*)(device_t, pci_info*);
using process_name_fn = return_t (*)(unsigned, char*, unsigned);
using driver_version_fn = return_t (*)(char*, unsigned);

/// The three process lists NVML keeps; a C+G process is in two of them.
enum class process_list { compute, graphics, mps };

/// Resolved entry points; optional ones may be null.
struct api {
  init_fn init = nullptr;
  init_fn shutdown = nullptr;
  error_string_fn error_string = nullptr;
  count_fn device_count = nullptr;
  handle_fn handle_by_index = nullptr;
  memory_fn memory = nullptr;
  int memory_version = 0;                                 // 2 or 1
  process_fn processes[3] = {nullptr, nullptr, nullptr};  // by process_list
  int process_version = 0;  // 3, 2 or 1: the version all three lists use
  std::size_t process_record_bytes = 0;
  text_fn name = nullptr;
  text_fn uuid = nullptr;
  pci_fn pci = nullptr;
  utilization_fn utilization = nullptr;
  process_name_fn process_name = nullptr;
  driver_version_fn driver_version = nullptr;
};

/// NVML's message for `code` ("GPU is lost"), or "NVML error <code>" without nvmlErrorString.
std::string error_text(const api& f, return_t code);

/// Resolves every entry point but the process lists from an open dlopen handle. Returns the
/// name of the first required symbol that is missing, or "" on success.
std::string resolve(void* handle, api& f);

/// Resolves the process-list functions (_v3 -> _v2 -> v1, the same version for all three
/// lists) and the record size, which depends on the driver version (docs/watch.md, "Reading
/// NVML without its header"): call after nvmlInit, when the version can be read. Returns false
/// when not even the v1 compute list exists.
bool choose_process_api(void* handle, api& f, const std::string& driver_version);

/// Falls back one process API version (3 -> 2 -> 1) after a call answered FUNCTION_NOT_FOUND
/// or ARGUMENT_VERSION_MISMATCH. Returns false when already at v1.
bool downgrade_process_api(void* handle, api& f);

/// True for drivers 535.43 up to 535.98, whose _v3 process record is 32 bytes.
bool driver_has_32_byte_process_records(const std::string& driver_version);

}  // namespace vramscope::watch::nvml
