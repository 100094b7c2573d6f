// The tilec runtime: the CUDA device, JIT-loaded kernels, kernel launches and
// device memory.
//
// The CUDA driver (libcuda.so.1) is opened with dlopen at first use, so tilec
// builds and runs where no driver exists; there every entry point below that
// needs the GPU throws CudaError("no CUDA driver found: ..."), and
// driverAvailable() says so without throwing.
//
// Contexts: each Device uses the device's primary context (the one the CUDA
// runtime, PyTorch and CuPy use too), retained once and never released.
// Entry points make it current on the calling thread as needed; the ones that
// take no device act on Device::current().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// The driver's opaque handle types, declared exactly as cuda.h declares them,
// so that code which also includes cuda.h can pass our handles to it.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;

namespace tilec::runtime {

using CUfunction = ::CUfunc_st *;

/// Every failure of the runtime that comes from the driver, or from its
/// absence ("no CUDA driver found: ..."). code() is the CUresult, 0 when the
/// failure is not a driver call's result.
class CudaError : public std::runtime_error {
public:
  explicit CudaError(const std::string &message, int code = 0)
      : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

private:
  int code_;
};

/// True when the driver loads, initialises and reports at least one device.
/// Otherwise false, with the reason in *why (e.g. "no CUDA driver found:
/// libcuda.so.1: cannot open shared object file: ..."). Never throws.
bool driverAvailable(std::string *why = nullptr);

/// One GPU and its primary context. Devices live until the process ends.
class Device {
public:
  /// The device numbered `ordinal`; the first call initialises the driver
  /// (cuInit) and retains the device's primary context. Throws CudaError.
  static Device &get(int ordinal = 0);
  /// The device whose primary context is current on this thread; when none
  /// of ours is, device 0, made current.
  static Device &current();
  /// The number of devices the driver reports. Throws CudaError.
  static int count();

  /// Makes this device's primary context current on the calling thread
  /// (a no-op when it already is).
  void makeCurrent() const;

  const std::string &name() const { return name_; }
  /// major * 10 + minor, e.g. 90 for an H100 or H200.
  int computeCapability() const { return computeCapability_; }
  int multiprocessorCount() const { return multiprocessorCount_; }
  /// The most shared memory one block may use once a kernel opts in
  /// (Module::setDynamicSharedBytes), static and dynamic together.
  int maxSharedMemoryPerBlockOptin() const { return maxSharedOptin_; }
  int l2CacheBytes() const { return l2CacheBytes_; }
  int ordinal() const { return ordinal_; }
  /// One cuDeviceGetAttribute value (a CUdevice_attribute). Throws CudaError.
  int attribute(int which) const;
  /// The primary context (a CUcontext), for code that calls the driver itself.
  ::CUctx_st *context() const { return context_; }

  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

private:
  explicit Device(int ordinal);

  int ordinal_;
  int handle_ = 0; // CUdevice
  ::CUctx_st *context_ = nullptr;
  std::string name_;
  int computeCapability_ = 0;
  int multiprocessorCount_ = 0;
  int maxSharedOptin_ = 0;
  int l2CacheBytes_ = 0;
};

/// One kernel, compiled to machine code and loaded on Device::current() at
/// creation. Owns its CUmodule. The metadata is read once, at load time.
class Module {
public:
  /// JIT-compiles PTX text (CU_JIT_OPTIMIZATION_LEVEL = optLevel, 0..4) and
  /// looks up the kernel `kernelName`. On failure the CudaError names the
  /// kernel and holds the JIT's error log.
  static std::unique_ptr<Module> loadPTX(const std::string &ptx,
                                         const std::string &kernelName,
                                         int optLevel = 4);
  /// Compiles PTX to a cubin for Device::current() with the driver's linker,
  /// so that the machine code can be cached or inspected. The JIT's info log
  /// (registers, spills) goes to *infoLog when given.
  static std::vector<char> linkPTXToCubin(const std::string &ptx,
                                          std::string *infoLog = nullptr);
  /// Loads a cubin (e.g. from linkPTXToCubin) and looks up `kernelName`.
  static std::unique_ptr<Module> loadCubin(const void *image, size_t size,
                                           const std::string &kernelName);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  CUfunction function() const { return function_; }
  const std::string &kernelName() const { return kernelName_; }
  const Device &device() const { return *device_; }
  /// The JIT's info log of the load (empty for a cubin).
  const std::string &jitInfoLog() const { return jitInfoLog_; }

