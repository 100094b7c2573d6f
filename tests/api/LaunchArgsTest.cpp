// Bad launch arguments are refused with one Error naming the argument, and
// nothing runs: the wrong number of arguments, a grid dimension of 0 or past
// the GPU's limits, null and host pointers, and, for a CompiledKernel, any
// argument that breaks its signature (type, `:16`, `:1`). Most checks come
// before the driver is needed, so they are tested on every machine; the
// ones that ask the driver (pageable host memory) skip without a GPU.
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
import tilec.language as tl

@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)

@tilec.jit
def needs_shared(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))

@tilec.jit
def store_value(out_ptr, v):
    tl.store(out_ptr, v)
)";

tilec::Kernel addKernel() {
  return tilec::Library::fromString(kSource, "launch_args.py").kernel("add");
}

/// The message of the Error `f` throws; fails the test when it throws none.
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const tilec::Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no tilec::Error thrown";
  return "";
}

tilec::LaunchOptions interpreter() {
  tilec::LaunchOptions o;
  o.backend = tilec::Backend::Interpreter;
  return o;
}

tilec::LaunchOptions gpu() {
  tilec::LaunchOptions o;
  o.backend = tilec::Backend::GPU;
  return o;
}

/// Host buffers for the interpreter; out starts as a sentinel that shows
/// whether anything ran.
struct HostArrays {
  std::vector<float> x = std::vector<float>(64, 1.0f), y = std::vector<float>(64, 2.0f),
                     out = std::vector<float>(64, -7.0f);
  std::vector<tilec::Arg> args(int n = 64) {
    return {tilec::Arg::host(x, tilec::ScalarType::FP32),
            tilec::Arg::host(y, tilec::ScalarType::FP32),
            tilec::Arg::host(out, tilec::ScalarType::FP32), n};
  }
  bool untouched() const {
    for (float v : out)
      if (v != -7.0f)
        return false;
    return true;
  }
};

bool haveGpu() { return tilec::cudaAvailable(); }

} // namespace

TEST(LaunchArgs, InterpreterRunsGoodArguments) {
  // The baseline the refusals below are measured against.
  HostArrays h;
  addKernel().launch({2}, h.args(), {{"BLOCK", 32}}, interpreter());
  EXPECT_EQ(h.out[0], 3.0f);
  EXPECT_EQ(h.out[63], 3.0f);
}

TEST(LaunchArgs, WrongArgumentCountNamesWhatIsMissing) {
  HostArrays h;
  std::vector<tilec::Arg> three = h.args();
  three.pop_back();
  for (const tilec::LaunchOptions &o : {interpreter(), gpu()}) {
    std::string e = errorOf([&] { addKernel().launch({2}, three, {{"BLOCK", 32}}, o); });
    EXPECT_NE(e.find("kernel 'add'"), std::string::npos) << e;
    EXPECT_NE(e.find("takes 4 arguments besides its constexprs (x_ptr, y_ptr, out_ptr, n), "
                     "got 3: missing 'n'"),
              std::string::npos)
        << e;
  }
  std::vector<tilec::Arg> five = h.args();
  five.push_back(5);
  std::string e = errorOf([&] { addKernel().launch({2}, five, {{"BLOCK", 32}}, interpreter()); });
  EXPECT_NE(e.find("got 5"), std::string::npos) << e;
  EXPECT_TRUE(h.untouched());
}

TEST(LaunchArgs, GridOfZeroOrPastTheLimitsIsRefused) {
  HostArrays h;
  struct Case {
    tilec::Grid grid;
    const char *message;
  } cases[] = {
      {tilec::Grid(0), "grid x is 0"},
      {tilec::Grid(2, 0), "grid y is 0"},
      {tilec::Grid(2, 1, 0), "grid z is 0"},
      {tilec::Grid(2, 65536), "grid y is 65536, more than the 65535 the GPU allows"},
      {tilec::Grid(2, 1, 70000), "grid z is 70000"},
      {tilec::Grid(uint64_t(1) << 31), "grid x is 2147483648, more than the 2147483647"},
  };
  for (const Case &c : cases)
    for (const tilec::LaunchOptions &o : {interpreter(), gpu()}) {
      std::string e = errorOf([&] { addKernel().launch(c.grid, h.args(), {{"BLOCK", 32}}, o); });
      EXPECT_NE(e.find(c.message), std::string::npos) << e;
    }
  EXPECT_TRUE(h.untouched());
}

