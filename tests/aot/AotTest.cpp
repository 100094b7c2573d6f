// Kernels compiled by `tilec aot` (CMakeLists.txt here) and launched from a
// program that links no tilec: the argument checks and the driver-less path
// on any machine; on a GPU (suites Gpu*), every scalar type reaching the
// kernel, the machine code chosen, PTX for a GPU without a cubin, streams
// and first launches from many threads.
#include "aot_odd_kernels.h"
#include "aot_ptx_kernels.h"
#include "aot_sm80_kernels.h"
#include "aot_test_kernels.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>

#include <gtest/gtest.h>

namespace {

using tilec::aot::Status;

/// The driver calls the tests make themselves (memory, streams).
struct Cuda {
  int (*cuInit)(unsigned);
  int (*cuDeviceGet)(int *, int);
  int (*cuDeviceGetAttribute)(int *, int, int);
  int (*cuMemAlloc)(unsigned long long *, size_t);
  int (*cuMemFree)(unsigned long long);
  int (*cuMemcpyHtoD)(unsigned long long, const void *, size_t);
  int (*cuMemcpyDtoH)(void *, unsigned long long, size_t);
  int (*cuCtxSynchronize)();
  int (*cuStreamCreate)(void **, unsigned);
  int (*cuStreamSynchronize)(void *);
  int (*cuStreamDestroy)(void *);
  int computeCapability = 0;
};

/// The driver with a GPU, or null (then GPU tests skip).
const Cuda *cuda() {
  static const Cuda *loaded = [] () -> const Cuda * {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return nullptr;
    static Cuda c;
    auto bind = [&](auto &slot, const char *name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(lib, name));
      return slot != nullptr;
    };
    if (!(bind(c.cuInit, "cuInit") && bind(c.cuDeviceGet, "cuDeviceGet") &&
          bind(c.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
          bind(c.cuMemAlloc, "cuMemAlloc_v2") && bind(c.cuMemFree, "cuMemFree_v2") &&
          bind(c.cuMemcpyHtoD, "cuMemcpyHtoD_v2") && bind(c.cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
          bind(c.cuCtxSynchronize, "cuCtxSynchronize") &&
          bind(c.cuStreamCreate, "cuStreamCreate") &&
          bind(c.cuStreamSynchronize, "cuStreamSynchronize") &&
          bind(c.cuStreamDestroy, "cuStreamDestroy_v2")))
      return nullptr;
    int device = 0, major = 0, minor = 0;
    if (c.cuInit(0) || c.cuDeviceGet(&device, 0) ||
        c.cuDeviceGetAttribute(&major, 75, device) || c.cuDeviceGetAttribute(&minor, 76, device))
      return nullptr;
    c.computeCapability = major * 10 + minor;
    return &c;
  }();
  return loaded;
}

/// Device memory for the length of a test (the context must be current:
/// the kernels' load_kernels makes device 0's primary context current).
struct DeviceBuffer {
  unsigned long long address = 0;
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(cuda()->cuMemAlloc(&address, bytes), 0); }
  ~DeviceBuffer() { cuda()->cuMemFree(address); }
  const void *get() const { return reinterpret_cast<const void *>(address); }
};

#define REQUIRE_GPU()                                                                     \
  do {                                                                                    \
    if (!cuda())                                                                          \
      GTEST_SKIP() << "no CUDA driver or GPU";                                            \
    Status loaded = aot_test::load_kernels();                                             \
    ASSERT_TRUE(loaded.ok()) << loaded.message;                                           \
  } while (0)

alignas(16) double hostWords[16];

TEST(AotArguments, NullPointersAreRefusedByName) {
  Status s = aot_test::scale({1}, nullptr, hostWords, 4, 1.0f);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "scale: argument 'x_ptr' (*fp32) is a null pointer");
}

TEST(AotArguments, SignaturePromisesAreChecked) {
  // out_ptr is *fp64:16: 16-byte aligned.
  Status s = aot_test::echo({1}, reinterpret_cast<char *>(hostWords) + 8, true, 0, 0, 0, 0, 0, 0,
                            0, 1, 0);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "echo: argument 'out_ptr' (*fp64:16) is not 16-byte aligned, as the "
                          "kernel was compiled to assume");
  // wide is i64:16, one is i32:1.
  s = aot_test::echo({1}, hostWords, true, 0, 0, 40, 0, 0, 0, 0, 1, 0);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "echo: argument 'wide' (i64:16) is 40, not divisible by 16, as the "
                          "kernel was compiled to assume");
  s = aot_test::echo({1}, hostWords, true, 0, 0, -48, 0, 0, 0, 0, 2, 0);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "echo: argument 'one' (i32:1) is 2, not 1, as the kernel was "
                          "compiled to assume");
}

