// Kernels that rearrange tiles with tl.trans, tl.permute, tl.reshape and
// x.T, on a GPU. The results' layouts are the operands' rearranged (often
// #tilegpu.linear, with copies when the tile is smaller than the CTA);
// every element is checked exactly against numpy's index arithmetic
// (these kernels only move data, or double it), over several programs,
// both element widths and 1, 4 and 8 warps. Label gpu.
#include "tests/unit/jit/GpuTest.h"
#include "runtime/Device.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *kSource = R"(
import tilec.language as tl


def permute_flat(x, out, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                 P0: tl.constexpr, P1: tl.constexpr, P2: tl.constexpr):
    # out = x.reshape(A, B, C).transpose(P).ravel(), per program.
    offs = tl.program_id(0) * (A * B * C) + tl.arange(0, A * B * C)
    t = tl.load(x + offs).reshape(A, B, C)
    tl.store(out + offs, tl.permute(t, P0, P1, P2).reshape(A * B * C))


def reshape_transpose(x, out, M: tl.constexpr, N: tl.constexpr):
    # out (N x M) = x.reshape(M, N).T, per program.
    base = tl.program_id(0) * (M * N)
    t = tl.trans(tl.load(x + base + tl.arange(0, M * N)).reshape(M, N))
    rows = tl.arange(0, N)
    cols = tl.arange(0, M)
    tl.store(out + base + rows[:, None] * M + cols[None, :], t)


def trans_columns(x, out, M: tl.constexpr, N: tl.constexpr):
    # out = 2 * x, through the transposed tile stored at transposed
    # addresses (no data moves between threads).
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    offs = tl.program_id(0) * (M * N) + rows[:, None] * N + cols[None, :]
    tile = tl.load(x + offs)
    tl.store(out + offs.T, tile.T * 2)


def scan_reduce_transposed(x, out, sums, M: tl.constexpr, N: tl.constexpr):
    # The running sum of x.reshape(M, N).T.ravel(), and the sums of the
    # transposed tile's rows (x's columns), per program: a scan and a
    # reduction over layouts that trans and reshape made.
    base = tl.program_id(0) * (M * N)
    t = tl.trans(tl.load(x + base + tl.arange(0, M * N)).reshape(M, N))
    tl.store(out + base + tl.arange(0, M * N), tl.cumsum(t.reshape(M * N), axis=0))
    tl.store(sums + tl.program_id(0) * N + tl.arange(0, N), tl.sum(t, axis=1))
)";

struct Case {
  const char *dtype;
  std::array<int, 3> shape; ///< A, B, C (the 2-D kernels use A x (B * C))
  int warps;
};

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  const Case &c = info.param;
  return std::string(c.dtype) + "_" + std::to_string(c.shape[0]) + "x" +
         std::to_string(c.shape[1]) + "x" + std::to_string(c.shape[2]) + "_w" +
         std::to_string(c.warps);
}

/// Distinct, exactly doubled elements: fp32 holds small integers, bf16 the
/// integers below 256 (8 significant bits), both as bit patterns.
std::vector<uint8_t> elements(size_t n, size_t bytes) {
  std::vector<uint8_t> data(n * bytes);
  for (size_t i = 0; i < n; ++i) {
    float f = float(i % (bytes == 4 ? 100000 : 256)) - 50.0f;
    if (bytes == 4) {
      std::memcpy(&data[i * 4], &f, 4);
    } else {
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t h = uint16_t(bits >> 16); // exact: 8 significant bits
      std::memcpy(&data[i * 2], &h, 2);
    }
  }
  return data;
}

class GpuShapeKernels : public tilec::test::GpuKernelTest<Case> {
protected:
  /// Runs `kernel` over `programs` tiles of `x`; returns the output.
  std::vector<uint8_t> run(const std::string &kernel, const std::vector<uint8_t> &x,
                           unsigned programs, tilec::Constexprs constexprs) {
    auto in = tilec::Buffer::allocate(x.size());
    auto out = tilec::Buffer::allocate(x.size());
    in.copyFromHost(x.data(), x.size());
    out.fill(0xa5);
    tilec::LaunchOptions options;
    options.numWarps = GetParam().warps;
    tilec::Library::fromString(kSource, "shape_kernels.py")
        .kernel(kernel)
        .launch({programs}, {{in, GetParam().dtype}, {out, GetParam().dtype}}, constexprs,
                options);
    std::vector<uint8_t> result(x.size());
    out.copyToHost(result.data(), result.size());
    return result;
  }
};

constexpr unsigned kPrograms = 3;

TEST_P(GpuShapeKernels, EveryPermutationOfA3DTile) {
  const Case c = GetParam();
  size_t eb = bytes(), n = size_t(c.shape[0]) * c.shape[1] * c.shape[2];
  std::vector<uint8_t> x = elements(kPrograms * n, eb);
  std::array<int, 3> p = {0, 1, 2};
  do {
    SCOPED_TRACE("dims " + std::to_string(p[0]) + std::to_string(p[1]) +
                 std::to_string(p[2]));
    std::vector<uint8_t> got =
        run("permute_flat", x, kPrograms,
            {{"A", c.shape[0]}, {"B", c.shape[1]}, {"C", c.shape[2]}, {"P0", p[0]},
             {"P1", p[1]}, {"P2", p[2]}});
    std::array<int, 3> s = {c.shape[p[0]], c.shape[p[1]], c.shape[p[2]]};
    size_t bad = 0;
    for (unsigned prog = 0; prog < kPrograms; ++prog)
      for (int i = 0; i < s[0]; ++i)
        for (int j = 0; j < s[1]; ++j)
          for (int k = 0; k < s[2]; ++k) {
            std::array<int, 3> at = {i, j, k}, src{};
            for (int d = 0; d < 3; ++d)
              src[p[d]] = at[d];
            size_t to = prog * n + (size_t(i) * s[1] + j) * s[2] + k;
            size_t from = prog * n + (size_t(src[0]) * c.shape[1] + src[1]) * c.shape[2] + src[2];
            bad += std::memcmp(&got[to * eb], &x[from * eb], eb) != 0;
          }
    EXPECT_EQ(bad, 0u);
  } while (std::next_permutation(p.begin(), p.end()));
}