TEST(LaunchArgs, NullPointerIsRefusedByName) {
  HostArrays h;
  std::vector<tilec::Arg> args = h.args();
  args[0] = tilec::Arg::pointer(nullptr, tilec::ScalarType::FP32, 256);
  for (const tilec::LaunchOptions &o : {interpreter(), gpu()}) {
    std::string e = errorOf([&] { addKernel().launch({2}, args, {{"BLOCK", 32}}, o); });
    EXPECT_NE(e.find("argument 'x_ptr' is a null pointer"), std::string::npos) << e;
  }
  EXPECT_TRUE(h.untouched());
}

TEST(LaunchArgs, HostArrayOnTheGpuBackendIsRefusedByName) {
  HostArrays h;
  std::string e = errorOf([&] { addKernel().launch({2}, h.args(), {{"BLOCK", 32}}, gpu()); });
  EXPECT_NE(e.find("argument 'x_ptr' is host memory"), std::string::npos) << e;
}

TEST(LaunchArgs, PageableHostPointerIsRefusedOnTheGpu) {
  if (!haveGpu())
    GTEST_SKIP() << "needs a CUDA driver and a GPU";
  std::vector<float> host(64, 1.0f);
  tilec::Buffer y = tilec::Buffer::allocate(256), out = tilec::Buffer::allocate(256);
  out.fill(0x7f);
  // A raw address of pageable host memory, passed as if it were a device pointer.
  std::vector<tilec::Arg> args{tilec::Arg::pointer(host.data(), tilec::ScalarType::FP32),
                               tilec::Arg(y, tilec::ScalarType::FP32),
                               tilec::Arg(out, tilec::ScalarType::FP32), 64};
  std::string e = errorOf([&] { addKernel().launch({2}, args, {{"BLOCK", 32}}, gpu()); });
  EXPECT_NE(e.find("argument 'x_ptr'"), std::string::npos) << e;
  EXPECT_NE(e.find("is not memory the GPU can reach"), std::string::npos) << e;
  std::vector<uint8_t> bytes(256);
  out.copyToHost(bytes.data(), bytes.size());
  for (uint8_t b : bytes)
    ASSERT_EQ(b, 0x7f) << "the kernel ran";
}

TEST(LaunchArgs, BufferArgumentsCarryTheirGpu) {
  EXPECT_EQ(tilec::Buffer().device(), -1);
  EXPECT_EQ(tilec::Arg::pointer(nullptr, tilec::ScalarType::FP32).device, -1);
  if (!haveGpu())
    GTEST_SKIP() << "needs a CUDA driver and a GPU";
  tilec::Buffer x = tilec::Buffer::allocate(256);
  int ordinal = tilec::deviceProperties().ordinal;
  EXPECT_EQ(x.device(), ordinal);
  EXPECT_EQ(tilec::Arg(x, tilec::ScalarType::FP32).device, ordinal);
  EXPECT_EQ(tilec::Arg(x, "fp32").device, ordinal);
}