  int numRegisters() const { return numRegisters_; }
  /// Local memory per thread: register spills and local arrays.
  int localBytesPerThread() const { return localBytesPerThread_; }
  int staticSharedBytes() const { return staticSharedBytes_; }
  int maxThreadsPerBlock() const { return maxThreadsPerBlock_; }
  /// The dynamic shared memory a launch may use now: 48 KiB unless raised
  /// by setDynamicSharedBytes.
  int maxDynamicSharedBytes() const { return dynamicSharedLimit_; }

  /// Allows launches with `bytes` of dynamic shared memory: above 48 KiB a
  /// kernel must opt in (cuFuncSetAttribute), once per size increase.
  void setDynamicSharedBytes(int bytes);

  /// How many clusters of `clusterSize` blocks along x, each of
  /// `blockThreads` threads and `sharedBytes` of dynamic shared memory, the
  /// device runs at once (cuOccupancyMaxActiveClusters): what a persistent
  /// grid in clusters should not exceed. Needs sm_90 and a driver of CUDA
  /// 11.8 or newer; throws a CudaError otherwise. Call setDynamicSharedBytes
  /// first where sharedBytes is above 48 KiB.
  int maxActiveClusters(unsigned blockThreads, unsigned sharedBytes,
                        unsigned clusterSize) const;

private:
  Module(const Device &device, ::CUmod_st *module, std::string kernelName);
  // Loads a PTX or cubin image (cuModuleLoadDataEx) and finds the kernel.
  static std::unique_ptr<Module> load(const void *image,
                                      const std::string &kernelName,
                                      int optLevel, const char *imageKind);

