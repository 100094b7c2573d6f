// Loading libcuda.so.1 and resolving the driver's entry points.
#include "runtime/CudaDriver.h"

#include <dlfcn.h>

#include <initializer_list>
#include <mutex>

namespace tilec::runtime {
namespace {

struct LoadState {
  CudaDriver table{};
  bool loaded = false;
  std::string error;
};

// Stores the first of `names` that the library exports into `slot`.
// Newer symbol versions come first: cuda.h maps e.g. cuEventElapsedTime to
// cuEventElapsedTime_v2, which older drivers lack.
template <class Fn>
bool bind(void *library, Fn &slot, std::initializer_list<const char *> names) {
  for (const char *name : names) {
    if (void *symbol = dlsym(library, name)) {
      // POSIX guarantees that a dlsym result converts to a function pointer.
      slot = reinterpret_cast<Fn>(symbol);
      return true;
    }
  }
  slot = nullptr;
  return false;
}

LoadState load() {
  LoadState state;
  // RTLD_LOCAL: the driver's symbols must not satisfy other libraries'
  // references by accident. The handle is never closed: the driver stays for
  // the life of the process, as it does for the CUDA runtime.
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    state.error = std::string("no CUDA driver found: ") +
                  (why ? why : "dlopen(\"libcuda.so.1\") failed");
    return state;
  }

  CudaDriver &d = state.table;
  std::string missing;
  auto required = [&](auto &slot, std::initializer_list<const char *> names) {
    if (!bind(library, slot, names))
      missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
  };
  auto optional = [&](auto &slot, std::initializer_list<const char *> names) {
    bind(library, slot, names);
  };

  required(d.cuInit, {"cuInit"});
  required(d.cuDriverGetVersion, {"cuDriverGetVersion"});
  optional(d.cuGetErrorName, {"cuGetErrorName"});
  optional(d.cuGetErrorString, {"cuGetErrorString"});

  required(d.cuDeviceGet, {"cuDeviceGet"});
  required(d.cuDeviceGetCount, {"cuDeviceGetCount"});
  required(d.cuDeviceGetName, {"cuDeviceGetName"});
  required(d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  required(d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  required(d.cuCtxGetCurrent, {"cuCtxGetCurrent"});
  required(d.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  required(d.cuCtxSynchronize, {"cuCtxSynchronize"});

  required(d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  required(d.cuModuleUnload, {"cuModuleUnload"});
  required(d.cuModuleGetFunction, {"cuModuleGetFunction"});
  required(d.cuFuncGetAttribute, {"cuFuncGetAttribute"});
  required(d.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  required(d.cuLaunchKernel, {"cuLaunchKernel"});
  optional(d.cuLaunchKernelEx, {"cuLaunchKernelEx"});
  optional(d.cuOccupancyMaxActiveClusters, {"cuOccupancyMaxActiveClusters"});

  optional(d.cuLinkCreate, {"cuLinkCreate_v2"});
  optional(d.cuLinkAddData, {"cuLinkAddData_v2"});
  optional(d.cuLinkComplete, {"cuLinkComplete"});
  optional(d.cuLinkDestroy, {"cuLinkDestroy"});

  required(d.cuMemAlloc, {"cuMemAlloc_v2"});
  required(d.cuMemFree, {"cuMemFree_v2"});
  required(d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
  required(d.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
  required(d.cuMemsetD8, {"cuMemsetD8_v2"});
  required(d.cuPointerGetAttribute, {"cuPointerGetAttribute"});
  required(d.cuStreamSynchronize, {"cuStreamSynchronize"});

  optional(d.cuPointerGetAttributes, {"cuPointerGetAttributes"});
  optional(d.cuMemsetD8Async, {"cuMemsetD8Async"});
  optional(d.cuStreamIsCapturing, {"cuStreamIsCapturing"});
  optional(d.cuEventCreate, {"cuEventCreate"});
  optional(d.cuEventRecord, {"cuEventRecord"});
  optional(d.cuEventSynchronize, {"cuEventSynchronize"});
  optional(d.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  optional(d.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  optional(d.cuStreamCreate, {"cuStreamCreate"});
  optional(d.cuStreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"});
  optional(d.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"});
  optional(d.cuStreamEndCapture, {"cuStreamEndCapture"});
  optional(d.cuGraphInstantiateWithFlags, {"cuGraphInstantiateWithFlags"});
  optional(d.cuGraphLaunch, {"cuGraphLaunch"});
  optional(d.cuGraphExecDestroy, {"cuGraphExecDestroy"});
  optional(d.cuGraphDestroy, {"cuGraphDestroy"});
  optional(d.cuGraphGetNodes, {"cuGraphGetNodes"});
  optional(d.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"});

  if (!missing.empty()) {
    state.error = "no CUDA driver found: libcuda.so.1 lacks " + missing +
                  " (driver too old?)";
    return state;
  }
  state.loaded = true;
  return state;
}

LoadState &loadOnce() {
  static std::once_flag once;
  // Leaked on purpose: kernels and buffers released by other static
  // destructors at exit still need the table.
  static LoadState *state = nullptr;
  std::call_once(once, [] { state = new LoadState(load()); });
  return *state;
}

} // namespace

const CudaDriver *CudaDriver::get() {
  LoadState &state = loadOnce();
  return state.loaded ? &state.table : nullptr;
}

const std::string &CudaDriver::loadError() { return loadOnce().error; }

const CudaDriver &CudaDriver::initialized() {
  const CudaDriver *driver = get();
  if (!driver)
    throw CudaError(loadError());
  // cuInit's failures (no device, driver/library mismatch) are permanent for
  // the process, so its result is kept rather than retried.
  static std::once_flag once;
  static CUresult result = CUDA_SUCCESS;
  std::call_once(once, [driver] { result = driver->cuInit(0); });
  check(result, "cuInit");
  return *driver;
}

void CudaDriver::missing(const char *name) {
  throw CudaError(std::string("the CUDA driver lacks ") + name +
                  " (driver too old?)");
}

std::string errorText(CUresult result) {
  const CudaDriver *driver = CudaDriver::get();
  const char *name = nullptr;
  const char *text = nullptr;
  if (driver && driver->cuGetErrorName &&
      driver->cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (driver && driver->cuGetErrorString &&
      driver->cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  if (result == CUDA_ERROR_ASSERT)
    out += ": a device-side assertion failed (in a tilec kernel compiled with debug=True: "
           "a tl.device_assert, an assert or a bounds check, whose failing program, "
           "element and values the kernel printed to stdout; or another library's); this "
           "process's CUDA context can no longer be used";
  return out;
}

void fail(CUresult result, const std::string &what) {
  throw CudaError(what + " failed: " + errorText(result), result);
}

} // namespace tilec::runtime