TEST(LaunchArgs, AClaimOfAnotherGpuIsCheckedWithTheDriver) {
  if (!haveGpu())
    GTEST_SKIP() << "needs a CUDA driver and a GPU";
  tilec::Buffer x = tilec::Buffer::allocate(256), y = tilec::Buffer::allocate(256),
                out = tilec::Buffer::allocate(256);
  std::vector<float> ones(64, 1.0f), twos(64, 2.0f), got(64, 0.0f);
  x.copyFromHost(ones.data(), 256);
  y.copyFromHost(twos.data(), 256);
  out.fill(0x7f);
  int ordinal = tilec::deviceProperties().ordinal;
  std::vector<tilec::Arg> args{tilec::Arg(x, tilec::ScalarType::FP32),
                               tilec::Arg(y, tilec::ScalarType::FP32),
                               tilec::Arg(out, tilec::ScalarType::FP32), 64};
  // Arg::device says where the caller believes the memory is. The launch
  // takes a claim of its own GPU at its word; a claim of another is asked
  // of the driver, whose answer (this GPU) stands: the kernel runs.
  args[1].device = ordinal + 1;
  addKernel().launch({2}, args, {{"BLOCK", 32}}, gpu());
  out.copyToHost(got.data(), 256);
  for (float v : got)
    ASSERT_EQ(v, 3.0f);
  // Unknown (-1): the driver is asked, and pageable host memory is refused.
  std::vector<float> host(64, 1.0f);
  args[1] = tilec::Arg::pointer(host.data(), tilec::ScalarType::FP32);
  std::string e = errorOf([&] { addKernel().launch({2}, args, {{"BLOCK", 32}}, gpu()); });
  EXPECT_NE(e.find("argument 'y_ptr'"), std::string::npos) << e;
  EXPECT_NE(e.find("is not memory the GPU can reach"), std::string::npos) << e;
}

TEST(LaunchArgs, ConstexprForARuntimeParameterIsRefused) {
  HostArrays h;
  std::string e =
      errorOf([&] { addKernel().launch({2}, h.args(), {{"BLOCK", 32}, {"n", 64}}, interpreter()); });
  EXPECT_NE(e.find("'n' is not a constexpr parameter of kernel 'add'"), std::string::npos) << e;
  EXPECT_TRUE(h.untouched());
}

TEST(LaunchArgs, TooMuchSharedMemoryIsRefusedForTheTarget) {
  tilec::Kernel k = tilec::Library::fromString(kSource, "launch_args.py").kernel("needs_shared");
  std::string e = errorOf([&] {
    k.compile("*fp16:16,*fp16:16,*fp32:16", {{"BM", 128}, {"BN", 128}, {"BK", 256}}, 4,
              "sm_86");
  });
  EXPECT_NE(e.find("needs 131072 bytes of shared memory, more than the 101376 sm_86 allows"),
            std::string::npos)
      << e;
}

//===----------------------------------------------------------------------===//
// CompiledKernel::launch: the arguments against the compiled signature
//===----------------------------------------------------------------------===//

namespace {
tilec::CompiledKernel compiledAdd(const std::string &signature) {
  return addKernel().compile(signature, {{"BLOCK", 256}});
}
tilec::Arg fakePointer(uintptr_t address, tilec::ScalarType t = tilec::ScalarType::FP32) {
  return tilec::Arg::pointer(reinterpret_cast<void *>(address), t);
}
std::vector<tilec::Arg> fakeArgs(int n = 1024) {
  return {fakePointer(0x10000), fakePointer(0x20000), fakePointer(0x30000), n};
}
} // namespace

TEST(CompiledLaunchArgs, EachBrokenPromiseIsNamed) {
  tilec::CompiledKernel k = compiledAdd("*fp32:16,*fp32:16,*fp32:16,i32:16");
  struct Case {
    std::vector<tilec::Arg> args;
    const char *message;
  };
  std::vector<Case> cases;
  {
    auto a = fakeArgs();
    a[1] = fakePointer(0x20000, tilec::ScalarType::FP16);
    cases.push_back({a, "argument 'y_ptr' is a pointer to fp16, and this compile takes *fp32:16"});
  }
  {
    auto a = fakeArgs();
    a[2] = fakePointer(0x30004);
    cases.push_back({a, "argument 'out_ptr' (0x30004) is not 16-byte aligned, which its "
                        "signature entry *fp32:16 promises"});
  }
  cases.push_back({fakeArgs(1000), "argument 'n' is 1000, not divisible by 16"});
  {
    auto a = fakeArgs();
    a[3] = tilec::Arg(int64_t(1) << 40);
    cases.push_back({a, "argument 'n' is 1099511627776, which does not fit the i32:16"});
  }
  {
    auto a = fakeArgs();
    a[3] = tilec::Arg(16.0f);
    cases.push_back({a, "argument 'n' is an fp32, and this compile takes i32:16"});
  }
  {
    auto a = fakeArgs();
    a[0] = tilec::Arg(7);
    cases.push_back({a, "argument 'x_ptr' is an i32, and this compile takes *fp32:16"});
  }
  {
    auto a = fakeArgs();
    a.pop_back();
    cases.push_back({a, "got 3: missing 'n'"});
  }
  for (const Case &c : cases) {
    std::string e = errorOf([&] { k.launch({4}, c.args); });
    EXPECT_NE(e.find("cannot launch kernel 'add'"), std::string::npos) << e;
    EXPECT_NE(e.find(c.message), std::string::npos) << e;
  }
  // The grid and null pointers as for Kernel::launch.
  EXPECT_NE(errorOf([&] { k.launch({0}, fakeArgs()); }).find("grid x is 0"), std::string::npos);
  auto null = fakeArgs();
  null[0] = tilec::Arg::pointer(nullptr, tilec::ScalarType::FP32);
  EXPECT_NE(errorOf([&] { k.launch({4}, null); }).find("argument 'x_ptr' is a null pointer"),
            std::string::npos);
}

