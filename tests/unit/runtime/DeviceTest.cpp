// Tests of the runtime (runtime/Device.h), in two suites by what they need:
//
//  RuntimeNoDriver.*  behaviour where libcuda.so.1 is absent (CI machines):
//                     clear CudaErrors, no crash. They skip where a driver is
//                     present, since then they cannot hold.
//  Gpu*.*             loading and launching real kernels. They skip where no
//                     usable driver and device exist. CMake labels them "gpu".
#include "runtime/Device.h"
#include "runtime/Graph.h"
#include "runtime/TensorMapEncoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace tilec::runtime;

namespace {

// fill42(u32 *p, u32 n): p[i] = 42 for every i < n, one thread per element.
const char *const kFill42PTX = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry fill42(
	.param .u64 fill42_param_p,
	.param .u32 fill42_param_n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [fill42_param_p];
	ld.param.u32 	%r1, [fill42_param_n];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.u32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	DONE;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	mov.u32 	%r6, 42;
	st.global.u32 	[%rd4], %r6;
DONE:
	ret;
}
)";

// fill42_via_shared(u32 *p, u32 n): as fill42, but every value goes through
// dynamic shared memory (4 bytes a thread), which the launch must provide.
const char *const kFill42ViaSharedPTX = R"(
.version 8.0
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 fill42_smem[];

.visible .entry fill42_via_shared(
	.param .u64 fill42_via_shared_param_p,
	.param .u32 fill42_via_shared_param_n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [fill42_via_shared_param_p];
	ld.param.u32 	%r1, [fill42_via_shared_param_n];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.u32 	%r5, %r2, %r3, %r4;
	mov.u32 	%r6, fill42_smem;
	shl.b32 	%r7, %r4, 2;
	add.u32 	%r6, %r6, %r7;
	mov.u32 	%r8, 42;
	st.shared.u32 	[%r6], %r8;
	bar.sync 	0;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	DONE;
	ld.shared.u32 	%r8, [%r6];
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r8;
DONE:
	ret;
}
)";

// fill42 with an unknown special register: the JIT must reject it.
std::string brokenPTX() {
  std::string ptx = kFill42PTX;
  const std::string good = "%tid.x";
  ptx.replace(ptx.find(good), good.size(), "%bogus");
  return ptx;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// The no-driver tests describe a machine without libcuda.so.1; elsewhere
// (a driver, with or without a device) they cannot hold.
#define SKIP_UNLESS_NO_DRIVER()                                                \
  do {                                                                         \
    std::string why_;                                                          \
    if (driverAvailable(&why_) || !contains(why_, "no CUDA driver found"))     \
      GTEST_SKIP() << "a CUDA driver is present";                              \
  } while (0)

// The hand-written PTX targets sm_90, so the GPU tests need Hopper or newer.
#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    std::string why_;                                                          \
    if (!driverAvailable(&why_))                                               \
      GTEST_SKIP() << why_;                                                    \
    if (Device::get().computeCapability() < 90)                                \
      GTEST_SKIP() << "the test kernels are PTX for sm_90";                    \
  } while (0)

// Runs `body`, which must throw CudaError; returns its message.
template <class Body> std::string cudaErrorOf(Body body) {
  try {
    body();
  } catch (const CudaError &e) {
    return e.what();
  }
  ADD_FAILURE() << "no CudaError was thrown";
  return "";
}

constexpr uint32_t kPoison = 0xABABABABu; // what fill(0xAB) writes per u32

// Launches `module` (a fill42 variant) over n elements of a poisoned buffer
// that has `guard` more elements after them; returns the whole buffer.
std::vector<uint32_t> runFill42(const Module &module, uint32_t n,
                                unsigned sharedBytes = 0,
                                uint32_t guard = 64) {
  DeviceBuffer buffer = DeviceBuffer::allocate((n + guard) * sizeof(uint32_t));
  buffer.fill(0xAB);
  void *p = buffer.data();
  void *params[] = {&p, &n};
  LaunchDims dims;
  dims.block[0] = 128;
  dims.grid[0] = (n + 127) / 128;
  dims.sharedBytes = sharedBytes;
  launch(module, dims, params);
  synchronize();
  std::vector<uint32_t> out(n + guard);
  buffer.copyToHost(out.data(), out.size() * sizeof(uint32_t));
  return out;
}

