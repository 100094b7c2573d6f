// The launcher's part of TMA (runtime/JIT/TensorMaps.h): a spec and a
// launch's arguments become the driver's arrays (innermost dimension first,
// strides in bytes), values TMA cannot take are refused by name, and the
// cache encodes each distinct set of values once, keeping the 16 most
// recently used per map, from any number of threads. Without a GPU: a
// stand-in encoder records what it was given. GpuTensorMaps.* encode with
// the driver for a real allocation (skipped without one, or before sm_90).
#include "runtime/JIT/TensorMaps.h"

#include "runtime/Device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace tilec;
using namespace tilec::jit;
using runtime::EncodedTensorMap;
using runtime::TensorMapArguments;

namespace {

constexpr auto arg = TensorMapSpec::Operand::argument;
constexpr auto constant = TensorMapSpec::Operand::constant;

/// A's descriptor in matmul(a, b, c, M, N, K, stride_am): fp16, sizes
/// [M, K], strides [stride_am, 1], box 128 x 64, 128-byte swizzle.
TensorMapSpec matrixSpec() {
  TensorMapSpec spec;
  spec.base = 0;
  spec.sizes = {arg(3), arg(5)};
  spec.strides = {arg(6), constant(1)};
  spec.box = {128, 64};
  spec.dataType = 6; // FLOAT16
  spec.elementBytes = 2;
  spec.swizzleBytes = 128;
  return spec;
}

const std::vector<std::string> kNames = {"a", "b", "c", "M", "N", "K", "stride_am"};

ParamNames namesOf(const std::vector<std::string> &names) {
  ParamNames refs;
  for (const std::string &n : names)
    refs.push_back(&n);
  return refs;
}

constexpr uint64_t kBase = 0x7f0000001000; // 16-byte aligned, never dereferenced

std::vector<Arg> matmulArgs(int32_t m, int32_t k, int64_t strideAm, uint64_t base = kBase) {
  return {Arg::pointer(reinterpret_cast<void *>(base), ScalarType::FP16),
          Arg::pointer(reinterpret_cast<void *>(kBase + 0x100000), ScalarType::FP16),
          Arg::pointer(reinterpret_cast<void *>(kBase + 0x200000), ScalarType::FP32),
          Arg(m),
          Arg(int32_t(256)),
          Arg(k),
          Arg(strideAm)};
}

/// The Error a conversion of `args` throws; fails the test when none does.
std::string errorOf(const TensorMapSpec &spec, const std::vector<Arg> &args) {
  ParamNames names = namesOf(kNames);
  try {
    TensorMapValues v = tensorMapValues(spec, 0, args.data(), args.size(), "matmul", names);
    tensorMapArguments(spec, 0, v, "matmul", names);
  } catch (const Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no Error for " << spec.str();
  return "";
}

TensorMapArguments argumentsOf(const TensorMapSpec &spec, const std::vector<Arg> &args) {
  ParamNames names = namesOf(kNames);
  TensorMapValues v = tensorMapValues(spec, 0, args.data(), args.size(), "matmul", names);
  return tensorMapArguments(spec, 0, v, "matmul", names);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(TensorMapArguments, ReverseTheDimensionsAndCountStridesInBytes) {
  TensorMapArguments a = argumentsOf(matrixSpec(), matmulArgs(1000, 96, 104));
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.globalAddress, kBase);
  // Innermost first: K, then M.
  EXPECT_EQ(a.globalDim[0], 96u);
  EXPECT_EQ(a.globalDim[1], 1000u);
  // The stride of dimension 1 (M's rows), in bytes: 104 fp16 elements.
  EXPECT_EQ(a.globalStrides[0], 208u);
  EXPECT_EQ(a.boxDim[0], 64u);
  EXPECT_EQ(a.boxDim[1], 128u);
  EXPECT_EQ(a.elementStrides[0], 1u);
  EXPECT_EQ(a.elementStrides[1], 1u);
  EXPECT_EQ(a.dataType, 6);
  EXPECT_EQ(a.interleave, 0);        // CU_TENSOR_MAP_INTERLEAVE_NONE
  EXPECT_EQ(a.swizzle, 3);           // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(a.l2Promotion, 3);       // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
  EXPECT_EQ(a.oobFill, 0);           // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
}

TEST(TensorMapArguments, ThreeDimensionsWithConstants) {
  // x[B, H, D] (fp32): B the constant 4, H and D from arguments 3 and 4;
  // strides [arguments 6 and 5, 1]: rows of 40 elements, D = 36 of them.
  TensorMapSpec spec;
  spec.base = 1;
  spec.sizes = {constant(4), arg(3), arg(4)};
  spec.strides = {arg(6), arg(5), constant(1)};
  spec.box = {1, 16, 32};
  spec.dataType = 7; // FLOAT32
  spec.elementBytes = 4;
  spec.swizzleBytes = 0;
  spec.nanFill = true;
  std::vector<Arg> args = matmulArgs(/*H*/ 12, /*row stride*/ 40, /*B's stride*/ 12 * 40);
  args[4] = Arg(int32_t(36)); // D
  TensorMapArguments a = argumentsOf(spec, args);
  EXPECT_EQ(a.rank, 3u);
  EXPECT_EQ(a.globalAddress, kBase + 0x100000);
  EXPECT_EQ(a.globalDim[0], 36u);
  EXPECT_EQ(a.globalDim[1], 12u);
  EXPECT_EQ(a.globalDim[2], 4u);
  EXPECT_EQ(a.globalStrides[0], 160u);       // H's stride
  EXPECT_EQ(a.globalStrides[1], 12u * 40 * 4); // B's stride
  EXPECT_EQ(a.boxDim[0], 32u);
  EXPECT_EQ(a.boxDim[1], 16u);
  EXPECT_EQ(a.boxDim[2], 1u);
  EXPECT_EQ(a.swizzle, 0);
  EXPECT_EQ(a.oobFill, 1); // NAN_REQUEST_ZERO_FMA
}

TEST(TensorMapArguments, SwizzleCodes) {
  const std::pair<unsigned, int> codes[] = {{0, 0}, {32, 1}, {64, 2}, {128, 3}};
  for (auto [bytes, code] : codes) {
    TensorMapSpec spec = matrixSpec();
    spec.swizzleBytes = bytes;
    EXPECT_EQ(argumentsOf(spec, matmulArgs(64, 64, 64)).swizzle, code) << bytes;
  }
}

TEST(TensorMapArguments, LargestSizesAndStridesTMATakes) {
  TensorMapSpec spec = matrixSpec();
  std::vector<Arg> args = matmulArgs(1, 1, 64);
  args[3] = Arg(int64_t(1) << 32); // M: 2^32 elements, the most
  args[6] = Arg((int64_t(1) << 39) - 8); // 2^40 - 16 bytes
  TensorMapArguments a = argumentsOf(spec, args);
  EXPECT_EQ(a.globalDim[1], uint64_t(1) << 32);
  EXPECT_EQ(a.globalStrides[0], (uint64_t(1) << 40) - 16);
}

TEST(TensorMapArguments, AnEmptyTensorIsRefusedByName) {
  std::string e = errorOf(matrixSpec(), matmulArgs(0, 64, 64));
  EXPECT_TRUE(contains(e, "cannot launch kernel 'matmul'")) << e;
  EXPECT_TRUE(contains(e, "tensor map 0")) << e;
  EXPECT_TRUE(contains(e, "argument 'a'")) << e;
  EXPECT_TRUE(contains(e, "argument 'M', is 0")) << e;
  EXPECT_TRUE(contains(e, "TMA cannot describe an empty tensor")) << e;
}

TEST(TensorMapArguments, SizesOutOfRangeAreRefused) {
  std::string e = errorOf(matrixSpec(), matmulArgs(64, -3, 64));
  EXPECT_TRUE(contains(e, "argument 'K', is -3, negative")) << e;
  std::vector<Arg> args = matmulArgs(64, 64, 64);
  args[3] = Arg((int64_t(1) << 32) + 1);
  e = errorOf(matrixSpec(), args);
  EXPECT_TRUE(contains(e, "argument 'M'")) << e;
  EXPECT_TRUE(contains(e, "2^32")) << e;
}

TEST(TensorMapArguments, StridesMustBeMultiplesOf16Bytes) {
  // 100 fp16 elements are 200 bytes.
  std::string e = errorOf(matrixSpec(), matmulArgs(64, 64, 100));
  EXPECT_TRUE(contains(e, "cannot launch kernel 'matmul'")) << e;
  EXPECT_TRUE(contains(e, "argument 'stride_am', is 100 elements (200 bytes)")) << e;
  EXPECT_TRUE(contains(e, "not a multiple of 16 bytes")) << e;
  e = errorOf(matrixSpec(), matmulArgs(64, 64, -64));
  EXPECT_TRUE(contains(e, "cannot be negative")) << e;
  // 0 is a multiple of 16, which the driver takes: every row is row 0.
  EXPECT_EQ(argumentsOf(matrixSpec(), matmulArgs(64, 64, 0)).globalStrides[0], 0u);
  e = errorOf(matrixSpec(), matmulArgs(64, 64, int64_t(1) << 39));
  EXPECT_TRUE(contains(e, "2^40")) << e;
}

TEST(TensorMapArguments, TheInnermostStrideMustBe1) {
  TensorMapSpec spec = matrixSpec();
  spec.strides = {arg(6), arg(4)};
  std::vector<Arg> args = matmulArgs(64, 64, 64);
  args[4] = Arg(int32_t(2));
  std::string e = errorOf(spec, args);
  EXPECT_TRUE(contains(e, "innermost")) << e;
  EXPECT_TRUE(contains(e, "argument 'N', is 2")) << e;
  args[4] = Arg(int32_t(1));
  EXPECT_EQ(argumentsOf(spec, args).globalDim[0], 64u);
}

TEST(TensorMapArguments, TheBaseMustBe16ByteAligned) {
  std::string e = errorOf(matrixSpec(), matmulArgs(64, 64, 64, kBase + 8));
  EXPECT_TRUE(contains(e, "argument 'a'")) << e;
  EXPECT_TRUE(contains(e, "0x7f0000001008")) << e;
  EXPECT_TRUE(contains(e, "not 16-byte aligned")) << e;
}

TEST(TensorMapValues, ReadIntegersAsTheLaunchPassesThem) {
  std::vector<Arg> args = matmulArgs(-1, 64, int64_t(1) << 33);
  ParamNames names = namesOf(kNames);
  TensorMapValues v =
      tensorMapValues(matrixSpec(), 0, args.data(), args.size(), "matmul", names);
  EXPECT_EQ(v.base, kBase);
  EXPECT_EQ(v.sizes[0], -1); // an i32 is sign-extended
  EXPECT_EQ(v.sizes[1], 64);
  EXPECT_EQ(v.strides[0], int64_t(1) << 33);
  EXPECT_EQ(v.strides[1], 1);
  EXPECT_EQ(v.sizes[2], 0); // past the rank
  EXPECT_TRUE(v == tensorMapValues(matrixSpec(), 0, args.data(), args.size(), "matmul",
                                   names));
  args[6] = Arg(int64_t(64));
  EXPECT_TRUE(v != tensorMapValues(matrixSpec(), 0, args.data(), args.size(), "matmul",
                                   names));
}

TEST(TensorMapValues, ASpecThatDoesNotMatchTheArgumentsIsAnError) {
  std::vector<Arg> args = matmulArgs(64, 64, 64);
  ParamNames names = namesOf(kNames);
  auto error = [&](const TensorMapSpec &spec) -> std::string {
    try {
      tensorMapValues(spec, 0, args.data(), args.size(), "matmul", names);
    } catch (const Error &e) {
      return e.what();
    }
    return "";
  };
  TensorMapSpec spec = matrixSpec();
  spec.base = 3; // M, an integer
  EXPECT_TRUE(contains(error(spec), "not a pointer")) << error(spec);
  spec = matrixSpec();
  spec.sizes[0] = arg(1); // b, a pointer
  EXPECT_TRUE(contains(error(spec), "argument 'b', which is not an integer")) << error(spec);
  spec = matrixSpec();
  spec.strides[0] = arg(9);
  EXPECT_TRUE(contains(error(spec), "argument #10, and the launch has 7")) << error(spec);
  spec = matrixSpec();
  spec.box.push_back(16); // rank 3, two sizes
  EXPECT_TRUE(contains(error(spec), "malformed")) << error(spec);
}

//===----------------------------------------------------------------------===//
// The cache, with a stand-in encoder
//===----------------------------------------------------------------------===//

std::atomic<int> fakeEncodings{0};

/// Writes what it was given into the map: the address, the sizes and the
/// first stride, so that a test can tell which values a map came from.
void fakeEncoder(const TensorMapArguments &a, EncodedTensorMap &out) {
  ++fakeEncodings;
  std::memset(&out, 0, sizeof out);
  out.words[0] = a.globalAddress;
  out.words[1] = a.globalDim[0];
  out.words[2] = a.globalDim[1];
  out.words[3] = a.globalStrides[0];
}

void failingEncoder(const TensorMapArguments &, EncodedTensorMap &) {
  throw runtime::CudaError("cuTensorMapEncodeTiled (...) failed: CUDA_ERROR_INVALID_VALUE", 1);
}

EncodedTensorMap getMap(const TensorMapCache &cache, const std::vector<Arg> &args,
                        size_t index = 0) {
  ParamNames names = namesOf(kNames);
  EncodedTensorMap out;
  cache.get(index, args.data(), args.size(), "matmul", names, out);
  return out;
}

TEST(TensorMapCache, EncodesEachDistinctSetOfValuesOnce) {
  TensorMapCache cache({matrixSpec()}, &fakeEncoder);
  EncodedTensorMap m = getMap(cache, matmulArgs(1000, 96, 104));
  EXPECT_EQ(cache.encodings(), 1u);
  EXPECT_EQ(m.words[0], kBase);
  EXPECT_EQ(m.words[1], 96u);
  EXPECT_EQ(m.words[2], 1000u);
  EXPECT_EQ(m.words[3], 208u);
  for (int i = 0; i < 10; ++i) {
    EncodedTensorMap again = getMap(cache, matmulArgs(1000, 96, 104));
    EXPECT_EQ(std::memcmp(&m, &again, sizeof m), 0);
  }
  EXPECT_EQ(cache.encodings(), 1u);
  // Every value that feeds the map is part of the key.
  getMap(cache, matmulArgs(1001, 96, 104));
  getMap(cache, matmulArgs(1000, 104, 104));
  getMap(cache, matmulArgs(1000, 96, 112));
  getMap(cache, matmulArgs(1000, 96, 104, kBase + 0x40));
  EXPECT_EQ(cache.encodings(), 5u);
  // N (argument 4) does not feed this map: no new encoding.
  std::vector<Arg> args = matmulArgs(1000, 96, 104);
  args[4] = Arg(int32_t(512));
  getMap(cache, args);
  EXPECT_EQ(cache.encodings(), 5u);
}

TEST(TensorMapCache, EachSpecHasItsOwnSlots) {
  TensorMapSpec b = matrixSpec();
  b.base = 1;
  TensorMapCache cache({matrixSpec(), b}, &fakeEncoder);
  std::vector<Arg> args = matmulArgs(64, 64, 64);
  EXPECT_EQ(getMap(cache, args, 0).words[0], kBase);
  EXPECT_EQ(getMap(cache, args, 1).words[0], kBase + 0x100000);
  EXPECT_EQ(getMap(cache, args, 0).words[0], kBase);
  EXPECT_EQ(cache.encodings(), 2u);
}

TEST(TensorMapCache, KeepsTheSixteenMostRecentlyUsed) {
  static_assert(TensorMapCache::kSlotsPerMap == 16, "the test fills 16 slots");
  TensorMapCache cache({matrixSpec()}, &fakeEncoder);
  auto withM = [](int32_t m) { return matmulArgs(m, 64, 64); };
  for (int32_t m = 1; m <= 16; ++m)
    getMap(cache, withM(m));
  EXPECT_EQ(cache.encodings(), 16u);
  for (int32_t m = 1; m <= 16; ++m) // all kept
    getMap(cache, withM(m));
  EXPECT_EQ(cache.encodings(), 16u);
  getMap(cache, withM(1));  // now M = 2 is the least recently used
  getMap(cache, withM(17)); // evicts it
  EXPECT_EQ(cache.encodings(), 17u);
  getMap(cache, withM(1));
  getMap(cache, withM(17));
  EXPECT_EQ(cache.encodings(), 17u);
  EXPECT_EQ(getMap(cache, withM(2)).words[2], 2u); // encoded again
  EXPECT_EQ(cache.encodings(), 18u);
}

TEST(TensorMapCache, RefusedValuesAreNotEncodedNorKept) {
  TensorMapCache cache({matrixSpec()}, &fakeEncoder);
  ParamNames names = namesOf(kNames);
  std::vector<Arg> args = matmulArgs(0, 64, 64);
  EncodedTensorMap out;
  EXPECT_THROW(cache.get(0, args.data(), args.size(), "matmul", names, out), Error);
  EXPECT_THROW(cache.get(0, args.data(), args.size(), "matmul", names, out), Error);
  EXPECT_EQ(cache.encodings(), 0u);
}

TEST(TensorMapCache, TheDriversRefusalBecomesAnErrorNamingTheKernel) {
  TensorMapCache cache({matrixSpec()}, &failingEncoder);
  ParamNames names = namesOf(kNames);
  std::vector<Arg> args = matmulArgs(64, 64, 64);
  EncodedTensorMap out;
  try {
    cache.get(0, args.data(), args.size(), "matmul", names, out);
    ADD_FAILURE() << "no Error";
  } catch (const Error &e) {
    std::string text = e.what();
    EXPECT_TRUE(contains(text, "cannot launch kernel 'matmul': tensor map 0")) << text;
    EXPECT_TRUE(contains(text, "CUDA_ERROR_INVALID_VALUE")) << text;
  }
}

TEST(TensorMapCache, ThreadsShareIt) {
  fakeEncodings = 0;
  TensorMapCache cache({matrixSpec()}, &fakeEncoder);
  std::atomic<int> wrong{0};
  auto work = [&](int seed) {
    for (int i = 0; i < 2000; ++i) {
      int32_t m = 1 + (i + seed) % 8;
      EncodedTensorMap map = getMap(cache, matmulArgs(m, 64, 64));
      if (map.words[2] != uint64_t(m) || map.words[0] != kBase)
        ++wrong;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back(work, t);
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  // Threads missing on one value at once may each encode it; only one
  // copy is kept, so that every later launch hits.
  uint64_t settled = cache.encodings();
  EXPECT_GE(settled, 8u);
  EXPECT_EQ(settled, uint64_t(fakeEncodings.load()));
  work(0);
  EXPECT_EQ(cache.encodings(), settled);
}

//===----------------------------------------------------------------------===//
// With the driver
//===----------------------------------------------------------------------===//

// tma_tile(u32 *out, i32 x, i32 y, CUtensorMap map): one thread copies the
// 16 x 32 box of u32 at column x, row y of the map's tensor into shared
// memory with TMA (cp.async.bulk.tensor, completing on an mbarrier), then
// writes it to out, 32 per row. The map is a grid constant, as the
// compiler's kernels take theirs.
const char *const kTmaTilePTX = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry tma_tile(
	.param .u64 tma_tile_param_out,
	.param .u32 tma_tile_param_x,
	.param .u32 tma_tile_param_y,
	.param .align 64 .b8 tma_tile_param_map[128]
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<8>;
	.shared .align 8 .b64 tma_tile_bar;
	.shared .align 128 .b8 tma_tile_box[2048];

	ld.param.u64 	%rd1, [tma_tile_param_out];
	ld.param.u32 	%r1, [tma_tile_param_x];
	ld.param.u32 	%r2, [tma_tile_param_y];
	mov.u64 	%rd2, tma_tile_param_map;
	cvta.param.u64 	%rd3, %rd2;
	mov.u32 	%r3, tma_tile_bar;
	mov.u32 	%r4, tma_tile_box;
	mov.u32 	%r5, 1;
	mbarrier.init.shared.b64 	[%r3], %r5;
	fence.mbarrier_init.release.cluster;
	fence.proxy.async.shared::cta;
	mov.u32 	%r9, 2048;
	mbarrier.arrive.expect_tx.shared.b64 	%rd4, [%r3], %r9;
	cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd3, {%r1, %r2}], [%r3];
WAIT:
	mbarrier.try_wait.parity.shared.b64 	%p1, [%r3], 0;
	@!%p1 bra 	WAIT;
	cvta.to.global.u64 	%rd5, %rd1;
	mov.u32 	%r6, 0;
COPY:
	add.s32 	%r7, %r4, %r6;
	ld.shared.u32 	%r8, [%r7];
	cvt.u64.u32 	%rd6, %r6;
	add.s64 	%rd7, %rd5, %rd6;
	st.global.u32 	[%rd7], %r8;
	add.s32 	%r6, %r6, 4;
	setp.lt.u32 	%p2, %r6, 2048;
	@%p2 bra 	COPY;
	ret;
}
)";

class GpuTensorMaps : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!runtime::driverAvailable(&why))
      GTEST_SKIP() << why;
    if (runtime::Device::current().computeCapability() < 90)
      GTEST_SKIP() << "TMA needs sm_90 or later";
  }
};

