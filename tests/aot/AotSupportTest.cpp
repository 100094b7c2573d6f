// The loader every `tilec aot` source carries (tools/tilec/AotSupport.inc),
// compiled here on its own: which machine code each GPU gets, and the
// conversions of fp16 and bf16 scalar arguments.
#include "aot_test_kernels.h" // tilec::aot::Status, which the support returns

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>

#include <dlfcn.h>

// Only some of the support is tested here; the rest goes unused in this file.
#pragma GCC diagnostic ignored "-Wunused-function"
#include "AotSupport.inc"

#include <gtest/gtest.h>

namespace {
using tilec_aot_support::Image;
using tilec_aot_support::selectImage;

std::string chosen(const Image *images, int n, int cc) {
  const Image *image = selectImage(images, n, cc);
  return image ? image->description : "none";
}

TEST(AotImageChoice, EachGpuGetsItsOwnCubinFirst) {
  // What `tilec aot` builds by default: sm_80, sm_86, sm_89, sm_90a and the
  // PTX of sm_80.
  const Image images[] = {{"sm_80 cubin", 80, false, false, nullptr},
                          {"sm_86 cubin", 86, false, false, nullptr},
                          {"sm_89 cubin", 89, false, false, nullptr},
                          {"sm_90a cubin", 90, true, false, nullptr},
                          {"compute_80 PTX", 80, false, true, nullptr}};
  EXPECT_EQ(chosen(images, 5, 80), "sm_80 cubin");
  EXPECT_EQ(chosen(images, 5, 86), "sm_86 cubin");
  // Jetson Orin (8.7): the newest cubin of its major version not newer.
  EXPECT_EQ(chosen(images, 5, 87), "sm_86 cubin");
  EXPECT_EQ(chosen(images, 5, 89), "sm_89 cubin");
  EXPECT_EQ(chosen(images, 5, 90), "sm_90a cubin");
  // Blackwell: no cubin of its major version, so the PTX.
  EXPECT_EQ(chosen(images, 5, 100), "compute_80 PTX");
  EXPECT_EQ(chosen(images, 5, 120), "compute_80 PTX");
  // Turing is older than every target.
  EXPECT_EQ(chosen(images, 5, 75), "none");
}

TEST(AotImageChoice, ArchSpecificCodeRunsOnlyOnItsGpu) {
  const Image hopper[] = {{"sm_90 cubin", 90, false, false, nullptr},
                          {"sm_90a cubin", 90, true, false, nullptr}};
  EXPECT_EQ(chosen(hopper, 2, 90), "sm_90a cubin");
  const Image only90a[] = {{"sm_90a cubin", 90, true, false, nullptr},
                           {"compute_90a PTX", 90, true, true, nullptr}};
  EXPECT_EQ(chosen(only90a, 2, 90), "sm_90a cubin");
  EXPECT_EQ(chosen(only90a, 2, 100), "none");
  EXPECT_EQ(chosen(only90a, 2, 89), "none");
}

TEST(AotImageChoice, NewestPtxNotNewerThanTheGpu) {
  const Image images[] = {{"compute_80 PTX", 80, false, true, nullptr},
                          {"compute_90 PTX", 90, false, true, nullptr}};
  EXPECT_EQ(chosen(images, 2, 89), "compute_80 PTX");
  EXPECT_EQ(chosen(images, 2, 90), "compute_90 PTX");
  EXPECT_EQ(chosen(images, 2, 120), "compute_90 PTX");
  // A cubin of the major version beats PTX; a newer minor one cannot run.
  const Image mixed[] = {{"sm_86 cubin", 86, false, false, nullptr},
                         {"compute_80 PTX", 80, false, true, nullptr}};
  EXPECT_EQ(chosen(mixed, 2, 89), "sm_86 cubin");
  EXPECT_EQ(chosen(mixed, 2, 80), "compute_80 PTX");
}

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(AotScalars, Fp16RoundsToNearestEven) {
  using tilec_aot_support::fp16Bits;
  EXPECT_EQ(fp16Bits(0.0f), 0x0000);
  EXPECT_EQ(fp16Bits(-0.0f), 0x8000);
  EXPECT_EQ(fp16Bits(1.0f), 0x3c00);
  EXPECT_EQ(fp16Bits(-2.0f), 0xc000);
  EXPECT_EQ(fp16Bits(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(fp16Bits(65504.0f), 0x7bff);
  EXPECT_EQ(fp16Bits(65519.0f), 0x7bff); // below the halfway point to 65536
  EXPECT_EQ(fp16Bits(65520.0f), 0x7c00); // halfway, to even: infinity
  EXPECT_EQ(fp16Bits(1e10f), 0x7c00);
  EXPECT_EQ(fp16Bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(fp16Bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  uint16_t nan = fp16Bits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
  EXPECT_EQ(fp16Bits(1.0f + 0x1p-11f), 0x3c00);        // a tie, to even
  EXPECT_EQ(fp16Bits(1.0f + 3 * 0x1p-11f), 0x3c02);    // a tie, to even
  EXPECT_EQ(fp16Bits(0x1p-14f), 0x0400);               // the smallest normal
  EXPECT_EQ(fp16Bits(0x1p-24f), 0x0001);               // the smallest subnormal
  EXPECT_EQ(fp16Bits(0x1p-25f), 0x0000);               // a tie, to even: zero
  EXPECT_EQ(fp16Bits(0x1.8p-25f), 0x0001);             // above the tie
  EXPECT_EQ(fp16Bits(0x1.ff8p-15f), 0x03ff);           // the largest subnormal
  EXPECT_EQ(fp16Bits(0x1.ffcp-15f), 0x0400);           // a tie, to even: a normal
  EXPECT_EQ(fp16Bits(1e-30f), 0x0000);
}

#ifdef __FLT16_MAX__
TEST(AotScalars, Fp16AgreesWithTheCompilersConversion) {
  std::mt19937 rng(3);
  for (int i = 0; i < 1000000; ++i) {
    // Every exponent an fp16 has, and beyond, with random mantissas.
    uint32_t bits = (rng() & 0x807fffffu) | ((100u + rng() % 60u) << 23);
    float f = fromBits(bits);
    _Float16 h = static_cast<_Float16>(f);
    uint16_t expected;
    std::memcpy(&expected, &h, 2);
    ASSERT_EQ(tilec_aot_support::fp16Bits(f), expected) << "for " << f;
  }
}
#endif

TEST(AotScalars, Bf16RoundsToNearestEven) {
  using tilec_aot_support::bf16Bits;
  EXPECT_EQ(bf16Bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16Bits(-1.0f), 0xbf80);
  EXPECT_EQ(bf16Bits(1.0f / 3.0f), 0x3eab);
  EXPECT_EQ(bf16Bits(1.0f + 0x1p-8f), 0x3f80);     // a tie, to even
  EXPECT_EQ(bf16Bits(1.0f + 3 * 0x1p-8f), 0x3f82); // a tie, to even
  EXPECT_EQ(bf16Bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16Bits(std::numeric_limits<float>::infinity()), 0x7f80);
  uint16_t nan = bf16Bits(fromBits(0x7f800001u)); // a NaN only in low bits
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x7f, 0);
  EXPECT_EQ(bf16Bits(fromBits(0x00010000u)), 0x0001); // subnormals keep their bits
}

} // namespace
