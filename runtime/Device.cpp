// The runtime's devices, modules, launches, buffers and timers, on top of the
// dlopen'd driver table (CudaDriver.h).
#include "runtime/Device.h"
#include "runtime/CudaDriver.h"

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace tilec::runtime {
namespace {

// Room for the JIT's info and error logs; ptxas rarely writes more than a few
// lines per kernel, and the driver truncates beyond the size given.
constexpr size_t kJitLogBytes = 64 * 1024;

// Devices live until the process ends (leaked on purpose: modules and buffers
// destroyed by static destructors still refer to them).
struct DeviceRegistry {
  std::mutex mutex;
  std::map<int, Device *> devices;
};

DeviceRegistry &registry() {
  static DeviceRegistry *instance = new DeviceRegistry;
  return *instance;
}

// Only called once a Device or Module exists, which implies a loaded driver.
const CudaDriver &driver() { return *CudaDriver::get(); }

CUresult bindContext(CUcontext context) noexcept {
  const CudaDriver &d = driver();
  CUcontext current = nullptr;
  CUresult result = d.cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS || current == context)
    return result;
  return d.cuCtxSetCurrent(context);
}

// Runs a driver call that needs a current context. A thread that never used
// the runtime has none, and the call fails with CUDA_ERROR_INVALID_CONTEXT
// having done nothing; it is retried once with `context` bound. This keeps
// hot calls (launches, event records) free of a context query.
template <class Call>
CUresult withContext(CUcontext context, Call call) noexcept {
  CUresult result = call();
  if (result == CUDA_ERROR_INVALID_CONTEXT &&
      bindContext(context) == CUDA_SUCCESS)
    result = call();
  return result;
}

std::string trimmed(const char *text) {
  std::string out(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out;
}

// A JIT log buffer and the option pairs that make the driver fill it.
struct JitLogs {
  std::vector<char> info = std::vector<char>(kJitLogBytes, '\0');
  std::vector<char> error = std::vector<char>(kJitLogBytes, '\0');
  std::vector<CUjit_option> options;
  std::vector<void *> values;

  explicit JitLogs(int optLevel) {
    // One byte less than the buffers, so the text stays NUL-terminated.
    void *logSize = reinterpret_cast<void *>(uintptr_t(kJitLogBytes - 1));
    add(CU_JIT_INFO_LOG_BUFFER, info.data());
    add(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, logSize);
    add(CU_JIT_ERROR_LOG_BUFFER, error.data());
    add(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, logSize);
    // Verbose: the info log then reports registers and spills per kernel.
    add(CU_JIT_LOG_VERBOSE, reinterpret_cast<void *>(uintptr_t(1)));
    // The PTX's .loc lines (tilec-attach-line-info) into the machine code's
    // line table, for Nsight Compute's source view; the code is the same.
    add(CU_JIT_GENERATE_LINE_INFO, reinterpret_cast<void *>(uintptr_t(1)));
    if (optLevel >= 0)
      add(CU_JIT_OPTIMIZATION_LEVEL,
          reinterpret_cast<void *>(uintptr_t(optLevel)));
  }
  void add(CUjit_option option, void *value) {
    options.push_back(option);
    values.push_back(value);
  }
  unsigned count() const { return unsigned(options.size()); }

  // The error log as the tail of an exception message.
  std::string errorSuffix() const {
    std::string log = trimmed(error.data());
    return log.empty() ? std::string() : "\nJIT error log:\n" + log;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

bool driverAvailable(std::string *why) {
  try {
    if (Device::count() > 0)
      return true;
    if (why)
      *why = "the CUDA driver reports no device";
  } catch (const std::exception &e) {
    if (why)
      *why = e.what();
  }
  return false;
}

int Device::count() {
  const CudaDriver &d = CudaDriver::initialized();
  int count = 0;
  check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

Device &Device::get(int ordinal) {
  int available = count(); // also initialises the driver, or throws
  if (ordinal < 0 || ordinal >= available)
    throw CudaError("CUDA device " + std::to_string(ordinal) +
                    " does not exist (the driver reports " +
                    std::to_string(available) + ")");
  DeviceRegistry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  Device *&slot = r.devices[ordinal];
  if (!slot)
    slot = new Device(ordinal); // stays null if this throws: a later get retries
  return *slot;
}

Device &Device::current() {
  const CudaDriver &d = CudaDriver::initialized();
  CUcontext context = nullptr;
  check(d.cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  if (context) {
    DeviceRegistry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto &entry : r.devices)
      if (entry.second && entry.second->context_ == context)
        return *entry.second;
  }
  Device &first = get(0);
  first.makeCurrent();
  return first;
}

Device::Device(int ordinal) : ordinal_(ordinal) {
  const CudaDriver &d = driver();
  check(d.cuDeviceGet(&handle_, ordinal), "cuDeviceGet");

  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof name - 1, handle_), "cuDeviceGetName");
  name_ = name;

  computeCapability_ = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                       attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  multiprocessorCount_ = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  maxSharedOptin_ =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  l2CacheBytes_ = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);

  // Retained for the life of the process: releasing it could destroy memory
  // and modules that other libraries sharing the primary context still use.
  check(d.cuDevicePrimaryCtxRetain(&context_, handle_),
        "cuDevicePrimaryCtxRetain");
}

int Device::attribute(int which) const {
  int value = 0;
  check(driver().cuDeviceGetAttribute(&value, which, handle_), "cuDeviceGetAttribute");
  return value;
}

void Device::makeCurrent() const {
  CUresult result = bindContext(context_);
  if (result != CUDA_SUCCESS)
    fail(result, "making the context of CUDA device " +
                     std::to_string(ordinal_) + " current");
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Module::Module(const Device &device, CUmodule module, std::string kernelName)
    : device_(&device), module_(module), kernelName_(std::move(kernelName)) {}

Module::~Module() {
  // The result is dropped: a destructor cannot report it, and at exit the
  // driver may already have shut down (CUDA_ERROR_DEINITIALIZED).
  CUmodule module = module_;
  withContext(device_->context(),
              [&] { return driver().cuModuleUnload(module); });
}

std::unique_ptr<Module> Module::load(const void *image,
                                     const std::string &kernelName,
                                     int optLevel, const char *imageKind) {
  Device &device = Device::current();
  const CudaDriver &d = driver();

  JitLogs logs(optLevel);
  CUmodule raw = nullptr;
  CUresult result = d.cuModuleLoadDataEx(&raw, image, logs.count(),
                                         logs.options.data(),
                                         logs.values.data());
  if (result != CUDA_SUCCESS)
    throw CudaError("loading kernel '" + kernelName + "' from " + imageKind +
                        ": cuModuleLoadDataEx failed: " + errorText(result) +
                        logs.errorSuffix(),
                    result);

  // Owned from here on: an error below unloads it.
  std::unique_ptr<Module> module(new Module(device, raw, kernelName));
  module->jitInfoLog_ = trimmed(logs.info.data());

  result = d.cuModuleGetFunction(&module->function_, raw, kernelName.c_str());
  if (result != CUDA_SUCCESS)
    throw CudaError("kernel '" + kernelName + "' is not in the " + imageKind +
                        ": cuModuleGetFunction failed: " + errorText(result),
                    result);

  auto attribute = [&](int which) {
    int value = 0;
    check(d.cuFuncGetAttribute(&value, which, module->function_),
          "cuFuncGetAttribute");
    return value;
  };
  module->numRegisters_ = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
  module->localBytesPerThread_ = attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  module->staticSharedBytes_ = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  module->maxThreadsPerBlock_ =
      attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  return module;
}

std::unique_ptr<Module> Module::loadPTX(const std::string &ptx,
                                        const std::string &kernelName,
                                        int optLevel) {
  if (optLevel < 0 || optLevel > 4)
    throw std::invalid_argument("PTX optimisation level " +
                                std::to_string(optLevel) +
                                " is outside 0..4 (kernel '" + kernelName +
                                "')");
  // The driver reads PTX as a NUL-terminated string; c_str() provides it.
  return load(ptx.c_str(), kernelName, optLevel, "PTX");
}

std::unique_ptr<Module> Module::loadCubin(const void *image, size_t size,
                                          const std::string &kernelName) {
  if (!image || size == 0)
    throw std::invalid_argument("empty cubin for kernel '" + kernelName + "'");
  // The size is not passed on: an ELF image describes its own extent.
  return load(image, kernelName, /*optLevel=*/-1, "cubin");
}

std::vector<char> Module::linkPTXToCubin(const std::string &ptx,
                                         std::string *infoLog) {
  Device::current(); // the linker compiles for the current context's device
  const CudaDriver &d = driver();
  auto linkCreate = CudaDriver::need(d.cuLinkCreate, "cuLinkCreate_v2");
  auto linkAddData = CudaDriver::need(d.cuLinkAddData, "cuLinkAddData_v2");
  auto linkComplete = CudaDriver::need(d.cuLinkComplete, "cuLinkComplete");
  auto linkDestroy = CudaDriver::need(d.cuLinkDestroy, "cuLinkDestroy");

  // The log buffers must outlive the link state, which writes into them.
  JitLogs logs(/*optLevel=*/4);
  CUlinkState state = nullptr;
  check(linkCreate(logs.count(), logs.options.data(), logs.values.data(),
                   &state),
        "cuLinkCreate");
  struct Destroy {
    decltype(linkDestroy) destroy;
    CUlinkState state;
    ~Destroy() { destroy(state); }
  } destroyAtExit{linkDestroy, state};

  auto linkFailed = [&](CUresult result, const char *what) {
    return CudaError(std::string("compiling PTX to a cubin: ") + what +
                         " failed: " + errorText(result) + logs.errorSuffix(),
                     result);
  };
  // cuLinkAddData takes a non-const pointer but does not write through it.
  CUresult result =
      linkAddData(state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()),
                  ptx.size() + 1, "tilec.ptx", 0, nullptr, nullptr);
  if (result != CUDA_SUCCESS)
    throw linkFailed(result, "cuLinkAddData");

  void *cubin = nullptr;
  size_t size = 0;
  result = linkComplete(state, &cubin, &size);
  if (result != CUDA_SUCCESS)
    throw linkFailed(result, "cuLinkComplete");

  // The cubin belongs to the link state: copy it before cuLinkDestroy.
  const char *bytes = static_cast<const char *>(cubin);
  std::vector<char> out(bytes, bytes + size);
  if (infoLog)
    *infoLog = trimmed(logs.info.data());
  return out;
}

void Module::setDynamicSharedBytes(int bytes) {
  if (bytes <= dynamicSharedLimit_)
    return;
  device_->makeCurrent();
  CUresult result = driver().cuFuncSetAttribute(
      function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  if (result != CUDA_SUCCESS)
    fail(result, "allowing " + std::to_string(bytes) +
                     " bytes of dynamic shared memory for kernel '" +
                     kernelName_ + "' (it has " +
                     std::to_string(staticSharedBytes_) +
                     " bytes of static shared memory; the device allows " +
                     std::to_string(device_->maxSharedMemoryPerBlockOptin()) +
                     " bytes per block): cuFuncSetAttribute");
  dynamicSharedLimit_ = bytes;
}

int Module::maxActiveClusters(unsigned blockThreads, unsigned sharedBytes,
                              unsigned clusterSize) const {
  const CudaDriver &d = driver();
  if (!d.cuOccupancyMaxActiveClusters || device_->computeCapability() < 90)
    throw CudaError("kernel '" + kernelName_ +
                    "': how many clusters run at once needs sm_90 and a driver of CUDA "
                    "11.8 or newer (cuOccupancyMaxActiveClusters)");
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  const unsigned shape[3] = {clusterSize, 1, 1};
  std::memcpy(attribute.value.bytes, shape, sizeof shape);
  CUlaunchConfig config{clusterSize, 1, 1, blockThreads, 1, 1, sharedBytes, nullptr,
                        &attribute, 1};
  int clusters = 0;
  CUresult result = withContext(device_->context(), [&] {
    return d.cuOccupancyMaxActiveClusters(&clusters, function_, &config);
  });
  if (result != CUDA_SUCCESS)
    fail(result, "asking how many clusters of " + std::to_string(clusterSize) + " of kernel '" +
                     kernelName_ + "' run at once: cuOccupancyMaxActiveClusters");
  return clusters;
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

namespace {

std::string dimsText(const unsigned dims[3]) {
  return "(" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) +
         ", " + std::to_string(dims[2]) + ")";
}

[[noreturn]] void zeroDimension(const Module &m, const char *which,
                                const unsigned dims[3]) {
  int axis = dims[0] == 0 ? 0 : dims[1] == 0 ? 1 : 2;
  throw CudaError("launch of kernel '" + m.kernelName() + "' failed: " +
                  which + " dimension " + std::to_string(axis) + " is 0 in " +
                  which + " " + dimsText(dims) +
                  " (every grid and block dimension must be at least 1)");
}

// Kept out of launch(): reached only once the driver has refused it.
[[noreturn]] void launchFailed(const Module &m, const LaunchDims &dims,
                               CUresult result) {
  std::string hint;
  unsigned long long threads =
      1ull * dims.block[0] * dims.block[1] * dims.block[2];
  if (threads > unsigned(m.maxThreadsPerBlock()))
    hint += "; the block " + dimsText(dims.block) + " has " +
            std::to_string(threads) + " threads, the kernel allows " +
            std::to_string(m.maxThreadsPerBlock());
  if (dims.sharedBytes > unsigned(m.maxDynamicSharedBytes()))
    hint += "; " + std::to_string(dims.sharedBytes) +
            " bytes of dynamic shared memory asked for, " +
            std::to_string(m.maxDynamicSharedBytes()) +
            " allowed (see Module::setDynamicSharedBytes)";
  throw CudaError(std::string(dims.programmaticDependence ? "programmatic " : "") +
                      "launch of kernel '" + m.kernelName() + "' failed: " +
                      errorText(result) + " with grid " + dimsText(dims.grid) +
                      ", block " + dimsText(dims.block) + hint,
                  result);
}

} // namespace

void launch(const Module &m, const LaunchDims &dims, void **kernelParams) {
  // The driver would report a zero dimension only as CUDA_ERROR_INVALID_VALUE.
  if (dims.grid[0] == 0 || dims.grid[1] == 0 || dims.grid[2] == 0)
    zeroDimension(m, "grid", dims.grid);
  if (dims.block[0] == 0 || dims.block[1] == 0 || dims.block[2] == 0)
    zeroDimension(m, "block", dims.block);

  const CudaDriver &d = driver();
  CUfunction function = m.function();
  if (dims.programmaticDependence && d.cuLaunchKernelEx &&
      m.device().computeCapability() >= 90) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.value = 1;
    CUlaunchConfig config{dims.grid[0],  dims.grid[1],  dims.grid[2],
                          dims.block[0], dims.block[1], dims.block[2],
                          dims.sharedBytes, static_cast<CUstream>(dims.stream),
                          &attribute,    1};
    CUresult result = withContext(m.device().context(), [&] {
      return d.cuLaunchKernelEx(&config, function, kernelParams, nullptr);
    });
    if (result != CUDA_SUCCESS) // (launchFailed names the programmatic launch)
      launchFailed(m, dims, result);
    return;
  }
  CUresult result = withContext(m.device().context(), [&] {
    return d.cuLaunchKernel(function, dims.grid[0], dims.grid[1],
                            dims.grid[2], dims.block[0], dims.block[1],
                            dims.block[2], dims.sharedBytes,
                            static_cast<CUstream>(dims.stream), kernelParams,
                            nullptr);
  });
  if (result != CUDA_SUCCESS)
    launchFailed(m, dims, result);
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer DeviceBuffer::allocate(size_t bytes) {
  DeviceBuffer buffer;
  buffer.device_ = &Device::current();
  if (bytes == 0)
    return buffer; // cuMemAlloc refuses zero bytes
  CUdeviceptr address = 0;
  CUresult result = driver().cuMemAlloc(&address, bytes);
  if (result != CUDA_SUCCESS)
    fail(result, "cuMemAlloc of " + std::to_string(bytes) + " bytes");
  buffer.address_ = address;
  buffer.size_ = bytes;
  return buffer;
}

int DeviceBuffer::deviceOrdinal() const { return device_ ? device_->ordinal() : -1; }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : device_(other.device_), address_(other.address_), size_(other.size_) {
  other.address_ = 0;
  other.size_ = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    address_ = other.address_;
    size_ = other.size_;
    other.address_ = 0;
    other.size_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() noexcept {
  if (!address_)
    return;
  // As in ~Module, a failure cannot be reported from here.
  CUdeviceptr address = address_;
  withContext(device_->context(),
              [&] { return driver().cuMemFree(address); });
  address_ = 0;
  size_ = 0;
}

namespace {
void checkCopySize(size_t bytes, size_t size, const char *direction) {
  if (bytes > size)
    throw std::out_of_range("copy of " + std::to_string(bytes) + " bytes " +
                            direction + " a device buffer of " +
                            std::to_string(size) + " bytes");
}
} // namespace

namespace {
/// Waits for the legacy default stream, where the driver's synchronous
/// copies and fills run: a copy from pageable memory (or a fill) may
/// return before its data reaches the device, and a launch on a
/// non-blocking stream (tilec::Stream, PyTorch's) does not wait for it.
void landed() { check(driver().cuStreamSynchronize(nullptr), "cuStreamSynchronize"); }
} // namespace

void DeviceBuffer::copyFromHost(const void *src, size_t bytes) {
  checkCopySize(bytes, size_, "into");
  if (bytes == 0)
    return;
  device_->makeCurrent();
  check(driver().cuMemcpyHtoD(address_, src, bytes), "cuMemcpyHtoD");
  landed();
}

void DeviceBuffer::copyToHost(void *dst, size_t bytes) const {
  checkCopySize(bytes, size_, "out of");
  if (bytes == 0)
    return;
  device_->makeCurrent();
  check(driver().cuMemcpyDtoH(dst, address_, bytes), "cuMemcpyDtoH");
}

void copyDeviceToHost(void *dst, const void *deviceAddress, size_t bytes) {
  if (bytes == 0)
    return;
  Device::current().makeCurrent();
  check(driver().cuMemcpyDtoH(dst, reinterpret_cast<uintptr_t>(deviceAddress), bytes),
        "cuMemcpyDtoH");
}

void copyHostToDevice(void *deviceAddress, const void *src, size_t bytes) {
  if (bytes == 0)
    return;
  Device::current().makeCurrent();
  check(driver().cuMemcpyHtoD(reinterpret_cast<uintptr_t>(deviceAddress), src, bytes),
        "cuMemcpyHtoD");
  landed();
}

void DeviceBuffer::fill(uint8_t byte) {
  if (size_ == 0)
    return;
  device_->makeCurrent();
  // On the legacy default stream; done before returning, so that launches
  // on any stream see it.
  check(driver().cuMemsetD8(address_, byte, size_), "cuMemsetD8");
  landed();
}

//===----------------------------------------------------------------------===//
// Synchronisation, timing, pointer queries
//===----------------------------------------------------------------------===//

void synchronize() {
  const CudaDriver &d = CudaDriver::initialized();
  CUcontext context = nullptr;
  check(d.cuCtxGetCurrent(&context), "cuCtxGetCurrent");
  if (!context)
    Device::current(); // binds device 0
  check(d.cuCtxSynchronize(), "cuCtxSynchronize");
}

void synchronizeStream(void *stream) {
  const CudaDriver &d = CudaDriver::initialized();
  check(d.cuStreamSynchronize(static_cast<CUstream>(stream)), "cuStreamSynchronize");
}

EventTimer::EventTimer(void *stream)
    : device_(&Device::current()), stream_(stream) {
  const CudaDriver &d = driver();
  auto create = CudaDriver::need(d.cuEventCreate, "cuEventCreate");
  CudaDriver::need(d.cuEventRecord, "cuEventRecord");
  CudaDriver::need(d.cuEventSynchronize, "cuEventSynchronize");
  CudaDriver::need(d.cuEventElapsedTime, "cuEventElapsedTime");
  auto destroy = CudaDriver::need(d.cuEventDestroy, "cuEventDestroy");
  check(create(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
  CUresult result = create(&stop_, CU_EVENT_DEFAULT);
  if (result != CUDA_SUCCESS) {
    destroy(start_); // the destructor does not run for a failed constructor
    fail(result, "cuEventCreate");
  }
}

EventTimer::~EventTimer() {
  const CudaDriver &d = driver();
  d.cuEventDestroy(start_);
  d.cuEventDestroy(stop_);
}

namespace {
void recordEvent(const Device &device, CUevent event, void *stream) {
  auto onStream = static_cast<CUstream>(stream);
  check(withContext(device.context(),
                    [&] { return driver().cuEventRecord(event, onStream); }),
        "cuEventRecord");
}
} // namespace

void EventTimer::start() { recordEvent(*device_, start_, stream_); }

void EventTimer::stop() { recordEvent(*device_, stop_, stream_); }

float EventTimer::elapsedMilliseconds() {
  const CudaDriver &d = driver();
  check(d.cuEventSynchronize(stop_), "cuEventSynchronize");
  float milliseconds = 0;
  check(d.cuEventElapsedTime(&milliseconds, start_, stop_),
        "cuEventElapsedTime");
  return milliseconds;
}

bool streamIsCapturing(void *stream) {
  const CudaDriver &d = CudaDriver::initialized();
  if (!d.cuStreamIsCapturing)
    return false;
  Device::current().makeCurrent();
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  if (d.cuStreamIsCapturing(static_cast<CUstream>(stream), &status) != 0)
    return false;
  return status != 0;
}

namespace {
/// Reads `vectors` 16-byte vectors from `src` (grid-stride), so that the L2
/// ends up holding clean lines of the scratch buffer. The XOR of what it
/// read goes to `src` only when it equals a constant it practically never
/// does, which keeps ptxas from dropping the loads.
const char *kReadL2PTX = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry tilec_read_l2(.param .u64 src, .param .u64 vectors)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [vectors];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
  mov.u32 %r5, 0;
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
LOOP:
  shl.b64 %rd6, %rd3, 4;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd7];
  xor.b32 %r5, %r5, %r6;
  xor.b32 %r5, %r5, %r7;
  xor.b32 %r5, %r5, %r8;
  xor.b32 %r5, %r5, %r9;
  add.u64 %rd3, %rd3, %rd5;
  setp.lt.u64 %p1, %rd3, %rd2;
  @%p1 bra LOOP;
DONE:
  setp.eq.u32 %p2, %r5, 1553180959;
  @%p2 st.global.u32 [%rd1], %r5;
  ret;
}
)";
} // namespace

const char *readL2KernelPTX() { return kReadL2PTX; }

void flushL2(void *stream) {
  static std::mutex mutex;
  // The scratch is leaked (it lives as long as the context); the reading
  // kernel is unloaded at exit, which Module's destructor allows after the
  // driver has shut down.
  static DeviceBuffer *scratch = nullptr;
  static std::unique_ptr<Module> reader;
  static bool readerFailed = false;
  std::lock_guard<std::mutex> lock(mutex);
  Device &device = Device::current();
  if (!scratch)
    scratch = new DeviceBuffer(DeviceBuffer::allocate(
        size_t(std::max(device.l2CacheBytes(), 1 << 20)) * 2));
  const CudaDriver &d = CudaDriver::initialized();
  device.makeCurrent();
  if (!reader && !readerFailed) {
    try {
      reader = Module::loadPTX(kReadL2PTX, "tilec_read_l2");
    } catch (const CudaError &e) {
      readerFailed = true;
      std::fprintf(stderr, "tilec: the L2 flush writes instead of reading: %s\n", e.what());
    }
  }
  if (reader) {
    uint64_t src = reinterpret_cast<uintptr_t>(scratch->data());
    uint64_t vectors = scratch->size() / 16;
    void *params[] = {&src, &vectors};
    LaunchDims dims;
    dims.grid[0] = unsigned(std::max(1, device.multiprocessorCount()) * 4);
    dims.block[0] = 256;
    dims.stream = stream;
    launch(*reader, dims, params);
    return;
  }
  auto address = reinterpret_cast<uintptr_t>(scratch->data());
  if (d.cuMemsetD8Async)
    check(d.cuMemsetD8Async(address, 0, scratch->size(), static_cast<CUstream>(stream)),
          "cuMemsetD8Async");
  else
    check(d.cuMemsetD8(address, 0, scratch->size()), "cuMemsetD8");
}

bool isDevicePointer(uint64_t ptr) {
  if (ptr == 0 || !CudaDriver::get())
    return false;
  try {
    const CudaDriver &d = CudaDriver::initialized();
    unsigned memoryType = 0;
    if (d.cuPointerGetAttribute(&memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                ptr) != CUDA_SUCCESS)
      return false; // host memory the driver does not know, or garbage
    return memoryType == CU_MEMORYTYPE_DEVICE ||
           memoryType == CU_MEMORYTYPE_UNIFIED;
  } catch (const CudaError &) {
    return false; // cuInit failed: no device, so no device pointer
  }
}

uint64_t allocationBytesFrom(uint64_t ptr) {
  if (ptr == 0 || !CudaDriver::get())
    return 0;
  try {
    const CudaDriver &d = CudaDriver::initialized();
    CUdeviceptr start = 0;
    size_t size = 0;
    if (d.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr) !=
            CUDA_SUCCESS ||
        d.cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr) !=
            CUDA_SUCCESS)
      return 0;
    return ptr >= start && ptr - start < size ? start + size - ptr : 0;
  } catch (const CudaError &) {
    return 0;
  }
}

PointerInfo pointerInfo(uint64_t ptr) {
  PointerInfo info;
  if (ptr == 0 || !CudaDriver::get())
    return info;
  try {
    const CudaDriver &d = CudaDriver::initialized();
    unsigned memoryType = 0, managed = 0;
    int ordinal = -1;
    if (d.cuPointerGetAttributes) {
      // Unlike the single-attribute call, this one answers "unknown" (zero
      // values) for memory the driver has never seen instead of failing.
      int attributes[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                           CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
      void *data[3] = {&memoryType, &managed, &ordinal};
      if (d.cuPointerGetAttributes(3, attributes, data, ptr) != CUDA_SUCCESS)
        return info;
    } else {
      if (d.cuPointerGetAttribute(&memoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) !=
          CUDA_SUCCESS)
        return info;
      d.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr);
      d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
    }
    info.ordinal = ordinal;
    if (managed || memoryType == CU_MEMORYTYPE_UNIFIED)
      info.kind = PointerInfo::Kind::Managed;
    else if (memoryType == CU_MEMORYTYPE_DEVICE)
      info.kind = PointerInfo::Kind::Device;
    else if (memoryType == CU_MEMORYTYPE_HOST)
      info.kind = PointerInfo::Kind::Host;
  } catch (const CudaError &) {
  }
  return info;
}

} // namespace tilec::runtime
