// The reduction and scan kernels of kernels/ on a GPU: softmax (one pass
// and online), RMSNorm and row cumsum, in fp32 and bf16, on odd shapes,
// against float64 references computed here and against the CPU
// interpreter run on the same device buffers (Backend::Interpreter).
// Outputs are poisoned first. Label gpu.
#include "tests/unit/jit/GpuTest.h"
#include "runtime/Device.h"
#include "tests/unit/jit/HalfFloat.h"
#include "tilec/tilec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

namespace {
using namespace tilec::test;

std::string kernelPath(const char *file) {
  const char *dir = std::getenv("TILEC_KERNELS_DIR");
  return std::string(dir ? dir : TILEC_KERNELS_DIR) + "/" + file;
}

/// Device data of one dtype with its exact values as doubles.
struct Matrix {
  std::string dtype;
  size_t elements;
  std::vector<uint8_t> bytes;
  std::vector<double> values;
  size_t elementBytes() const { return dtype == "fp32" ? 4 : 2; }

  Matrix(std::string dt, size_t n, uint64_t seed, float scale)
      : dtype(std::move(dt)), elements(n), bytes(n * elementBytes()), values(n) {
    uint64_t state = 0x9E3779B97F4A7C15ull ^ seed;
    for (size_t i = 0; i < n; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      float f = float(int32_t(state >> 40) - (1 << 23)) * (scale / (1 << 23));
      if (dtype == "fp32") {
        std::memcpy(&bytes[i * 4], &f, 4);
        values[i] = f;
      } else {
        uint16_t h = toBF16(f);
        std::memcpy(&bytes[i * 2], &h, 2);
        values[i] = fromBF16(h);
      }
    }
  }
  double at(const std::vector<uint8_t> &data, size_t i) const {
    if (dtype == "fp32") {
      float f;
      std::memcpy(&f, &data[i * 4], 4);
      return f;
    }
    uint16_t h;
    std::memcpy(&h, &data[i * 2], 2);
    return fromBF16(h);
  }
};

/// ‖out − ref‖ / ‖ref‖ over everything; NaN never passes.
double relativeError(const Matrix &m, const std::vector<uint8_t> &out,
                     const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double d = m.at(out, i) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  double e = std::sqrt(num / (den > 0 ? den : 1));
  return std::isnan(e) ? INFINITY : e;
}

/// ‖a − b‖ / ‖b‖ of two outputs of one dtype.
double relativeDifference(const Matrix &m, const std::vector<uint8_t> &a,
                          const std::vector<uint8_t> &b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < m.elements; ++i) {
    double d = m.at(a, i) - m.at(b, i);
    num += d * d;
    den += m.at(b, i) * m.at(b, i);
  }
  double e = std::sqrt(num / (den > 0 ? den : 1));
  return std::isnan(e) ? INFINITY : e;
}

/// The same launch through the interpreter, on a second poisoned output:
/// `launch(out, options)` launches with that output buffer.
template <typename Launch>
std::vector<uint8_t> interpreted(size_t bytes, tilec::LaunchOptions options, Launch launch) {
  auto out = tilec::Buffer::allocate(bytes);
  out.fill(0xff);
  options.backend = tilec::Backend::Interpreter;
  launch(out, options);
  std::vector<uint8_t> result(bytes);
  out.copyToHost(result.data(), bytes);
  return result;
}

struct Shape {
  const char *dtype;
  int rows, cols;
};

class GpuReductionKernels : public tilec::test::GpuKernelTest<Shape> {
protected:
  double tolerance() const {
    return std::string(GetParam().dtype) == "fp32" ? 1e-5 : 1e-2;
  }
};

