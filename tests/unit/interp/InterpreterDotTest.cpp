// The interpreter's dot arithmetic on its own: tf32 rounding as
// cvt.rna.tf32.f32 does it, and the accumulation rules of each form.
#include "runtime/InterpreterDot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tilec::interp;

namespace {
float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t toBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
} // namespace

TEST(RoundToTF32, TiesGoAwayFromZero) {
  // 1 + 2^-11 is halfway between two tf32 values: away from zero.
  EXPECT_EQ(toBits(roundToTF32(fromBits(0x3f801000))), 0x3f802000u);
  EXPECT_EQ(toBits(roundToTF32(fromBits(0xbf801000))), 0xbf802000u);
  // Below and above the halfway point.
  EXPECT_EQ(toBits(roundToTF32(fromBits(0x3f800fff))), 0x3f800000u);
  EXPECT_EQ(toBits(roundToTF32(fromBits(0x3f801001))), 0x3f802000u);
  // Exact tf32 values stay.
  EXPECT_EQ(toBits(roundToTF32(1.5f)), toBits(1.5f));
}

TEST(RoundToTF32, CarriesIntoTheExponent) {
  // The largest significand below 2, rounded up, becomes 2.
  EXPECT_EQ(roundToTF32(fromBits(0x3fffffff)), 2.0f);
  // Past the largest finite tf32: infinity, as the hardware gives.
  EXPECT_TRUE(std::isinf(roundToTF32(fromBits(0x7f7fffff))));
  EXPECT_TRUE(std::isnan(roundToTF32(NAN)));
}

TEST(DotFloat, TF32RoundsOperandsAndIEEEDoesNot) {
  // One term: (1 + 2^-12) * 1. tf32 drops the 2^-12; ieee keeps it.
  std::vector<double> a{1.0 + 0x1p-12}, b{1.0};
  std::vector<double> tf32{0.0}, ieee{0.0}, split{0.0};
  dotFloat(DotArithmetic::TF32, a, b, tf32, 1, 1, 1, 1);
  dotFloat(DotArithmetic::IEEE, a, b, ieee, 1, 1, 1, 1);
  dotFloat(DotArithmetic::TF32x3, a, b, split, 1, 1, 1, 1);
  EXPECT_EQ(tf32[0], 1.0);
  EXPECT_EQ(ieee[0], 1.0 + 0x1p-12);
  EXPECT_EQ(split[0], 1.0 + 0x1p-12); // the remainder's product brings it back
}

TEST(DotFloat, HalfAccumulatorRoundsEverySixteenTerms) {
  // 16 terms of (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 (exact in f32): the f32
  // sum is 16 + 2^-5 + 2^-16, which an f16 accumulator (ulp 2^-6 at 16)
  // rounds to 16 + 2^-5 at the end of the m16n8k16 step.
  int64_t k = 16;
  std::vector<double> a(k, 1.0 + 0x1p-10), b(k, 1.0 + 0x1p-10);
  std::vector<double> half{0.0}, exact{0.0};
  dotFloat(DotArithmetic::F16Acc, a, b, half, 1, 1, 1, k);
  dotFloat(DotArithmetic::Exact16, a, b, exact, 1, 1, 1, k);
  EXPECT_EQ(half[0], 16.0 + 0x1p-5);
  EXPECT_EQ(exact[0], 16.0 + 0x1p-5 + 0x1p-16);
}

TEST(DotInt, WrapsInInt32) {
  // INT32_MAX plus four products overflows; the sum wraps as the s32 MMA's.
  int64_t k = 4;
  std::vector<int64_t> a(k, 127), b(k, 127), acc{0x7fffffff};
  dotInt(a, b, acc, 1, 1, 1, k);
  EXPECT_EQ(acc[0], int64_t(int32_t(uint32_t(0x7fffffff) + uint32_t(4 * 127 * 127))));
}
