// The CUDA driver API as the runtime uses it: a table of entry points found
// with dlsym in libcuda.so.1, opened at first use. Private to runtime/.
//
// Nothing here includes cuda.h: the types are the driver's C ABI (enums are
// ints, handles opaque pointers), and the numeric values below are copied
// from CUDA 13's cuda.h, where the driver keeps them stable across versions.
#pragma once

#include "runtime/Device.h"

#include <cstddef>
#include <cstdint>
#include <string>

struct CUstream_st;
struct CUlinkState_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;

namespace tilec::runtime {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = ::CUctx_st *;
using CUmodule = ::CUmod_st *;
using CUstream = ::CUstream_st *;
using CUevent = ::CUevent_st *;
using CUlinkState = ::CUlinkState_st *;
using CUjit_option = int;
using CUgraph = ::CUgraph_st *;
using CUgraphExec = ::CUgraphExec_st *;
using CUgraphNode = ::CUgraphNode_st *;

/// cuda.h's CUlaunchAttribute: an attribute's id, then its value in a
/// 64-byte union aligned to 8.
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int value;
    void *align;
  } value;
};
/// cuda.h's CUlaunchConfig.
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(CUlaunchAttribute) == 72 && offsetof(CUlaunchAttribute, value) == 8,
              "cuda.h's CUlaunchAttribute: 72 bytes, the value at 8");
static_assert(sizeof(CUlaunchConfig) == 56 && offsetof(CUlaunchConfig, hStream) == 32 &&
                  offsetof(CUlaunchConfig, attrs) == 40 &&
                  offsetof(CUlaunchConfig, numAttrs) == 48,
              "cuda.h's CUlaunchConfig: 56 bytes, hStream at 32, attrs at 40");
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the launch may
/// start before the kernel ahead of it on its stream ends (sm_90+).
constexpr int CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
/// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: the launch's cluster shape, three
/// unsigned ints at the value's start (sm_90+).
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_ASSERT = 710, ///< a kernel called __assertfail (tl.device_assert)
};

// CUjit_option
enum : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
};

// CUjitInputType
enum : int { CU_JIT_INPUT_PTX = 1 };

// CUdevice_attribute
enum : int {
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

// CUfunction_attribute
enum : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// CUpointer_attribute and CUmemorytype
enum : int {
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_UNIFIED = 4,
};

// CUevent_flags
enum : unsigned { CU_EVENT_DEFAULT = 0 };

// CUstream_flags and CUstreamCaptureMode
enum : unsigned { CU_STREAM_NON_BLOCKING = 1 };
enum : int { CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 };

// CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion and
// CUtensorMapFloatOOBfill (the data types, CUtensorMapDataType, come from
// the compiler: TensorMapSpec::dataType).
enum : int {
  CU_TENSOR_MAP_INTERLEAVE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_NONE = 0,
  CU_TENSOR_MAP_SWIZZLE_32B = 1,
  CU_TENSOR_MAP_SWIZZLE_64B = 2,
  CU_TENSOR_MAP_SWIZZLE_128B = 3,
  CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0,
  CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1,
};

/// The driver's entry points. The ones marked optional may be null (an older
/// driver); callers go through need() for those. The names are the API's
/// (the _v2 symbols that cuda.h maps them to are what gets looked up).
struct CudaDriver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);   // optional
  CUresult (*cuGetErrorString)(CUresult error, const char **text); // optional

  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext *context);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();

  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, CUjit_option *options,
                                 void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute,
                                 int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **kernelParams, void **extra);
  // optional (drivers of CUDA 11.8+): launches with attributes (programmatic
  // dependence).
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction function,
                               void **kernelParams, void **extra);
  // optional (drivers of CUDA 11.8+): how many clusters of a launch's shape
  // the device runs at once.
  CUresult (*cuOccupancyMaxActiveClusters)(int *numClusters, CUfunction function,
                                           const CUlaunchConfig *config);

  // optional: the JIT linker, used to keep cubins.
  CUresult (*cuLinkCreate)(unsigned numOptions, CUjit_option *options,
                           void **optionValues, CUlinkState *state);
  CUresult (*cuLinkAddData)(CUlinkState state, int inputType, void *data,
                            size_t size, const char *name,
                            unsigned numOptions, CUjit_option *options,
                            void **optionValues);
  CUresult (*cuLinkComplete)(CUlinkState state, void **cubin, size_t *size);
  CUresult (*cuLinkDestroy)(CUlinkState state);

  CUresult (*cuMemAlloc)(CUdeviceptr *address, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr address);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
  CUresult (*cuPointerGetAttribute)(void *value, int attribute,
                                    CUdeviceptr address);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  // optional: several pointer attributes in one call (launch checks).
  CUresult (*cuPointerGetAttributes)(unsigned numAttributes, int *attributes,
                                     void **data, CUdeviceptr address);

  // optional: asynchronous fills (the autotuner's L2 flush) and graph
  // capture status (no autotuning while a stream is captured).
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count,
                              CUstream stream);
  CUresult (*cuStreamIsCapturing)(CUstream stream, int *status);

  // optional: timing.
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
  CUresult (*cuEventDestroy)(CUevent event);

  // optional: streams and CUDA graphs (tilec::Stream, tilec::Graph).
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuGraphGetNodes)(CUgraph graph, CUgraphNode *nodes, size_t *count);

  // optional (CUDA 12.0+): TMA tensor maps, which only kernels that take
  // them need (runtime/TensorMapEncoding.h). `tensorMap` is a CUtensorMap:
  // 128 bytes, 64-byte aligned. The arrays list the innermost dimension
  // first; globalStrides (bytes) has rank - 1 entries.
  CUresult (*cuTensorMapEncodeTiled)(void *tensorMap, int dataType, uint32_t rank,
                                     void *globalAddress, const uint64_t *globalDim,
                                     const uint64_t *globalStrides, const uint32_t *boxDim,
                                     const uint32_t *elementStrides, int interleave,
                                     int swizzle, int l2Promotion, int oobFill);

  /// The table, loaded once (thread-safe); null when libcuda.so.1 cannot be
  /// opened or lacks a required entry point.
  static const CudaDriver *get();
  /// Why get() is null: "no CUDA driver found: <dlerror text>".
  static const std::string &loadError();
  /// The table once cuInit(0) has succeeded (called once per process).
  /// Throws CudaError: no driver, or cuInit's error (e.g. no device).
  static const CudaDriver &initialized();

  /// An optional entry point, or CudaError naming it when the driver lacks it.
  template <class Fn> static Fn need(Fn fn, const char *name) {
    if (!fn)
      missing(name);
    return fn;
  }

private:
  [[noreturn]] static void missing(const char *name);
};

/// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)"; falls back to the
/// number when the driver cannot name it.
std::string errorText(CUresult result);

/// Throws CudaError("<what> failed: <errorText>").
[[noreturn]] void fail(CUresult result, const std::string &what);

/// Throws as fail() unless result is CUDA_SUCCESS. Inline: most calls succeed.
inline void check(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS)
    fail(result, what);
}

} // namespace tilec::runtime