TEST(CompiledLaunchArgs, EqualsOneIsACompiledConstant) {
  tilec::CompiledKernel k = compiledAdd("*fp32,*fp32,*fp32,i32:1");
  std::string e = errorOf([&] { k.launch({4}, fakeArgs(5)); });
  EXPECT_NE(e.find("argument 'n' is 5, and its signature entry i32:1 compiled it as the "
                   "constant 1"),
            std::string::npos)
      << e;
}

TEST(CompiledLaunchArgs, IntegersMustFitTheirEntry) {
  using S = tilec::ScalarType;
  tilec::Kernel k = tilec::Library::fromString(kSource, "launch_args.py").kernel("store_value");
  struct Case {
    const char *signature;
    S element; ///< of the pointer
    tilec::Arg value;
    const char *message; ///< null: accepted (the driver is the next failure)
  } cases[] = {
      {"*u8:16,u8", S::U8, tilec::Arg(300), "argument 'v' is 300, which does not fit the u8"},
      {"*u8:16,u8", S::U8, tilec::Arg(-1), "argument 'v' is -1, which does not fit the u8"},
      {"*i8:16,i8", S::I8, tilec::Arg(-128), nullptr},
      {"*u32:16,u32", S::U32, tilec::Arg(uint32_t(4000000000u)), nullptr},
      {"*i32:16,i32", S::I32, tilec::Arg(uint32_t(4000000000u)), "does not fit the i32"},
      {"*i1:16,i1", S::I1, tilec::Arg(2), "argument 'v' is 2, which does not fit the i1"},
      {"*i64:16,i64", S::I64, tilec::Arg(-5), nullptr},
  };
  for (const Case &c : cases) {
    tilec::CompiledKernel compiled = k.compile(c.signature);
    std::string e = errorOf([&] { compiled.launch({1}, {fakePointer(0x10000, c.element), c.value}); });
    if (c.message)
      EXPECT_NE(e.find(c.message), std::string::npos) << c.signature << ": " << e;
    else
      EXPECT_EQ(e.find("argument 'v'"), std::string::npos) << c.signature << ": " << e;
  }
}

TEST(CompiledLaunchArgs, EmptyCompiledKernelIsRefused) {
  tilec::CompiledKernel empty;
  std::string e = errorOf([&] { empty.launch({1}, fakeArgs()); });
  EXPECT_NE(e.find("empty CompiledKernel"), std::string::npos) << e;
}