  const Device *device_;
  ::CUmod_st *module_;
  CUfunction function_ = nullptr;
  std::string kernelName_;
  std::string jitInfoLog_;
  int numRegisters_ = 0;
  int localBytesPerThread_ = 0;
  int staticSharedBytes_ = 0;
  int maxThreadsPerBlock_ = 0;
  int dynamicSharedLimit_ = 48 * 1024; // what launches may use without opt-in
};

struct LaunchDims {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {128, 1, 1};
  unsigned sharedBytes = 0; // dynamic shared memory
  void *stream = nullptr;   // a CUstream; null is the legacy default stream
  /// Programmatic dependent launch (sm_90+): the kernel may start before
  /// the one ahead of it on the stream ends, and waits for it where it
  /// runs griddepcontrol.wait (tl.extra.cuda.gdc_wait). Ignored on older
  /// GPUs, whose launches never overlap.
  bool programmaticDependence = false;
};

/// Enqueues one launch of m's kernel. kernelParams holds one pointer to each
/// argument's value, as cuLaunchKernel takes them. Asynchronous: errors of
/// the kernel itself show at the next synchronisation. This is the hot path:
/// beyond checking the dimensions it only calls cuLaunchKernel (or
/// cuLaunchKernelEx, for a programmatic dependence).
void launch(const Module &m, const LaunchDims &dims, void **kernelParams);

/// Synchronous copies between host memory and a raw device address on
/// Device::current() (memory tilec does not own: a Python tensor's).
void copyDeviceToHost(void *dst, const void *deviceAddress, size_t bytes);
void copyHostToDevice(void *deviceAddress, const void *src, size_t bytes);

/// Device memory, owned: freed by the destructor. Move-only.
class DeviceBuffer {
public:
  /// Allocates on Device::current(). Zero bytes give an empty buffer with a
  /// null data().
  static DeviceBuffer allocate(size_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// The device address, as a pointer value (pass &p in kernelParams).
  void *data() const { return reinterpret_cast<void *>(address_); }
  size_t size() const { return size_; }
  /// The ordinal of the GPU it was allocated on; -1 for an empty buffer.
  int deviceOrdinal() const;

  /// Synchronous copies of the first `bytes` bytes; bytes <= size(). Both
  /// run on the legacy default stream: copyFromHost (and fill) have
  /// finished on the device when they return, so a launch on any stream
  /// sees the data; copyToHost waits for the legacy stream and blocking
  /// streams, not for non-blocking ones (synchronise those first).
  void copyFromHost(const void *src, size_t bytes);
  void copyToHost(void *dst, size_t bytes) const;
  /// Sets every byte to `byte` (e.g. to poison an output before a test).
  void fill(uint8_t byte);

private:
  void release() noexcept;

  const Device *device_ = nullptr;
  uint64_t address_ = 0; // CUdeviceptr
  size_t size_ = 0;
};

/// Waits until all work of the context current on this thread (that of
/// Device::current() when none is) has finished; reports the first
/// asynchronous error of that work.
void synchronize();

/// Waits until the work queued on `stream` (a CUstream; null: the default
/// stream) has finished; reports the first asynchronous error of that work.
void synchronizeStream(void *stream);

/// Times work on a stream with two CUDA events, for benchmarks:
///   EventTimer t; t.start(); launch(...); t.stop(); t.elapsedMilliseconds();
class EventTimer {
public:
  explicit EventTimer(void *stream = nullptr);
  ~EventTimer();
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;

  void start();
  void stop();
  /// Waits for the stop event; the GPU time between the two records.
  float elapsedMilliseconds();

private:
  const Device *device_;
  void *stream_;
  ::CUevent_st *start_ = nullptr;
  ::CUevent_st *stop_ = nullptr;
};

/// True when `stream` (null: the legacy default stream) is being captured
/// into a CUDA graph; false when the driver cannot tell.
bool streamIsCapturing(void *stream);

/// Enqueues, on `stream`, a read of a scratch buffer of twice the L2 size
/// (allocated once), so that the next launch finds no data of earlier ones
/// in L2, and no dirty lines either: after a write (a memset) the L2 is
/// full of lines the timed kernel would pay to write back as it evicts
/// them (docs/autotune.md). Writes instead where the reading kernel cannot
/// be loaded (said once on stderr).
void flushL2(void *stream);
/// The PTX of flushL2's reading kernel (tilec_read_l2: src, vectors), for
/// the tests.
const char *readL2KernelPTX();

/// True when ptr is an address of device (or managed) memory known to the
/// driver. False, without throwing, when no driver is available.
bool isDevicePointer(uint64_t ptr);

/// The bytes from `ptr` to the end of the allocation it lies in (as the
/// driver knows allocations: cuMemAlloc's, a caching allocator's blocks);
/// 0 when the driver does not know the address.
uint64_t allocationBytesFrom(uint64_t ptr);

/// Where an address lives, as the driver knows it: what launches check
/// each pointer argument against.
struct PointerInfo {
  enum class Kind : uint8_t {
    Unknown, ///< not memory the driver knows: pageable host memory, garbage
    Host,    ///< page-locked host memory (cudaHostAlloc, registered)
    Device,  ///< device memory of GPU `ordinal`
    Managed, ///< managed (unified) memory, reachable from every GPU
  } kind = Kind::Unknown;
  int ordinal = -1; ///< the GPU it was allocated on or registered with
};
/// One driver call (two on drivers without cuPointerGetAttributes); Kind::
/// Unknown without a driver. Never throws.
PointerInfo pointerInfo(uint64_t ptr);

} // namespace tilec::runtime
