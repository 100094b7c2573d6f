// Kernels whose loads and stores want different layouts, on a GPU: the
// transposes (by addresses, and by tl.trans) move their tiles between
// layouts by warp shuffles (small tiles in one warp) or through swizzled
// shared memory, and scale_columns walks down a matrix with loop-carried
// pointers. Every element is
// checked exactly (these kernels only move data, or multiply by a power
// of two), outputs are poisoned first and padding must stay untouched.
// Label gpu.
#include "tests/unit/jit/GpuTest.h"
#include "runtime/Device.h"
#include "tests/unit/jit/HalfFloat.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

namespace {
std::string kernelPath(const char *file) {
  const char *dir = std::getenv("TILEC_KERNELS_DIR");
  return std::string(dir ? dir : TILEC_KERNELS_DIR) + "/" + file;
}

/// Pseudo-random bytes that are finite values in fp32 and bf16 alike.
std::vector<uint8_t> randomElements(size_t n, size_t bytes, uint64_t seed) {
  std::vector<uint8_t> data(n * bytes);
  uint64_t state = 0x9E3779B97F4A7C15ull ^ seed;
  for (size_t i = 0; i < n; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    float f = float(int32_t(state >> 40)) / float(1 << 20);
    if (bytes == 4) {
      std::memcpy(&data[i * 4], &f, 4);
    } else {
      uint16_t h = tilec::test::toBF16(f);
      std::memcpy(&data[i * 2], &h, 2);
    }
  }
  return data;
}

struct Case {
  const char *dtype;
  int m, n;       ///< the input matrix
  int blockM, blockN, warps;
};

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  const Case &c = info.param;
  return std::string(c.dtype) + "_" + std::to_string(c.m) + "x" + std::to_string(c.n) +
         "_b" + std::to_string(c.blockM) + "x" + std::to_string(c.blockN) + "_w" +
         std::to_string(c.warps);
}

class GpuLayoutKernels : public tilec::test::GpuKernelTest<Case> {};

TEST_P(GpuLayoutKernels, TransposeMovesEveryElement) {
  const Case c = GetParam();
  size_t eb = bytes();
  // Rows padded to a multiple of 16 elements, so the :16 facts hold.
  int strideX = (c.n + 15) / 16 * 16, strideOut = (c.m + 15) / 16 * 16;
  size_t inElems = size_t(c.m) * strideX, outElems = size_t(c.n) * strideOut;
  std::vector<uint8_t> x = randomElements(inElems, eb, c.m * 31 + c.n);
  // By the store's addresses, and by tl.trans (Triton's idiom).
  for (const char *kernel : {"transpose", "transpose_trans"}) {
    SCOPED_TRACE(kernel);
    auto in = tilec::Buffer::allocate(x.size());
    auto out = tilec::Buffer::allocate(outElems * eb);
    in.copyFromHost(x.data(), x.size());
    out.fill(0xa5);
    tilec::LaunchOptions options;
    options.numWarps = c.warps;
    tilec::Library::fromFile(kernelPath("tile_ops.py"))
        .kernel(kernel)
        .launch({unsigned(tilec::cdiv(c.m, c.blockM)), unsigned(tilec::cdiv(c.n, c.blockN))},
                {{in, c.dtype}, {out, c.dtype}, int32_t(c.m), int32_t(c.n),
                 int32_t(strideX), int32_t(strideOut)},
                {{"BLOCK_M", c.blockM}, {"BLOCK_N", c.blockN}}, options);
    std::vector<uint8_t> result(outElems * eb);
    out.copyToHost(result.data(), result.size());
    size_t bad = 0;
    for (int j = 0; j < c.n; ++j)
      for (int i = 0; i < strideOut; ++i) {
        const uint8_t *got = &result[(size_t(j) * strideOut + i) * eb];
        if (i < c.m) {
          bad += std::memcmp(got, &x[(size_t(i) * strideX + j) * eb], eb) != 0;
        } else {
          for (size_t b = 0; b < eb; ++b)
            bad += got[b] != 0xa5; // padding untouched
        }
      }
    EXPECT_EQ(bad, 0u);
  }
}