TEST(AotArguments, GridLimits) {
  Status s = aot_test::scale({1, 65536}, hostWords, hostWords, 4, 1.0f);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "scale: grid (1, 65536, 1) is larger than a GPU allows (x < 2^31, y "
                          "and z <= 65535)");
  // A zero dimension launches nothing, and needs no GPU for it.
  EXPECT_TRUE(aot_test::scale({0}, hostWords, hostWords, 4, 1.0f).ok());
  EXPECT_TRUE(aot_test::scale({4, 1, 0}, hostWords, hostWords, 4, 1.0f).ok());
}

TEST(AotArguments, AwkwardNamesCompileAndCheck) {
  // odd::tilec must not hide ::tilec, nor parameters named grid, stream,
  // linux, int32_t, std or tilec the launcher's own names.
  Status s = odd::tilec::names({1}, 1, 2, 3, 4, 5, 6, nullptr);
  EXPECT_EQ(s.code, tilec::aot::kInvalidArgument);
  EXPECT_STREQ(s.message, "names: argument 'out_ptr' (*i32) is a null pointer");
  // A kernel of constexprs only takes the grid (and the stream).
  EXPECT_TRUE(odd::tilec::only_constexprs({0}).ok());
}

TEST(AotWithoutDriver, LaunchesSayThereIsNone) {
  if (void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  const char *image = "untouched";
  Status s = aot_test::load_kernels(&image);
  EXPECT_EQ(s.code, tilec::aot::kNoDriver);
  EXPECT_STREQ(s.message, "no CUDA driver found (dlopen of libcuda.so.1 failed)");
  EXPECT_STREQ(image, "untouched");
  s = aot_test::scale({1}, hostWords, hostWords, 4, 1.0f);
  EXPECT_EQ(s.code, tilec::aot::kNoDriver);
}

TEST(AotWithoutDriver, MessagesBelongToTheirThread) {
  Status here = aot_test::scale({1}, nullptr, hostWords, 4, 1.0f);
  std::thread([] {
    Status there = aot_test::echo({1}, hostWords, true, 0, 0, 0, 0, 0, 0, 0, 5, 0);
    EXPECT_EQ(there.code, tilec::aot::kInvalidArgument);
  }).join();
  EXPECT_STREQ(here.message, "scale: argument 'x_ptr' (*fp32) is a null pointer");
}

TEST(GpuAot, ChoosesTheCubinOfThisGpu) {
  REQUIRE_GPU();
  const char *image = nullptr;
  ASSERT_TRUE(aot_test::load_kernels(&image).ok());
  int cc = cuda()->computeCapability;
  const char *expected = cc == 90   ? "sm_90a cubin"
                         : cc == 89 ? "sm_89 cubin"
                         : cc == 86 || cc == 87 ? "sm_86 cubin"
                         : cc == 80 ? "sm_80 cubin"
                                    : "compute_80 PTX";
  EXPECT_STREQ(image, expected) << "compute capability " << cc;
}

TEST(GpuAot, EveryScalarTypeReachesTheKernel) {
  REQUIRE_GPU();
  DeviceBuffer out(16 * sizeof(double));
  const float third = 1.0f / 3.0f;
  ASSERT_TRUE(aot_test::echo({1}, out.get(), true, int8_t(-7), uint16_t(65535),
                             -(int64_t(1) << 40), third, third, 1.1f, 1e300, 1, 4000000000u)
                  .ok());
  double got[10];
  ASSERT_EQ(cuda()->cuCtxSynchronize(), 0);
  ASSERT_EQ(cuda()->cuMemcpyDtoH(got, out.address, sizeof got), 0);
  EXPECT_EQ(got[0], 1.0);
  EXPECT_EQ(got[1], -7.0);
  EXPECT_EQ(got[2], 65535.0);
  EXPECT_EQ(got[3], -1099511627776.0);
  EXPECT_EQ(got[4], 0.333251953125);           // 1/3 in fp16
  EXPECT_EQ(got[5], 0.333984375);              // 1/3 in bf16
  EXPECT_EQ(got[6], double(1.1f));
  EXPECT_EQ(got[7], 1e300);
  EXPECT_EQ(got[8], 1.0);
  EXPECT_EQ(got[9], 4000000000.0);
}

/// Runs scale through `launch` on n elements and checks every one.
template <class Launch> void checkScale(Launch launch, int n, void *stream = nullptr) {
  std::vector<float> x(n), y(n, -1.0f);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 97) - 48.5f;
  DeviceBuffer dx(n * 4), dy(n * 4);
  ASSERT_EQ(cuda()->cuMemcpyHtoD(dx.address, x.data(), n * 4), 0);
  Status s = launch(tilec::aot::Grid{unsigned((n + 255) / 256)}, dx.get(), dy.get(), n, 2.5f,
                    stream);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(stream ? cuda()->cuStreamSynchronize(stream) : cuda()->cuCtxSynchronize(), 0);
  ASSERT_EQ(cuda()->cuMemcpyDtoH(y.data(), dy.address, n * 4), 0);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(y[i], x[i] * 2.5f) << "element " << i;
}