void expectFilled(const std::vector<uint32_t> &out, uint32_t n) {
  for (uint32_t i = 0; i < out.size(); ++i) {
    uint32_t expected = i < n ? 42u : kPoison;
    ASSERT_EQ(out[i], expected) << "element " << i << " of n = " << n;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Without a driver
//===----------------------------------------------------------------------===//

TEST(RuntimeNoDriver, DriverAvailableExplainsWhy) {
  SKIP_UNLESS_NO_DRIVER();
  std::string why;
  EXPECT_FALSE(driverAvailable(&why));
  EXPECT_TRUE(contains(why, "no CUDA driver found")) << why;
  // The dlerror text names the library it could not open.
  EXPECT_TRUE(contains(why, "libcuda.so.1")) << why;
  EXPECT_FALSE(driverAvailable()); // the null default is accepted
  std::string again;
  driverAvailable(&again);
  EXPECT_EQ(why, again); // loaded once, same answer
}

TEST(RuntimeNoDriver, DeviceEntryPointsThrowCudaError) {
  SKIP_UNLESS_NO_DRIVER();
  EXPECT_TRUE(contains(cudaErrorOf([] { Device::get(); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { Device::get(1); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { Device::current(); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { Device::count(); }),
                       "no CUDA driver found"));
  // CudaError is a std::runtime_error for callers that catch those.
  EXPECT_THROW(Device::get(), std::runtime_error);
}

TEST(RuntimeNoDriver, LoadingKernelsThrowsClearError) {
  SKIP_UNLESS_NO_DRIVER();
  EXPECT_TRUE(contains(cudaErrorOf([] { Module::loadPTX(kFill42PTX, "fill42"); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(
      cudaErrorOf([] { Module::linkPTXToCubin(kFill42PTX, nullptr); }),
      "no CUDA driver found"));
  const char image[] = "\x7f" "ELF";
  EXPECT_TRUE(contains(
      cudaErrorOf([&] { Module::loadCubin(image, sizeof image, "fill42"); }),
      "no CUDA driver found"));
}

TEST(RuntimeNoDriver, StreamsAndGraphsThrowClearError) {
  SKIP_UNLESS_NO_DRIVER();
  EXPECT_TRUE(contains(cudaErrorOf([] { Stream::create(); }), "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { Graph::capture(nullptr, [] {}); }),
                       "cannot capture the legacy default stream"));
  bool ran = false;
  EXPECT_TRUE(contains(cudaErrorOf([&] {
                         Graph::capture(reinterpret_cast<void *>(0x10), [&] { ran = true; });
                       }),
                       "no CUDA driver found"));
  EXPECT_FALSE(ran); // nothing runs before the capture has begun
  Graph empty;
  EXPECT_EQ(empty.numNodes(), 0u);
  EXPECT_TRUE(contains(cudaErrorOf([&] { empty.launch(nullptr); }), "empty CUDA graph"));
}

TEST(RuntimeNoDriver, MemoryAndTimingThrowClearError) {
  SKIP_UNLESS_NO_DRIVER();
  EXPECT_TRUE(contains(cudaErrorOf([] { DeviceBuffer::allocate(64); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { synchronize(); }),
                       "no CUDA driver found"));
  EXPECT_TRUE(contains(cudaErrorOf([] { EventTimer timer; }),
                       "no CUDA driver found"));
}

TEST(RuntimeNoDriver, IsDevicePointerIsFalse) {
  SKIP_UNLESS_NO_DRIVER();
  int onHost = 0;
  EXPECT_FALSE(isDevicePointer(reinterpret_cast<uintptr_t>(&onHost)));
  EXPECT_FALSE(isDevicePointer(0));
  EXPECT_FALSE(isDevicePointer(0x7f0000000000ull));
}

TEST(RuntimeNoDriver, EncodingATensorMapThrowsClearError) {
  SKIP_UNLESS_NO_DRIVER();
  TensorMapArguments args;
  args.rank = 1;
  EncodedTensorMap map;
  EXPECT_TRUE(contains(cudaErrorOf([&] { encodeTensorMap(args, map); }),
                       "no CUDA driver found"));
}

// Holds with or without a driver: an empty buffer never touches the device.
TEST(RuntimeNoDriver, EmptyBufferNeedsNoDevice) {
  DeviceBuffer empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
  empty.copyFromHost(nullptr, 0);
  empty.fill(0);
  char byte = 0;
  EXPECT_THROW(empty.copyToHost(&byte, 1), std::out_of_range);
  DeviceBuffer moved = std::move(empty);
  EXPECT_EQ(moved.size(), 0u);
}

//===----------------------------------------------------------------------===//
// With a GPU
//===----------------------------------------------------------------------===//

TEST(GpuDevice, ReportsProperties) {
  std::string why;
  if (!driverAvailable(&why))
    GTEST_SKIP() << why;
  EXPECT_GE(Device::count(), 1);
  Device &device = Device::get();
  EXPECT_EQ(&device, &Device::get(0)); // one object per device
  EXPECT_EQ(device.ordinal(), 0);
  EXPECT_FALSE(device.name().empty());
  EXPECT_GE(device.computeCapability(), 50);
  EXPECT_GT(device.multiprocessorCount(), 0);
  EXPECT_GE(device.maxSharedMemoryPerBlockOptin(), 48 * 1024);
  EXPECT_GT(device.l2CacheBytes(), 0);
  EXPECT_NE(device.context(), nullptr);
  device.makeCurrent();
  EXPECT_EQ(&Device::current(), &device);
  EXPECT_TRUE(contains(cudaErrorOf([] { Device::get(Device::count()); }),
                       "does not exist"));
}

// The autotuner's L2 flush reads a scratch buffer (its kernel loads from
// PTX for any GPU tilec runs on) and leaves the stream usable.
TEST(GpuModule, L2FlushReadsThroughItsKernel) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(readL2KernelPTX(), "tilec_read_l2");
  EXPECT_NE(module->function(), nullptr);
  EXPECT_EQ(module->localBytesPerThread(), 0);
  for (int i = 0; i < 3; ++i)
    flushL2(nullptr);
  synchronize();
}

TEST(GpuModule, LoadsPTXAndReadsMetadata) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  EXPECT_NE(module->function(), nullptr);
  EXPECT_EQ(module->kernelName(), "fill42");
  EXPECT_EQ(&module->device(), &Device::get());
  EXPECT_GT(module->numRegisters(), 0);
  EXPECT_EQ(module->localBytesPerThread(), 0);
  EXPECT_EQ(module->staticSharedBytes(), 0);
  EXPECT_GE(module->maxThreadsPerBlock(), 128);
  EXPECT_EQ(module->maxDynamicSharedBytes(), 48 * 1024);
  // Every optimisation level is accepted; others are refused up front.
  for (int level = 0; level <= 4; ++level)
    EXPECT_NE(Module::loadPTX(kFill42PTX, "fill42", level)->function(),
              nullptr);
  EXPECT_THROW(Module::loadPTX(kFill42PTX, "fill42", 5), std::invalid_argument);
}

TEST(GpuLaunch, Fill42OverPoisonedBuffers) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  for (uint32_t n : {1000u, 1u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expectFilled(runFill42(*module, n), n);
  }
}

TEST(GpuModule, InvalidPTXNamesKernelAndQuotesJitLog) {
  REQUIRE_GPU();
  std::string message =
      cudaErrorOf([] { Module::loadPTX(brokenPTX(), "fill42"); });
  EXPECT_TRUE(contains(message, "kernel 'fill42'")) << message;
  EXPECT_TRUE(contains(message, "cuModuleLoadDataEx failed")) << message;
  EXPECT_TRUE(contains(message, "CUDA_ERROR_")) << message;
  // The JIT's own words about the bad instruction.
  EXPECT_TRUE(contains(message, "JIT error log:")) << message;
  EXPECT_TRUE(contains(message, "bogus")) << message;
}

TEST(GpuModule, UnknownKernelNameThrows) {
  REQUIRE_GPU();
  std::string message =
      cudaErrorOf([] { Module::loadPTX(kFill42PTX, "no_such_kernel"); });
  EXPECT_TRUE(contains(message, "no_such_kernel")) << message;
  EXPECT_TRUE(contains(message, "cuModuleGetFunction")) << message;
}

TEST(GpuModule, LinksPTXToCubinAndLoadsIt) {
  REQUIRE_GPU();
  std::string infoLog;
  std::vector<char> cubin = Module::linkPTXToCubin(kFill42PTX, &infoLog);
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(std::memcmp(cubin.data(), "\x7f" "ELF", 4), 0); // an ELF image
  auto module = Module::loadCubin(cubin.data(), cubin.size(), "fill42");
  EXPECT_TRUE(module->jitInfoLog().empty()) << module->jitInfoLog();
  EXPECT_GT(module->numRegisters(), 0);
  expectFilled(runFill42(*module, 300), 300);

  std::string message =
      cudaErrorOf([] { Module::linkPTXToCubin(brokenPTX(), nullptr); });
  EXPECT_TRUE(contains(message, "bogus")) << message;
}

TEST(GpuLaunch, ZeroDimensionsAreRejectedBeforeTheDriver) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  LaunchDims dims;
  dims.grid[1] = 0;
  std::string message = cudaErrorOf([&] { launch(*module, dims, nullptr); });
  EXPECT_TRUE(contains(message, "launch of kernel 'fill42' failed")) << message;
  EXPECT_TRUE(contains(message, "grid dimension 1 is 0")) << message;

  dims = LaunchDims();
  dims.block[0] = 0;
  message = cudaErrorOf([&] { launch(*module, dims, nullptr); });
  EXPECT_TRUE(contains(message, "block dimension 0 is 0")) << message;
}

TEST(GpuLaunch, DriverErrorsNameTheKernel) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  DeviceBuffer buffer = DeviceBuffer::allocate(4);
  void *p = buffer.data();
  uint32_t n = 1;
  void *params[] = {&p, &n};
  LaunchDims dims;
  dims.block[0] = 4096; // above any kernel's limit
  std::string message = cudaErrorOf([&] { launch(*module, dims, params); });
  EXPECT_TRUE(contains(message, "launch of kernel 'fill42' failed: CUDA_ERROR_"))
      << message;
  EXPECT_TRUE(contains(message, "4096 threads")) << message;
}

TEST(GpuLaunch, DynamicSharedMemoryAbove48KiBNeedsOptIn) {
  REQUIRE_GPU();
  const int bytes = 100 * 1024;
  if (Device::get().maxSharedMemoryPerBlockOptin() < bytes)
    GTEST_SKIP() << "the device has less shared memory per block";
  auto module = Module::loadPTX(kFill42ViaSharedPTX, "fill42_via_shared");
  std::string message = cudaErrorOf([&] { runFill42(*module, 1000, bytes); });
  EXPECT_TRUE(contains(message, "setDynamicSharedBytes")) << message;

  module->setDynamicSharedBytes(bytes);
  EXPECT_EQ(module->maxDynamicSharedBytes(), bytes);
  expectFilled(runFill42(*module, 1000, bytes), 1000);

  int tooMuch = Device::get().maxSharedMemoryPerBlockOptin() + 1;
  message = cudaErrorOf([&] { module->setDynamicSharedBytes(tooMuch); });
  EXPECT_TRUE(contains(message, "fill42_via_shared")) << message;
  EXPECT_EQ(module->maxDynamicSharedBytes(), bytes); // unchanged on failure
}

// A new thread has no current context; launches, copies and pointer queries
// must still work there.
TEST(GpuLaunch, WorksFromAThreadWithoutContext) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  DeviceBuffer buffer = DeviceBuffer::allocate(256 * sizeof(uint32_t));
  buffer.fill(0xAB);
  std::string error;
  bool isDevice = false;
  std::thread worker([&] {
    try {
      isDevice = isDevicePointer(reinterpret_cast<uintptr_t>(buffer.data()));
      void *p = buffer.data();
      uint32_t n = 200;
      void *params[] = {&p, &n};
      LaunchDims dims;
      dims.grid[0] = 2;
      launch(*module, dims, params);
      synchronize();
    } catch (const std::exception &e) {
      error = e.what();
    }
  });
  worker.join();
  ASSERT_EQ(error, "");
  EXPECT_TRUE(isDevice);
  std::vector<uint32_t> out(256);
  buffer.copyToHost(out.data(), out.size() * sizeof(uint32_t));
  expectFilled(out, 200);
}

TEST(GpuBuffer, OwnsDeviceMemory) {
  REQUIRE_GPU();
  DeviceBuffer buffer = DeviceBuffer::allocate(1024);
  EXPECT_EQ(buffer.size(), 1024u);
  EXPECT_TRUE(isDevicePointer(reinterpret_cast<uintptr_t>(buffer.data())));
  int onHost = 0;
  EXPECT_FALSE(isDevicePointer(reinterpret_cast<uintptr_t>(&onHost)));

  std::vector<uint8_t> in(1024), out(1024, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7);
  buffer.copyFromHost(in.data(), in.size());
  buffer.copyToHost(out.data(), out.size());
  EXPECT_EQ(in, out);
  EXPECT_THROW(buffer.copyFromHost(in.data(), 1025), std::out_of_range);

  void *address = buffer.data();
  DeviceBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.data(), address);
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(DeviceBuffer::allocate(0).data(), nullptr);
}

TEST(GpuTimer, MeasuresPositiveTime) {
  REQUIRE_GPU();
  auto module = Module::loadPTX(kFill42PTX, "fill42");
  // Enough work for the events' ~0.5 us resolution.
  uint32_t n = 1u << 24;
  DeviceBuffer buffer = DeviceBuffer::allocate(n * sizeof(uint32_t));
  void *p = buffer.data();
  void *params[] = {&p, &n};
  LaunchDims dims;
  dims.grid[0] = n / 128;
  EventTimer timer;
  timer.start();
  for (int i = 0; i < 10; ++i)
    launch(*module, dims, params);
  timer.stop();
  float milliseconds = timer.elapsedMilliseconds();
  EXPECT_GT(milliseconds, 0.0f);
  EXPECT_LT(milliseconds, 10000.0f);
}

// A 2-D fp16 tensor of `rows` rows of 96 elements, 128 to a row, at
// `address`, read in 64 x 32 boxes with the 128-byte swizzle: the driver's
// arguments, innermost dimension first.
TensorMapArguments matrixMap(uint64_t address, uint64_t rows) {
  TensorMapArguments a;
  a.rank = 2;
  a.globalAddress = address;
  a.globalDim[0] = 96;
  a.globalDim[1] = rows;
  a.globalStrides[0] = 128 * 2;
  a.boxDim[0] = 64;
  a.boxDim[1] = 32;
  a.elementStrides[0] = a.elementStrides[1] = 1;
  a.dataType = 6;    // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  a.swizzle = 3;     // CU_TENSOR_MAP_SWIZZLE_128B
  a.l2Promotion = 3; // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
  return a;
}

TEST(GpuTensorMap, EncodesAMapOfARealAllocation) {
  REQUIRE_GPU();
  DeviceBuffer buffer = DeviceBuffer::allocate(200 * 128 * 2);
  EncodedTensorMap map;
  std::memset(&map, 0, sizeof map);
  encodeTensorMap(matrixMap(reinterpret_cast<uint64_t>(buffer.data()), 200), map);
  bool written = false;
  for (uint64_t word : map.words)
    written |= word != 0;
  EXPECT_TRUE(written) << "the driver wrote nothing";
  // The map depends on the values: another shape, another map.
  EncodedTensorMap other;
  encodeTensorMap(matrixMap(reinterpret_cast<uint64_t>(buffer.data()), 100), other);
  EXPECT_NE(std::memcmp(&map, &other, sizeof map), 0);
}

// What the driver says when it refuses values tilec's launcher would have
// refused first (runtime/JIT/TensorMaps.h): the CUresult, and every value.
TEST(GpuTensorMap, RefusalNamesTheResultAndTheValues) {
  REQUIRE_GPU();
  DeviceBuffer buffer = DeviceBuffer::allocate(200 * 128 * 2);
  TensorMapArguments args = matrixMap(reinterpret_cast<uint64_t>(buffer.data()), 200);
  args.globalStrides[0] = 200; // not a multiple of 16
  EncodedTensorMap map;
  int code = 0;
  std::string message;
  try {
    encodeTensorMap(args, map);
  } catch (const CudaError &e) {
    message = e.what();
    code = e.code();
  }
  EXPECT_EQ(code, 1) << message; // CUDA_ERROR_INVALID_VALUE
  EXPECT_TRUE(contains(message, "cuTensorMapEncodeTiled")) << message;
  EXPECT_TRUE(contains(message, "CUDA_ERROR_INVALID_VALUE")) << message;
  EXPECT_TRUE(contains(message, "type FLOAT16, rank 2")) << message;
  EXPECT_TRUE(contains(message, "globalDim [96, 200], globalStrides [200] bytes")) << message;
  EXPECT_TRUE(contains(message, "boxDim [64, 32]")) << message;
  EXPECT_TRUE(contains(message, "swizzle 128B")) << message;
}