TEST_P(GpuLayoutKernels, TransposeAddMatchesTheHost) {
  const Case c = GetParam();
  if (c.blockM != c.blockN || std::string(c.dtype) != "fp32")
    GTEST_SKIP() << "transpose_add: square fp32 tiles";
  int n = c.m, stride = (n + 15) / 16 * 16;
  size_t elems = size_t(n) * stride;
  std::vector<uint8_t> xb = randomElements(elems, 4, n), yb = randomElements(elems, 4, n + 1);
  auto x = tilec::Buffer::allocate(xb.size()), y = tilec::Buffer::allocate(yb.size());
  auto out = tilec::Buffer::allocate(elems * 4);
  x.copyFromHost(xb.data(), xb.size());
  y.copyFromHost(yb.data(), yb.size());
  out.fill(0xa5);
  tilec::LaunchOptions options;
  options.numWarps = c.warps;
  tilec::Library::fromFile(kernelPath("tile_ops.py"))
      .kernel("transpose_add")
      .launch({unsigned(tilec::cdiv(n, c.blockM)), unsigned(tilec::cdiv(n, c.blockM))},
              {{x, "fp32"}, {y, "fp32"}, {out, "fp32"}, int32_t(n), int32_t(stride)},
              {{"BLOCK", c.blockM}}, options);
  std::vector<float> got(elems), xf(elems), yf(elems);
  out.copyToHost(got.data(), elems * 4);
  std::memcpy(xf.data(), xb.data(), xb.size());
  std::memcpy(yf.data(), yb.data(), yb.size());
  size_t bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      bad += got[size_t(i) * stride + j] != xf[size_t(i) * stride + j] + yf[size_t(j) * stride + i];
  EXPECT_EQ(bad, 0u);
}

TEST_P(GpuLayoutKernels, ScaleColumnsWalksDownTheRows) {
  const Case c = GetParam();
  size_t eb = bytes();
  int stride = (c.n + 15) / 16 * 16;
  size_t elems = size_t(c.m) * stride;
  std::vector<uint8_t> x = randomElements(elems, eb, c.m + 7 * c.n);
  auto in = tilec::Buffer::allocate(x.size());
  auto out = tilec::Buffer::allocate(x.size());
  in.copyFromHost(x.data(), x.size());
  out.fill(0xa5);
  tilec::LaunchOptions options;
  options.numWarps = c.warps;
  tilec::Library::fromFile(kernelPath("tile_ops.py"))
      .kernel("scale_columns")
      .launch({unsigned(tilec::cdiv(c.n, c.blockN))},
              {{in, c.dtype}, {out, c.dtype}, int32_t(c.m), int32_t(c.n), int32_t(stride),
               2.0f},
              {{"BLOCK_M", c.blockM}, {"BLOCK_N", c.blockN}}, options);
  std::vector<uint8_t> result(x.size());
  out.copyToHost(result.data(), result.size());
  size_t bad = 0;
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < stride; ++j) {
      size_t k = size_t(i) * stride + j;
      if (j >= c.n) {
        for (size_t b = 0; b < eb; ++b)
          bad += result[k * eb + b] != 0xa5;
        continue;
      }
      // Doubling is exact in both formats (no overflow at these values).
      if (eb == 4) {
        float a, b;
        std::memcpy(&a, &x[k * 4], 4);
        std::memcpy(&b, &result[k * 4], 4);
        bad += b != 2.0f * a;
      } else {
        uint16_t a, b;
        std::memcpy(&a, &x[k * 2], 2);
        std::memcpy(&b, &result[k * 2], 2);
        bad += tilec::test::fromBF16(b) != 2.0 * tilec::test::fromBF16(a);
      }
    }
  EXPECT_EQ(bad, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuLayoutKernels,
    ::testing::Values(
        // One warp holding a small tile: the conversion is warp shuffles.
        Case{"fp32", 4, 8, 4, 8, 1}, Case{"fp32", 37, 21, 4, 8, 1},
        // Shared memory, scalar accesses on both sides (fp32).
        Case{"fp32", 64, 64, 64, 64, 4}, Case{"fp32", 1000, 300, 64, 64, 4},
        Case{"fp32", 129, 257, 32, 32, 8}, Case{"fp32", 65, 33, 16, 16, 4},
        // 16-byte vectors on one side (bf16).
        Case{"bf16", 64, 64, 64, 64, 4}, Case{"bf16", 333, 1000, 64, 64, 4},
        Case{"bf16", 1, 1, 32, 32, 4}),
    caseName);
} // namespace