TEST(GpuAot, OddSizesAndUnalignedPointersWithoutFacts) {
  REQUIRE_GPU();
  checkScale(aot_test::scale, 1000);
  checkScale(aot_test::scale, 1);
  // scale's pointers promise nothing: an address 4 bytes in is fine.
  DeviceBuffer x(1028), y(1028);
  ASSERT_EQ(cuda()->cuMemcpyHtoD(x.address, std::vector<float>(257, 2.0f).data(), 1028), 0);
  const char *in = static_cast<const char *>(x.get()) + 4;
  const char *out = static_cast<const char *>(y.get()) + 4;
  ASSERT_TRUE(aot_test::scale({1}, in, out, 256, 3.0f).ok());
  std::vector<float> back(257);
  ASSERT_EQ(cuda()->cuCtxSynchronize(), 0);
  ASSERT_EQ(cuda()->cuMemcpyDtoH(back.data(), y.address, 1028), 0);
  for (int i = 1; i < 257; ++i)
    ASSERT_EQ(back[i], 6.0f);
}

TEST(GpuAot, LaunchesOnAStream) {
  REQUIRE_GPU();
  void *stream = nullptr;
  ASSERT_EQ(cuda()->cuStreamCreate(&stream, 1 /* non-blocking */), 0);
  checkScale(aot_test::scale, 5000, stream);
  cuda()->cuStreamDestroy(stream);
}

TEST(GpuAot, PtxRunsWhereNoCubinDoes) {
  REQUIRE_GPU();
  const char *image = nullptr;
  Status s = aot_ptx::load_kernels(&image);
  ASSERT_TRUE(s.ok()) << s.message;
  int cc = cuda()->computeCapability;
  EXPECT_STREQ(image, cc / 10 == 8 ? "sm_80 cubin" : "compute_80 PTX");
  checkScale(aot_ptx::scale, 4097);
}

TEST(GpuAot, NoCodeForThisGpuIsReported) {
  REQUIRE_GPU();
  if (cuda()->computeCapability / 10 == 8)
    GTEST_SKIP() << "an sm_80 cubin runs on this GPU";
  Status s = aot_sm80::scale({1}, hostWords, hostWords, 4, 1.0f);
  EXPECT_EQ(s.code, tilec::aot::kNoImageForDevice);
  EXPECT_NE(std::string(s.message).find("the kernels were built for sm_80 cubin"),
            std::string::npos)
      << s.message;
}

TEST(GpuAot, FirstLaunchesFromManyThreads) {
  // Another unit makes the context current; aot_ptx's scale is not loaded
  // yet, and eight threads race to load it.
  REQUIRE_GPU();
  DeviceBuffer dx(4096 * 4), dy(4096 * 4);
  std::vector<std::thread> threads;
  std::vector<int> codes(8, -100);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50 && codes[t] != 0; ++i)
        codes[t] = aot_ptx::scale({16}, dx.get(), dy.get(), 4096, 1.0f).code;
      for (int i = 0; i < 50; ++i)
        codes[t] |= aot_ptx::scale({16}, dx.get(), dy.get(), 4096, 1.0f).code;
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(codes[t], 0) << "thread " << t;
  EXPECT_EQ(cuda()->cuCtxSynchronize(), 0);
}

} // namespace