TEST(CompiledLaunchArgs, LaunchesOnTheGpuWithWidenedArguments) {
  if (!haveGpu())
    GTEST_SKIP() << "needs a CUDA driver and a GPU";
  const int n = 1000;
  std::vector<float> x(n), y(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * float(i);
    y[i] = std::sin(float(i));
  }
  tilec::Buffer bx = tilec::Buffer::allocate(n * 4), by = tilec::Buffer::allocate(n * 4),
                bo = tilec::Buffer::allocate(n * 4);
  bx.copyFromHost(x.data(), n * 4);
  by.copyFromHost(y.data(), n * 4);
  bo.fill(0);
  // An i64 entry takes an i32 value (widened); no `:16` on n = 1000.
  tilec::CompiledKernel k = addKernel().compile("*fp32:16,*fp32:16,*fp32:16,i64", {{"BLOCK", 256}},
                                                4, tilec::defaultTarget());
  k.launch({tilec::cdiv(n, 256)}, {tilec::Arg(bx, "fp32"), tilec::Arg(by, "fp32"),
                                   tilec::Arg(bo, "fp32"), n});
  bo.copyToHost(out.data(), n * 4);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;

  // An i32 value for an i64 entry is widened with its sign (not zero-filled).
  tilec::Kernel store = tilec::Library::fromString(kSource, "launch_args.py").kernel("store_value");
  tilec::Buffer cell = tilec::Buffer::allocate(8);
  cell.fill(0);
  store.compile("*i64:16,i64", {}, 4, tilec::defaultTarget())
      .launch({1}, {tilec::Arg(cell, "i64"), -5});
  int64_t got = 0;
  cell.copyToHost(&got, 8);
  EXPECT_EQ(got, -5);
}

TEST(LaunchArgs, AutotuningChecksLikeALaunchBeforeTiming) {
  tilec::Config c;
  c.constexprs = {{"BLOCK", 256}};
  std::vector<tilec::Arg> args{fakePointer(0x10000), fakePointer(0x20000),
                               fakePointer(0x30000), 1024};
  tilec::TuneOptions o;
  o.progress = false;
  std::string e = errorOf([&] { addKernel().tune({c}, {tilec::Grid(0)}, args, o); });
  EXPECT_NE(e.find("grid x is 0"), std::string::npos) << e;
  args.pop_back();
  e = errorOf([&] { addKernel().tune({c}, {tilec::Grid(4)}, args, o); });
  EXPECT_NE(e.find("missing 'n'"), std::string::npos) << e;
}

TEST(CompiledLaunchArgs, LoadPutsTheMachineCodeOnTheGpuOnce) {
  tilec::CompiledKernel k =
      addKernel().compile("*fp32:16,*fp32:16,*fp32:16,i32", {{"BLOCK", 256}}, 4,
                          tilec::defaultTarget());
  if (!haveGpu()) {
    EXPECT_EQ(k.numRegisters(), -1); // nothing loaded
    std::string e = errorOf([&] { k.load(); });
    EXPECT_NE(e.find("cannot launch kernel 'add'"), std::string::npos) << e;
    EXPECT_EQ(k.numRegisters(), -1);
    return;
  }
  k.load();
  EXPECT_GT(k.numRegisters(), 0);
  EXPECT_GE(k.spillBytes(), 0);
  int registers = k.numRegisters();
  k.load(); // a second load changes nothing
  EXPECT_EQ(k.numRegisters(), registers);
}

TEST(DeviceProperties, ReadFromTheDriverOrSayWhyNot) {
  if (!haveGpu()) {
    std::string e = errorOf([] { tilec::deviceProperties(); });
    EXPECT_EQ(e.rfind("cannot read the GPU's properties: ", 0), 0u) << e;
    return;
  }
  tilec::DeviceProperties p = tilec::deviceProperties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.computeCapability, 80);
  EXPECT_GT(p.multiprocessorCount, 0);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_GE(p.maxRegistersPerBlock, 65536);
  EXPECT_GT(p.maxSharedMemoryPerBlock, 48 * 1024);
  EXPECT_GE(p.maxThreadsPerMultiprocessor, 1024);
  EXPECT_GT(p.smClockKHz, 0);
  EXPECT_GT(p.memoryBusWidthBits, 0);
  EXPECT_GT(p.l2CacheBytes, 0);
  // The ordinal given reads the same device.
  EXPECT_EQ(tilec::deviceProperties(p.ordinal).name, p.name);
  std::string e = errorOf([] { tilec::deviceProperties(1000); });
  EXPECT_EQ(e.rfind("cannot read the GPU's properties: ", 0), 0u) << e;
}
