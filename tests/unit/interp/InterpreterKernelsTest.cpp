// Every kernel of kernels/ on the CPU interpreter, against a float64
// reference computed here on fresh random inputs, with odd shapes: one
// element, one row, non-powers of two, masked tails, padded strides.
// Output buffers are exactly as large as the kernel may write, so a lane
// that strays is an out-of-bounds error; padding is checked untouched.
#include "InterpreterTestUtil.h"

#include "../jit/HalfFloat.h"

#include <chrono>
#include <limits>

using namespace tilec;
using namespace tilec::test;
using interp::Arg;

namespace {

const float kSentinel = -12345.0f;

//===----------------------------------------------------------------------===//
// vector_add
//===----------------------------------------------------------------------===//

class VectorAdd : public ::testing::TestWithParam<int64_t> {};

TEST_P(VectorAdd, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  int64_t n = GetParam();
  std::mt19937_64 rng(testSeed() + uint64_t(n));
  auto xs = randomValues(rng, size_t(n), -10, 10), ys = randomValues(rng, size_t(n), -10, 10);
  std::vector<float> x(xs.begin(), xs.end()), y(ys.begin(), ys.end()), out(size_t(n), kSentinel);
  const int64_t block = 1024;
  auto r = interpretKernelFile("vector_add.py", "add", "*fp32,*fp32,*fp32,i32",
                               ints({{"BLOCK", block}}), {cdiv(n, block), 1, 1},
                               {Arg::ofBuffer(x), Arg::ofBuffer(y), Arg::ofBuffer(out),
                                Arg::ofInt(n)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  EXPECT_EQ(r.stats.programs, cdiv(n, block));
  EXPECT_EQ(r.stats.bytesStored, uint64_t(n) * 4);
  Closeness close{1e-6, 0};
  for (int64_t i = 0; i < n; ++i) {
    close(out[i], double(x[i]) + double(y[i]), std::to_string(i));
    // f32 addition exactly: the float sum, correctly rounded.
    EXPECT_EQ(out[i], x[i] + y[i]) << "at " << i;
  }
  EXPECT_ALL_CLOSE(close);
}

INSTANTIATE_TEST_SUITE_P(Sizes, VectorAdd, ::testing::Values(1, 1000, 4099));

TEST(VectorAddLarge, OneMillionElements) {
  // 2^20 elements, 1024 programs. The time is printed, not asserted: a
  // timed test fails on a loaded machine (the sanitizer build in CI took
  // 3.1 s beside other jobs), and speed is the benchmarks' to check.
  int64_t n = int64_t(1) << 20;
  std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.5f;
  }
  // The `:16` facts hold (vectors are 16-byte aligned, n is a multiple of 16).
  auto start = std::chrono::steady_clock::now();
  auto r = interpretKernelFile("vector_add.py", "add", "*fp32:16,*fp32:16,*fp32:16,i32:16",
                               ints({{"BLOCK", 1024}}), {1024, 1, 1},
                               {Arg::ofBuffer(x), Arg::ofBuffer(y), Arg::ofBuffer(out),
                                Arg::ofInt(n)});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << firstError(r);
  for (int64_t i = 0; i < n; i += 4097)
    ASSERT_EQ(out[i], float(i) + 0.5f);
  EXPECT_EQ(out[n - 1], float(n - 1) + 0.5f);
  std::printf("[ interp ] vector add, 2^20 elements: %.0f ms run, %.0f ms in all\n",
              r.milliseconds, seconds * 1e3);
}

//===----------------------------------------------------------------------===//
// copy_2d and transpose_add
//===----------------------------------------------------------------------===//

struct Shape2 {
  int64_t m, n;
};

class Copy2D : public ::testing::TestWithParam<Shape2> {};

TEST_P(Copy2D, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  auto [M, N] = GetParam();
  std::mt19937_64 rng(testSeed() ^ uint64_t(M * 1000 + N));
  int64_t strideSrc = N + 3, strideDst = N + 1; // padded rows
  size_t srcSize = size_t((M - 1) * strideSrc + N), dstSize = size_t((M - 1) * strideDst + N);
  auto vals = randomValues(rng, srcSize, -1, 1);
  std::vector<float> src(vals.begin(), vals.end()), dst(dstSize, kSentinel);
  auto r = interpretKernelFile("tile_ops.py", "copy_2d", "*fp32,*fp32,i32,i32,i32,i32",
                               ints({{"BLOCK_M", 32}, {"BLOCK_N", 64}}),
                               {cdiv(M, 32), cdiv(N, 64), 1},
                               {Arg::ofBuffer(src), Arg::ofBuffer(dst), Arg::ofInt(M),
                                Arg::ofInt(N), Arg::ofInt(strideSrc), Arg::ofInt(strideDst)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  size_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < strideDst && i * strideDst + j < int64_t(dstSize); ++j) {
      float want = j < N ? src[size_t(i * strideSrc + j)] : kSentinel;
      bad += dst[size_t(i * strideDst + j)] != want;
    }
  EXPECT_EQ(bad, 0u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Copy2D,
                         ::testing::Values(Shape2{1, 1}, Shape2{1, 200}, Shape2{37, 100},
                                           Shape2{64, 64}, Shape2{5, 130}, Shape2{33, 1}));

class TransposeAdd : public ::testing::TestWithParam<int64_t> {};

TEST_P(TransposeAdd, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  int64_t N = GetParam(), stride = N + 2;
  std::mt19937_64 rng(testSeed() + uint64_t(N) * 7);
  size_t size = size_t((N - 1) * stride + N);
  auto xv = randomValues(rng, size, -1, 1), yv = randomValues(rng, size, -1, 1);
  std::vector<float> x(xv.begin(), xv.end()), y(yv.begin(), yv.end()), out(size, kSentinel);
  auto r = interpretKernelFile("tile_ops.py", "transpose_add", "*fp32,*fp32,*fp32,i32,i32",
                               ints({{"BLOCK", 32}}), {cdiv(N, 32), cdiv(N, 32), 1},
                               {Arg::ofBuffer(x), Arg::ofBuffer(y), Arg::ofBuffer(out),
                                Arg::ofInt(N), Arg::ofInt(stride)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  Closeness close{1e-6, 0};
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = 0; j < stride && i * stride + j < int64_t(size); ++j) {
      double want = j < N ? double(x[size_t(i * stride + j)]) + double(y[size_t(j * stride + i)])
                          : double(kSentinel);
      close(out[size_t(i * stride + j)], want,
            "[" + std::to_string(i) + ", " + std::to_string(j) + "]");
    }
  EXPECT_ALL_CLOSE(close);
}

INSTANTIATE_TEST_SUITE_P(Sizes, TransposeAdd, ::testing::Values(1, 33, 64, 70));

class Transpose : public ::testing::TestWithParam<Shape2> {};

TEST_P(Transpose, MovesEveryElement) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  auto [M, N] = GetParam();
  std::mt19937_64 rng(testSeed() ^ uint64_t(M * 7919 + N));
  int64_t strideX = N + 3, strideOut = M + 1; // padded rows
  size_t xSize = size_t((M - 1) * strideX + N), outSize = size_t((N - 1) * strideOut + M);
  auto vals = randomValues(rng, xSize, -1, 1);
  std::vector<float> x(vals.begin(), vals.end());
  // By the store's addresses, and by tl.trans.
  for (const char *kernel : {"transpose", "transpose_trans"}) {
    SCOPED_TRACE(kernel);
    std::vector<float> out(outSize, kSentinel);
    auto r = interpretKernelFile("tile_ops.py", kernel, "*fp32,*fp32,i32,i32,i32,i32",
                                 ints({{"BLOCK_M", 64}, {"BLOCK_N", 32}}),
                                 {cdiv(M, 64), cdiv(N, 32), 1},
                                 {Arg::ofBuffer(x), Arg::ofBuffer(out), Arg::ofInt(M),
                                  Arg::ofInt(N), Arg::ofInt(strideX), Arg::ofInt(strideOut)});
    ASSERT_TRUE(r.ok()) << firstError(r);
    size_t bad = 0;
    for (int64_t j = 0; j < N; ++j)
      for (int64_t i = 0; i < strideOut && j * strideOut + i < int64_t(outSize); ++i) {
        float want = i < M ? x[size_t(i * strideX + j)] : kSentinel;
        bad += out[size_t(j * strideOut + i)] != want;
      }
    EXPECT_EQ(bad, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Transpose,
                         ::testing::Values(Shape2{1, 1}, Shape2{1, 200}, Shape2{37, 100},
                                           Shape2{64, 64}, Shape2{130, 5}));

class ScaleColumns : public ::testing::TestWithParam<Shape2> {};

TEST_P(ScaleColumns, WalksDownTheRows) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  auto [M, N] = GetParam();
  std::mt19937_64 rng(testSeed() ^ uint64_t(M * 131 + N));
  int64_t stride = N + 5;
  size_t size = size_t((M - 1) * stride + N);
  auto vals = randomValues(rng, size, -1, 1);
  std::vector<float> x(vals.begin(), vals.end()), out(size, kSentinel);
  const float alpha = 1.5f;
  auto r = interpretKernelFile("tile_ops.py", "scale_columns", "*fp32,*fp32,i32,i32,i32,fp32",
                               ints({{"BLOCK_M", 16}, {"BLOCK_N", 64}}), {cdiv(N, 64), 1, 1},
                               {Arg::ofBuffer(x), Arg::ofBuffer(out), Arg::ofInt(M),
                                Arg::ofInt(N), Arg::ofInt(stride), Arg::ofFloat(alpha)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  size_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < stride && i * stride + j < int64_t(size); ++j) {
      float want = j < N ? x[size_t(i * stride + j)] * alpha : kSentinel;
      bad += out[size_t(i * stride + j)] != want;
    }
  EXPECT_EQ(bad, 0u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ScaleColumns,
                         ::testing::Values(Shape2{1, 1}, Shape2{16, 64}, Shape2{37, 100},
                                           Shape2{200, 3}));

//===----------------------------------------------------------------------===//
// softmax
//===----------------------------------------------------------------------===//

enum class Dt { F32, F16, BF16 };

const char *dtName(Dt t) { return t == Dt::F32 ? "fp32" : t == Dt::F16 ? "fp16" : "bf16"; }

/// A host buffer of fp32, fp16 or bf16 values.
struct Typed {
  Dt type;
  std::vector<float> f32;
  std::vector<uint16_t> u16;
  double fill; ///< the initial value, as stored
  Typed(Dt t, size_t n, double value) : type(t) {
    if (t == Dt::F32)
      f32.assign(n, float(value));
    else
      u16.assign(n, t == Dt::F16 ? toHalf(float(value)) : toBF16(float(value)));
    fill = n ? get(0) : 0;
  }
  /// Store v (rounded to the type) and return the stored value.
  double set(size_t i, double v) {
    switch (type) {
    case Dt::F32: f32[i] = float(v); break;
    case Dt::F16: u16[i] = toHalf(float(v)); break;
    case Dt::BF16: u16[i] = toBF16(float(v)); break;
    }
    return get(i);
  }
  double get(size_t i) const {
    switch (type) {
    case Dt::F32: return f32[i];
    case Dt::F16: return fromHalf(u16[i]);
    case Dt::BF16: return fromBF16(u16[i]);
    }
    return 0;
  }
  Arg arg() {
    return type == Dt::F32 ? Arg::ofBuffer(f32) : Arg::ofBuffer(u16);
  }
};

/// The tolerance of an output of type t (its rounding, plus fp32 work).
double relTolerance(Dt t) { return t == Dt::F32 ? 2e-5 : t == Dt::F16 ? 2e-3 : 1e-2; }

struct SoftmaxConfig {
  int64_t rows, block; // constexprs ROWS, BLOCK
  int64_t nRows, nCols;
  Dt in, out;
};

void PrintTo(const SoftmaxConfig &c, std::ostream *os) {
  *os << "ROWS=" << c.rows << " BLOCK=" << c.block << " " << c.nRows << "x" << c.nCols
      << " " << dtName(c.in) << "->" << dtName(c.out);
}

/// Fill `n_rows` rows of `in` (stride inStride) with random values; return
/// the reference softmax of the stored values, row-major n_rows x n_cols.
std::vector<double> softmaxInput(std::mt19937_64 &rng, Typed &in, int64_t nRows,
                                 int64_t nCols, int64_t inStride) {
  std::vector<double> ref(size_t(nRows * nCols));
  for (int64_t r = 0; r < nRows; ++r) {
    std::vector<double> x(static_cast<size_t>(nCols));
    double mx = -INFINITY;
    auto v = randomValues(rng, size_t(nCols), -8, 8);
    for (int64_t c = 0; c < nCols; ++c) {
      x[c] = in.set(size_t(r * inStride + c), v[c]);
      mx = std::max(mx, x[c]);
    }
    double sum = 0;
    for (int64_t c = 0; c < nCols; ++c)
      sum += std::exp(x[c] - mx);
    for (int64_t c = 0; c < nCols; ++c)
      ref[size_t(r * nCols + c)] = std::exp(x[c] - mx) / sum;
  }
  return ref;
}

void checkSoftmaxOutput(const Typed &out, const std::vector<double> &ref, int64_t nRows,
                        int64_t nCols, int64_t outStride, Dt t) {
  Closeness close{relTolerance(t), 1e-7};
  size_t padding = 0;
  for (int64_t r = 0; r < nRows; ++r) {
    for (int64_t c = 0; c < nCols; ++c)
      close(out.get(size_t(r * outStride + c)), ref[size_t(r * nCols + c)],
            "[" + std::to_string(r) + ", " + std::to_string(c) + "]");
    for (int64_t c = nCols; c < outStride && r < nRows - 1; ++c)
      padding += out.get(size_t(r * outStride + c)) != out.fill;
  }
  EXPECT_ALL_CLOSE(close);
  EXPECT_EQ(padding, 0u) << "the padding between rows was written";
}

class Softmax : public ::testing::TestWithParam<SoftmaxConfig> {};

TEST_P(Softmax, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  SoftmaxConfig c = GetParam();
  std::mt19937_64 rng(testSeed() + uint64_t(c.nRows * 131 + c.nCols));
  int64_t inStride = c.nCols + 5, outStride = c.nCols + 1;
  Typed in(c.in, size_t((c.nRows - 1) * inStride + c.nCols), 0);
  Typed out(c.out, size_t((c.nRows - 1) * outStride + c.nCols), kSentinel);
  auto ref = softmaxInput(rng, in, c.nRows, c.nCols, inStride);
  std::string sig = std::string("*") + dtName(c.out) + ",*" + dtName(c.in) + ",i32,i32,i32,i32";
  auto r = interpretKernelFile("softmax.py", "softmax", sig,
                               ints({{"ROWS", c.rows}, {"BLOCK", c.block}}),
                               {cdiv(c.nRows, c.rows), 1, 1},
                               {out.arg(), in.arg(), Arg::ofInt(inStride),
                                Arg::ofInt(outStride), Arg::ofInt(c.nRows),
                                Arg::ofInt(c.nCols)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  checkSoftmaxOutput(out, ref, c.nRows, c.nCols, outStride, c.out);
}

// The shipped configs of the docstring, on odd shapes.
INSTANTIATE_TEST_SUITE_P(
    Configs, Softmax,
    ::testing::Values(SoftmaxConfig{16, 128, 37, 100, Dt::F32, Dt::F32},
                      SoftmaxConfig{16, 128, 1, 1, Dt::F32, Dt::F32},
                      SoftmaxConfig{16, 128, 16, 128, Dt::F32, Dt::F32},
                      SoftmaxConfig{4, 512, 9, 300, Dt::F32, Dt::F32},
                      SoftmaxConfig{4, 512, 3, 512, Dt::F16, Dt::F32},
                      SoftmaxConfig{1, 2048, 3, 2047, Dt::F32, Dt::F32},
                      SoftmaxConfig{1, 2048, 2, 1500, Dt::BF16, Dt::BF16},
                      SoftmaxConfig{1, 8192, 2, 5000, Dt::F32, Dt::F32},
                      SoftmaxConfig{1, 8192, 1, 8192, Dt::F16, Dt::F16}));

struct OnlineConfig {
  int64_t block, nRows, nCols;
  Dt in, out;
};

void PrintTo(const OnlineConfig &c, std::ostream *os) {
  *os << "BLOCK=" << c.block << " " << c.nRows << "x" << c.nCols << " " << dtName(c.in)
      << "->" << dtName(c.out);
}

class SoftmaxOnline : public ::testing::TestWithParam<OnlineConfig> {};

TEST_P(SoftmaxOnline, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  OnlineConfig c = GetParam();
  std::mt19937_64 rng(testSeed() + uint64_t(c.nRows * 17 + c.nCols));
  int64_t inStride = c.nCols + 3, outStride = c.nCols + 2;
  Typed in(c.in, size_t((c.nRows - 1) * inStride + c.nCols), 0);
  Typed out(c.out, size_t((c.nRows - 1) * outStride + c.nCols), kSentinel);
  auto ref = softmaxInput(rng, in, c.nRows, c.nCols, inStride);
  std::string sig = std::string("*") + dtName(c.out) + ",*" + dtName(c.in) + ",i32,i32,i32";
  auto r = interpretKernelFile("softmax.py", "softmax_online", sig,
                               ints({{"BLOCK", c.block}}), {uint32_t(c.nRows), 1, 1},
                               {out.arg(), in.arg(), Arg::ofInt(inStride),
                                Arg::ofInt(outStride), Arg::ofInt(c.nCols)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  checkSoftmaxOutput(out, ref, c.nRows, c.nCols, outStride, c.out);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, SoftmaxOnline,
    ::testing::Values(OnlineConfig{4096, 3, 10000, Dt::F32, Dt::F32},
                      OnlineConfig{4096, 1, 1, Dt::F32, Dt::F32},
                      OnlineConfig{4096, 2, 4096, Dt::F32, Dt::F32},
                      OnlineConfig{4096, 2, 9000, Dt::BF16, Dt::BF16},
                      OnlineConfig{16, 5, 37, Dt::F16, Dt::F32}));

//===----------------------------------------------------------------------===//
// rmsnorm
//===----------------------------------------------------------------------===//

struct RMSNormConfig {
  int64_t block, nRows, nCols;
  Dt type;
};

void PrintTo(const RMSNormConfig &c, std::ostream *os) {
  *os << "BLOCK=" << c.block << " " << c.nRows << "x" << c.nCols << " " << dtName(c.type);
}

class RMSNorm : public ::testing::TestWithParam<RMSNormConfig> {};

TEST_P(RMSNorm, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  RMSNormConfig c = GetParam();
  std::mt19937_64 rng(testSeed() + uint64_t(c.nRows * 29 + c.nCols));
  int64_t inStride = c.nCols + 7, outStride = c.nCols;
  const double eps = 1e-5;
  Typed in(c.type, size_t((c.nRows - 1) * inStride + c.nCols), 0);
  Typed weight(c.type, size_t(c.nCols), 0);
  Typed out(c.type, size_t(c.nRows * outStride), kSentinel);
  auto iv = randomValues(rng, in.f32.size() + in.u16.size(), -3, 3);
  auto wv = randomValues(rng, size_t(c.nCols), 0.5, 1.5);
  std::vector<double> w(size_t(c.nCols));
  for (int64_t k = 0; k < c.nCols; ++k)
    w[k] = weight.set(size_t(k), wv[k]);
  std::vector<double> ref(size_t(c.nRows * c.nCols));
  for (int64_t r = 0; r < c.nRows; ++r) {
    std::vector<double> x(size_t(c.nCols));
    double ss = 0;
    for (int64_t k = 0; k < c.nCols; ++k) {
      x[k] = in.set(size_t(r * inStride + k), iv[size_t(r * inStride + k)]);
      ss += x[k] * x[k];
    }
    double scale = 1 / std::sqrt(ss / double(c.nCols) + eps);
    for (int64_t k = 0; k < c.nCols; ++k)
      ref[size_t(r * c.nCols + k)] = x[k] * scale * w[k];
  }
  std::string t = dtName(c.type);
  auto r = interpretKernelFile(
      "rmsnorm.py", "rmsnorm", "*" + t + ",*" + t + ",*" + t + ",i32,i32,i32,fp32",
      ints({{"BLOCK", c.block}}), {uint32_t(c.nRows), 1, 1},
      {out.arg(), in.arg(), weight.arg(), Arg::ofInt(inStride), Arg::ofInt(outStride),
       Arg::ofInt(c.nCols), Arg::ofFloat(eps)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  Closeness close{relTolerance(c.type), 1e-6};
  for (int64_t row = 0; row < c.nRows; ++row)
    for (int64_t k = 0; k < c.nCols; ++k)
      close(out.get(size_t(row * outStride + k)), ref[size_t(row * c.nCols + k)],
            "[" + std::to_string(row) + ", " + std::to_string(k) + "]");
  EXPECT_ALL_CLOSE(close);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, RMSNorm,
    ::testing::Values(RMSNormConfig{1024, 3, 1000, Dt::F32}, RMSNormConfig{1, 1, 1, Dt::F32},
                      RMSNormConfig{64, 5, 33, Dt::F32}, RMSNormConfig{4096, 2, 4096, Dt::F32},
                      RMSNormConfig{1024, 4, 777, Dt::F16}, RMSNormConfig{128, 1, 100, Dt::F16},
                      RMSNormConfig{1024, 4, 777, Dt::BF16},
                      RMSNormConfig{8192, 2, 5000, Dt::BF16}));

//===----------------------------------------------------------------------===//
// cumsum
//===----------------------------------------------------------------------===//

struct CumsumConfig {
  int64_t block, rowsPerProgram, nRows, nCols;
  Dt type;
};

void PrintTo(const CumsumConfig &c, std::ostream *os) {
  *os << "BLOCK=" << c.block << " ROWS=" << c.rowsPerProgram << " " << c.nRows
      << "x" << c.nCols << " " << dtName(c.type);
}

class Cumsum : public ::testing::TestWithParam<CumsumConfig> {};

TEST_P(Cumsum, MatchesReference) {
  SCOPED_TRACE("TILEC_TEST_SEED=" + std::to_string(testSeed()));
  CumsumConfig c = GetParam();
  std::mt19937_64 rng(testSeed() + uint64_t(c.nRows * 31 + c.nCols));
  int64_t inStride = c.nCols + 3, outStride = c.nCols;
  Typed in(c.type, size_t((c.nRows - 1) * inStride + c.nCols), 0);
  std::vector<float> out(size_t(c.nRows * outStride), kSentinel);
  auto iv = randomValues(rng, in.f32.size() + in.u16.size(), -2, 2);
  std::vector<double> ref(size_t(c.nRows * c.nCols)), magnitude(ref.size());
  for (int64_t r = 0; r < c.nRows; ++r) {
    double running = 0, absolute = 0;
    for (int64_t k = 0; k < c.nCols; ++k) {
      double x = in.set(size_t(r * inStride + k), iv[size_t(r * inStride + k)]);
      running += x;
      absolute += std::fabs(x);
      ref[size_t(r * c.nCols + k)] = running;
      magnitude[size_t(r * c.nCols + k)] = absolute;
    }
  }
  std::string t = dtName(c.type);
  auto r = interpretKernelFile(
      "cumsum.py", "cumsum_rows", "*fp32,*" + t + ",i32,i32,i32,i32",
      ints({{"BLOCK", c.block}, {"ROWS", c.rowsPerProgram}}),
      {uint32_t(cdiv(c.nRows, c.rowsPerProgram)), 1, 1},
      {Arg::ofBuffer(out), in.arg(), Arg::ofInt(c.nRows), Arg::ofInt(c.nCols),
       Arg::ofInt(inStride), Arg::ofInt(outStride)});
  ASSERT_TRUE(r.ok()) << firstError(r);
  // fp32 prefix sums of up to a few thousand terms of size <= 2: a scan of
  // depth log2(BLOCK) + 1 rounds each partial sum that many times, so its
  // error is bounded by depth * 2^-24 * (the sum of |x| so far). A prefix
  // that nearly cancels has a small value and that same absolute error
  // (seed 577391976 found one 1.06e-4 off at 0.4).
  double depth = std::ceil(std::log2(double(c.block))) + 1;
  Closeness close{1e-5, 1e-6};
  for (int64_t row = 0; row < c.nRows; ++row)
    for (int64_t k = 0; k < c.nCols; ++k)
      close(out[size_t(row * outStride + k)], ref[size_t(row * c.nCols + k)],
            "[" + std::to_string(row) + ", " + std::to_string(k) + "]",
            depth * 0x1p-24 * magnitude[size_t(row * c.nCols + k)]);
  EXPECT_ALL_CLOSE(close);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, Cumsum,
    ::testing::Values(CumsumConfig{1024, 1, 3, 1000, Dt::F32}, CumsumConfig{1, 1, 1, 1, Dt::F32},
                      CumsumConfig{64, 4, 9, 33, Dt::F32}, CumsumConfig{4096, 1, 2, 4096, Dt::F32},
                      CumsumConfig{128, 8, 5, 100, Dt::F16},
                      CumsumConfig{2048, 2, 3, 2000, Dt::BF16}));

} // namespace