TEST_F(GpuTensorMaps, EncodesARealAllocationOncePerValues) {
  const int32_t m = 256, k = 192, strideAm = 200; // 400-byte rows
  runtime::DeviceBuffer a = runtime::DeviceBuffer::allocate(size_t(m) * strideAm * 2);
  TensorMapCache cache({matrixSpec()});
  std::vector<Arg> args = matmulArgs(m, k, strideAm, reinterpret_cast<uint64_t>(a.data()));
  EncodedTensorMap map = getMap(cache, args);
  EXPECT_EQ(cache.encodings(), 1u);
  bool written = false;
  for (uint64_t w : map.words)
    written |= w != 0;
  EXPECT_TRUE(written) << "the driver wrote nothing";
  EncodedTensorMap again = getMap(cache, args);
  EXPECT_EQ(cache.encodings(), 1u);
  EXPECT_EQ(std::memcmp(&map, &again, sizeof map), 0);
  // Another shape is another map.
  EncodedTensorMap smaller = getMap(cache, matmulArgs(m / 2, k, strideAm,
                                                      reinterpret_cast<uint64_t>(a.data())));
  EXPECT_EQ(cache.encodings(), 2u);
  EXPECT_NE(std::memcmp(&map, &smaller, sizeof map), 0);
}

TEST_F(GpuTensorMaps, AStrideNotAMultipleOf16IsTilecsError) {
  runtime::DeviceBuffer a = runtime::DeviceBuffer::allocate(256 * 200 * 2);
  TensorMapCache cache({matrixSpec()});
  // 100 fp16 elements: 200 bytes, which the driver would refuse too.
  std::vector<Arg> args = matmulArgs(256, 96, 100, reinterpret_cast<uint64_t>(a.data()));
  ParamNames names = namesOf(kNames);
  EncodedTensorMap out;
  try {
    cache.get(0, args.data(), args.size(), "matmul", names, out);
    ADD_FAILURE() << "no Error";
  } catch (const Error &e) {
    std::string text = e.what();
    EXPECT_TRUE(contains(text, "cannot launch kernel 'matmul'")) << text;
    EXPECT_TRUE(contains(text, "argument 'stride_am'")) << text;
    EXPECT_TRUE(contains(text, "not a multiple of 16 bytes")) << text;
  }
  EXPECT_EQ(cache.encodings(), 0u);
}