TEST_P(GpuShapeKernels, TransposeOfAReshapedVector) {
  const Case c = GetParam();
  size_t eb = bytes();
  int m = c.shape[0], nCols = c.shape[1] * c.shape[2];
  size_t n = size_t(m) * nCols;
  std::vector<uint8_t> x = elements(kPrograms * n, eb);
  std::vector<uint8_t> got = run("reshape_transpose", x, kPrograms, {{"M", m}, {"N", nCols}});
  size_t bad = 0;
  for (unsigned prog = 0; prog < kPrograms; ++prog)
    for (int j = 0; j < nCols; ++j)
      for (int i = 0; i < m; ++i)
        bad += std::memcmp(&got[(prog * n + size_t(j) * m + i) * eb],
                           &x[(prog * n + size_t(i) * nCols + j) * eb], eb) != 0;
  EXPECT_EQ(bad, 0u);
}

TEST_P(GpuShapeKernels, TransposedTileAtTransposedAddresses) {
  const Case c = GetParam();
  size_t eb = bytes();
  int m = c.shape[0], nCols = c.shape[1] * c.shape[2];
  size_t n = size_t(m) * nCols;
  std::vector<uint8_t> x = elements(kPrograms * n, eb);
  std::vector<uint8_t> got = run("trans_columns", x, kPrograms, {{"M", m}, {"N", nCols}});
  size_t bad = 0;
  for (size_t k = 0; k < kPrograms * n; ++k) {
    float a, b;
    if (eb == 4) {
      std::memcpy(&a, &x[k * 4], 4);
      std::memcpy(&b, &got[k * 4], 4);
    } else {
      uint16_t ha, hb;
      std::memcpy(&ha, &x[k * 2], 2);
      std::memcpy(&hb, &got[k * 2], 2);
      uint32_t ua = uint32_t(ha) << 16, ub = uint32_t(hb) << 16;
      std::memcpy(&a, &ua, 4);
      std::memcpy(&b, &ub, 4);
    }
    bad += b != 2.0f * a;
  }
  EXPECT_EQ(bad, 0u);
}

TEST_P(GpuShapeKernels, ScanAndReductionOfATransposedTile) {
  const Case c = GetParam();
  if (bytes() != 4)
    GTEST_SKIP() << "fp32 only: sums of integers, exact";
  int m = c.shape[0], nCols = c.shape[1] * c.shape[2];
  size_t n = size_t(m) * nCols;
  // Small integers: every partial sum is exact in fp32, in any order.
  std::vector<float> x(kPrograms * n);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i % 16) - 8);
  auto in = tilec::Buffer::allocate(x.size() * 4);
  auto out = tilec::Buffer::allocate(x.size() * 4);
  auto sums = tilec::Buffer::allocate(kPrograms * nCols * 4);
  in.copyFromHost(x.data(), x.size() * 4);
  out.fill(0xa5);
  sums.fill(0xa5);
  tilec::LaunchOptions options;
  options.numWarps = c.warps;
  tilec::Library::fromString(kSource, "shape_kernels.py")
      .kernel("scan_reduce_transposed")
      .launch({kPrograms}, {{in, "fp32"}, {out, "fp32"}, {sums, "fp32"}},
              {{"M", m}, {"N", nCols}}, options);
  std::vector<float> got(x.size()), gotSums(kPrograms * nCols);
  out.copyToHost(got.data(), got.size() * 4);
  sums.copyToHost(gotSums.data(), gotSums.size() * 4);
  size_t bad = 0;
  for (unsigned prog = 0; prog < kPrograms; ++prog) {
    const float *tile = &x[prog * n];
    double running = 0;
    for (int j = 0; j < nCols; ++j) {
      double column = 0;
      for (int i = 0; i < m; ++i) {
        running += tile[size_t(i) * nCols + j];
        column += tile[size_t(i) * nCols + j];
        bad += got[prog * n + size_t(j) * m + i] != float(running);
      }
      bad += gotSums[prog * nCols + j] != float(column);
    }
  }
  EXPECT_EQ(bad, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuShapeKernels,
    ::testing::Values(
        // Smaller than the CTA: threads hold copies, and only owners store.
        Case{"fp32", {2, 4, 8}, 4}, Case{"bf16", {2, 4, 8}, 4},
        // One warp, several registers per thread.
        Case{"fp32", {4, 8, 16}, 1}, Case{"bf16", {8, 8, 8}, 1},
        // Several tiles per CTA; bf16 moves 16-byte vectors on one side.
        Case{"fp32", {16, 8, 32}, 4}, Case{"bf16", {16, 8, 32}, 4},
        Case{"fp32", {4, 32, 16}, 8}, Case{"bf16", {32, 2, 64}, 8}),
    caseName);
} // namespace
