// vramscope_trace_probe: a tiny CUDA program for the opt-in GPU tests of `vramscope trace`. It
// makes one allocation of each kind the injection library records, with known sizes:
//   cuMemAlloc 64 MiB + cuMemFree                          -> memory2 alloc/free
//   cuMemCreate 32 MiB (rounded to the granularity), cuMemMap, cuMemUnmap, cuMemRelease
//   cuMemAllocAsync 16 MiB + cuMemFreeAsync on a stream
// Exits 0 when every call worked, else 1 with the failing call on stderr; 2 without a GPU.
#include <cuda.h>

#include <cstdio>

namespace {

constexpr size_t mib = size_t{1} << 20;

bool check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  const char* text = nullptr;
  cuGetErrorString(r, &text);
  std::fprintf(stderr, "vramscope_trace_probe: %s failed: %s\n", what, text ? text : "?");
  return false;
}

bool plain_allocation() {
  CUdeviceptr p = 0;
  return check(cuMemAlloc(&p, 64 * mib), "cuMemAlloc") && check(cuMemFree(p), "cuMemFree");
}

bool virtual_memory(CUdevice device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity = 0;
  if (!check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
             "cuMemGetAllocationGranularity"))
    return false;
  const size_t size = (32 * mib + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr va = 0;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return check(cuMemCreate(&handle, size, &prop, 0), "cuMemCreate") &&
         check(cuMemAddressReserve(&va, size, 0, 0, 0), "cuMemAddressReserve") &&
         check(cuMemMap(va, size, 0, handle, 0), "cuMemMap") &&
         check(cuMemSetAccess(va, size, &access, 1), "cuMemSetAccess") &&
         check(cuMemUnmap(va, size), "cuMemUnmap") &&
         check(cuMemAddressFree(va, size), "cuMemAddressFree") &&
         check(cuMemRelease(handle), "cuMemRelease");
}

bool stream_ordered() {
  CUstream stream = nullptr;
  CUdeviceptr p = 0;
  return check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") &&
         check(cuMemAllocAsync(&p, 16 * mib, stream), "cuMemAllocAsync") &&
         check(cuMemFreeAsync(p, stream), "cuMemFreeAsync") &&
         check(cuStreamSynchronize(stream), "cuStreamSynchronize") &&
         check(cuStreamDestroy(stream), "cuStreamDestroy");
}

}  // namespace

int main() {
  if (!check(cuInit(0), "cuInit")) return 2;
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (!check(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(context), "cuCtxSetCurrent"))
    return 2;
  const bool ok = plain_allocation() && virtual_memory(device) && stream_ordered();
  cuDevicePrimaryCtxRelease(device);
  return ok ? 0 : 1;
}