TEST_P(GpuReductionKernels, SoftmaxMatchesFloat64) {
  const Shape s = GetParam();
  size_t n = size_t(s.rows) * s.cols;
  Matrix x(s.dtype, n, n * 3 + s.cols, 8.0f);
  std::vector<double> ref(n);
  for (int r = 0; r < s.rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int c = 0; c < s.cols; ++c)
      m = std::max(m, x.values[size_t(r) * s.cols + c]);
    for (int c = 0; c < s.cols; ++c)
      sum += std::exp(x.values[size_t(r) * s.cols + c] - m);
    for (int c = 0; c < s.cols; ++c)
      ref[size_t(r) * s.cols + c] = std::exp(x.values[size_t(r) * s.cols + c] - m) / sum;
  }
  auto in = tilec::Buffer::allocate(x.bytes.size());
  auto out = tilec::Buffer::allocate(x.bytes.size());
  in.copyFromHost(x.bytes.data(), x.bytes.size());
  out.fill(0xff);

  auto lib = tilec::Library::fromFile(kernelPath("softmax.py"));
  // The shipped configs of kernels/softmax.py.
  int rowsPerProgram, block, warps;
  if (s.cols <= 128) { rowsPerProgram = 16; block = 128; warps = 4; }
  else if (s.cols <= 512) { rowsPerProgram = 4; block = 512; warps = 4; }
  else if (s.cols <= 2048) { rowsPerProgram = 1; block = 2048; warps = 8; }
  else if (s.cols <= 8192) { rowsPerProgram = 1; block = 8192; warps = 16; }
  else { rowsPerProgram = 0; block = 4096; warps = 16; }
  tilec::LaunchOptions options;
  options.numWarps = warps;
  std::string dt = s.dtype;
  auto launch = [&](tilec::Buffer &o, const tilec::LaunchOptions &opts) {
    if (rowsPerProgram > 0)
      lib.kernel("softmax").launch(
          {unsigned(tilec::cdiv(s.rows, rowsPerProgram))},
          {{o, dt}, {in, dt}, int32_t(s.cols), int32_t(s.cols), int32_t(s.rows),
           int32_t(s.cols)},
          {{"ROWS", rowsPerProgram}, {"BLOCK", block}}, opts);
    else
      lib.kernel("softmax_online").launch(
          {unsigned(s.rows)},
          {{o, dt}, {in, dt}, int32_t(s.cols), int32_t(s.cols), int32_t(s.cols)},
          {{"BLOCK", block}}, opts);
  };
  launch(out, options);
  std::vector<uint8_t> result(x.bytes.size());
  out.copyToHost(result.data(), result.size());
  EXPECT_LT(relativeError(x, result, ref), tolerance())
      << s.dtype << " " << s.rows << "x" << s.cols;
  EXPECT_LT(relativeDifference(x, result, interpreted(x.bytes.size(), options, launch)),
            tolerance())
      << "GPU vs interpreter, " << s.dtype << " " << s.rows << "x" << s.cols;
}

TEST_P(GpuReductionKernels, RMSNormMatchesFloat64) {
  const Shape s = GetParam();
  if (s.cols > 16384)
    GTEST_SKIP() << "rmsnorm rows must fit one tile";
  size_t n = size_t(s.rows) * s.cols;
  Matrix x(s.dtype, n, n * 5 + 1, 3.0f), w(s.dtype, s.cols, s.cols + 7, 2.0f);
  const float eps = 1e-6f;
  std::vector<double> ref(n);
  for (int r = 0; r < s.rows; ++r) {
    double ms = 0;
    for (int c = 0; c < s.cols; ++c)
      ms += x.values[size_t(r) * s.cols + c] * x.values[size_t(r) * s.cols + c];
    double scale = 1.0 / std::sqrt(ms / s.cols + eps);
    for (int c = 0; c < s.cols; ++c)
      ref[size_t(r) * s.cols + c] = x.values[size_t(r) * s.cols + c] * scale * w.values[c];
  }
  auto in = tilec::Buffer::allocate(x.bytes.size());
  auto weight = tilec::Buffer::allocate(w.bytes.size());
  auto out = tilec::Buffer::allocate(x.bytes.size());
  in.copyFromHost(x.bytes.data(), x.bytes.size());
  weight.copyFromHost(w.bytes.data(), w.bytes.size());
  out.fill(0xff);
  int block = 1;
  while (block < s.cols)
    block *= 2;
  tilec::LaunchOptions options;
  options.numWarps = block >= 4096 ? 8 : 4;
  std::string dt = s.dtype;
  auto kernel = tilec::Library::fromFile(kernelPath("rmsnorm.py")).kernel("rmsnorm");
  auto launch = [&](tilec::Buffer &o, const tilec::LaunchOptions &opts) {
    kernel.launch({unsigned(s.rows)},
                  {{o, dt}, {in, dt}, {weight, dt}, int32_t(s.cols), int32_t(s.cols),
                   int32_t(s.cols), eps},
                  {{"BLOCK", block}}, opts);
  };
  launch(out, options);
  std::vector<uint8_t> result(x.bytes.size());
  out.copyToHost(result.data(), result.size());
  EXPECT_LT(relativeError(x, result, ref), tolerance())
      << s.dtype << " " << s.rows << "x" << s.cols;
  EXPECT_LT(relativeDifference(x, result, interpreted(x.bytes.size(), options, launch)),
            tolerance())
      << "GPU vs interpreter, " << s.dtype << " " << s.rows << "x" << s.cols;
}