// The whole chain on the GPU: a spec (outermost first, as the compiler
// writes it) and a launch's arguments, through the cache and the driver,
// into a kernel that copies a box with TMA. The tensor is 40 rows of 48
// u32 in rows of 64 (the last 16 of each row are not the tensor's); a box
// that crosses the 48th column or the 40th row reads zeros there, which
// only dimensions in the driver's order (innermost first) and a row stride
// in bytes give.
TEST_F(GpuTensorMaps, ATileCopiedThroughTheMapIsTheTensorsBox) {
  const int32_t rows = 40, cols = 48;
  const int64_t rowStride = 64;
  std::vector<uint32_t> host(size_t(rows) * rowStride);
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < rowStride; ++c)
      host[size_t(r) * rowStride + c] = c < cols ? uint32_t(r * 1000 + c) : 0xdeadu;
  runtime::DeviceBuffer in = runtime::DeviceBuffer::allocate(host.size() * 4);
  in.copyFromHost(host.data(), host.size() * 4);
  runtime::DeviceBuffer out = runtime::DeviceBuffer::allocate(16 * 32 * 4);

  TensorMapSpec spec;
  spec.base = 0;
  spec.sizes = {arg(1), arg(2)};
  spec.strides = {arg(3), constant(1)};
  spec.box = {16, 32};
  spec.dataType = 2; // UINT32
  spec.elementBytes = 4;
  spec.swizzleBytes = 0;
  const std::vector<std::string> names = {"in", "rows", "cols", "row_stride"};
  ParamNames refs = namesOf(names);
  std::vector<Arg> args = {Arg::pointer(in.data(), ScalarType::U32), Arg(rows), Arg(cols),
                           Arg(rowStride)};
  TensorMapCache cache({spec});
  EncodedTensorMap map;
  cache.get(0, args.data(), args.size(), "tma_tile", refs, map);

  std::unique_ptr<runtime::Module> module = runtime::Module::loadPTX(kTmaTilePTX, "tma_tile");
  const int32_t corners[][2] = {{0, 0}, {24, 30}, {8, 4}};
  for (auto [x, y] : corners) {
    out.fill(0xab);
    void *o = out.data();
    int32_t cx = x, cy = y;
    void *params[] = {&o, &cx, &cy, &map};
    runtime::LaunchDims dims;
    dims.block[0] = 1;
    runtime::launch(*module, dims, params);
    runtime::synchronize();
    std::vector<uint32_t> box(16 * 32);
    out.copyToHost(box.data(), box.size() * 4);
    for (int32_t i = 0; i < 16; ++i)
      for (int32_t j = 0; j < 32; ++j) {
        int32_t r = y + i, c = x + j;
        uint32_t expected = r < rows && c < cols ? uint32_t(r * 1000 + c) : 0u;
        ASSERT_EQ(box[size_t(i) * 32 + j], expected)
            << "box at column " << x << ", row " << y << ": element (" << i << ", " << j
            << ")";
      }
  }
}

} // namespace
