// Vector add through the public C++ API on a GPU: fp32, fp16 and bf16 at
// sizes 1, 1000, 2^20+3 and 2^28, outputs poisoned first, every element
// compared with a float64 reference. Skipped without a CUDA driver.
#include "tests/unit/jit/GpuTest.h"
#include "runtime/Device.h"
#include "tilec/tilec.h"
#include "tests/unit/jit/HalfFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifndef TILEC_KERNELS_DIR
#define TILEC_KERNELS_DIR "kernels"
#endif

namespace {
using namespace tilec::test;

struct Case {
  const char *dtype;
  int64_t n;
};

class GpuVectorAdd : public tilec::test::GpuKernelTest<Case> {};

TEST_P(GpuVectorAdd, MatchesFloat64Reference) {
  const Case c = GetParam();
  const std::string dtype = c.dtype;
  const size_t elem = dtype == "fp32" ? 4 : 2;
  const size_t n = size_t(c.n);
  // xorshift: 2^28 inputs must be cheap to draw on the host.
  uint64_t state = 0x9E3779B97F4A7C15ull ^ (n * 7 + elem);
  auto draw = [&state]() { // uniform in [-4, 4)
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return float(int32_t(state >> 40) - (1 << 23)) * (4.0f / (1 << 23));
  };

  // Inputs as stored on the device, and their exact values as doubles.
  std::vector<uint8_t> x(n * elem), y(n * elem), out(n * elem);
  std::vector<double> xd(n), yd(n);
  for (size_t i = 0; i < n; ++i) {
    float a = draw(), b = draw();
    if (dtype == "fp32") {
      std::memcpy(&x[i * 4], &a, 4);
      std::memcpy(&y[i * 4], &b, 4);
      xd[i] = a;
      yd[i] = b;
    } else {
      uint16_t ha = dtype == "fp16" ? toHalf(a) : toBF16(a);
      uint16_t hb = dtype == "fp16" ? toHalf(b) : toBF16(b);
      std::memcpy(&x[i * 2], &ha, 2);
      std::memcpy(&y[i * 2], &hb, 2);
      xd[i] = dtype == "fp16" ? fromHalf(ha) : fromBF16(ha);
      yd[i] = dtype == "fp16" ? fromHalf(hb) : fromBF16(hb);
    }
  }
  auto dx = tilec::Buffer::allocate(x.size()), dy = tilec::Buffer::allocate(y.size()),
       dout = tilec::Buffer::allocate(out.size());
  dx.copyFromHost(x.data(), x.size());
  dy.copyFromHost(y.data(), y.size());
  dout.fill(0xff); // NaN in every format: unwritten elements fail

  // The kernels folder moves with a bundle: $TILEC_KERNELS_DIR overrides.
  const char *dir = std::getenv("TILEC_KERNELS_DIR");
  auto lib = tilec::Library::fromFile(std::string(dir ? dir : TILEC_KERNELS_DIR) +
                                      "/vector_add.py");
  auto add = lib.kernel("add");
  const int block = 1024;
  add.launch({unsigned(tilec::cdiv(int64_t(n), block))},
             {{dx, dtype}, {dy, dtype}, {dout, dtype}, int32_t(n)},
             {{"BLOCK", block}});
  dout.copyToHost(out.data(), out.size());

  // fp32: the sum of two floats is exact to half an ulp of the result;
  // fp16/bf16 round the exact sum once.
  double tolerance = dtype == "fp32" ? 1.2e-7 : dtype == "fp16" ? 1e-3 : 8e-3;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = xd[i] + yd[i];
    double got;
    if (dtype == "fp32") {
      float f;
      std::memcpy(&f, &out[i * 4], 4);
      got = f;
    } else {
      uint16_t h;
      std::memcpy(&h, &out[i * 2], 2);
      got = dtype == "fp16" ? fromHalf(h) : fromBF16(h);
    }
    if (!(std::fabs(got - ref) <= tolerance * (std::fabs(ref) + 1e-3)))
      if (++bad <= 5)
        ADD_FAILURE() << dtype << " n=" << n << " i=" << i << " got " << got
                      << " want " << ref;
  }
  EXPECT_EQ(bad, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, GpuVectorAdd,
    ::testing::Values(Case{"fp32", 1}, Case{"fp32", 1000},
                      Case{"fp32", (1 << 20) + 3}, Case{"fp32", 1 << 28},
                      Case{"fp16", 1}, Case{"fp16", 1000},
                      Case{"fp16", (1 << 20) + 3}, Case{"fp16", 1 << 28},
                      Case{"bf16", 1}, Case{"bf16", 1000},
                      Case{"bf16", (1 << 20) + 3}, Case{"bf16", 1 << 28}),
    [](const ::testing::TestParamInfo<Case> &info) {
      return std::string(info.param.dtype) + "_" + std::to_string(info.param.n);
    });
} // namespace