TEST_P(GpuReductionKernels, CumsumMatchesFloat64) {
  const Shape s = GetParam();
  if (s.cols > 8192)
    GTEST_SKIP() << "cumsum rows must fit one tile";
  size_t n = size_t(s.rows) * s.cols;
  Matrix x(s.dtype, n, n * 7 + 3, 1.0f);
  Matrix sums("fp32", n, 0, 0.0f); // the output: fp32
  std::vector<double> ref(n);
  for (int r = 0; r < s.rows; ++r) {
    double running = 0;
    for (int c = 0; c < s.cols; ++c)
      ref[size_t(r) * s.cols + c] = running += x.values[size_t(r) * s.cols + c];
  }
  auto in = tilec::Buffer::allocate(x.bytes.size());
  auto out = tilec::Buffer::allocate(n * 4);
  in.copyFromHost(x.bytes.data(), x.bytes.size());
  out.fill(0xff);
  int block = 1;
  while (block < s.cols)
    block *= 2;
  int rowsPerProgram = block <= 128 ? 8 : 1;
  tilec::LaunchOptions options;
  options.numWarps = block >= 4096 ? 8 : 4;
  std::string dt = s.dtype;
  auto kernel = tilec::Library::fromFile(kernelPath("cumsum.py")).kernel("cumsum_rows");
  auto launch = [&](tilec::Buffer &o, const tilec::LaunchOptions &opts) {
    kernel.launch({unsigned(tilec::cdiv(s.rows, rowsPerProgram))},
                  {{o, "fp32"}, {in, dt}, int32_t(s.rows), int32_t(s.cols),
                   int32_t(s.cols), int32_t(s.cols)},
                  {{"BLOCK", block}, {"ROWS", rowsPerProgram}}, opts);
  };
  launch(out, options);
  std::vector<uint8_t> result(n * 4);
  out.copyToHost(result.data(), result.size());
  // Sums of up to 8192 terms in fp32 (bf16 inputs are exact in fp32).
  EXPECT_LT(relativeError(sums, result, ref), 1e-5)
      << s.dtype << " " << s.rows << "x" << s.cols;
  EXPECT_LT(relativeDifference(sums, result, interpreted(n * 4, options, launch)), 1e-5)
      << "GPU vs interpreter, " << s.dtype << " " << s.rows << "x" << s.cols;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuReductionKernels,
    ::testing::Values(Shape{"fp32", 1, 1}, Shape{"fp32", 3, 100},
                      Shape{"fp32", 1000, 128}, Shape{"fp32", 257, 1000},
                      Shape{"fp32", 64, 4096}, Shape{"fp32", 33, 8192},
                      Shape{"fp32", 7, 20000}, Shape{"bf16", 1, 1},
                      Shape{"bf16", 1000, 128}, Shape{"bf16", 257, 1000},
                      Shape{"bf16", 33, 8192}, Shape{"bf16", 7, 20000}),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return std::string(info.param.dtype) + "_" + std::to_string(info.param.rows) +
             "x" + std::to_string(info.param.cols);
    });
} // namespace
