// The text of a TMA tensor map spec (compiler/TensorMap.h), which the disk
// cache stores and `--emit summary` prints: str() and parse() are
// inverses, and parse() refuses every malformed line rather than guessing.
#include "compiler/TensorMap.h"

#include <gtest/gtest.h>

#include <string>

using tilec::TensorMapSpec;

namespace {

constexpr auto argument = TensorMapSpec::Operand::argument;
constexpr auto constant = TensorMapSpec::Operand::constant;

/// A 2-D fp16 tile descriptor: sizes from arguments 3 and 4, the row
/// stride from argument 5.
TensorMapSpec matrix() {
  TensorMapSpec spec;
  spec.base = 0;
  spec.sizes = {argument(3), argument(4)};
  spec.strides = {argument(5), constant(1)};
  spec.box = {128, 64};
  spec.dataType = 6; // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  spec.elementBytes = 2;
  spec.swizzleBytes = 128;
  return spec;
}

TEST(TensorMapSpecText, PrintsTheDocumentedLine) {
  EXPECT_EQ(matrix().str(),
            "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 "
            "fill=zero");
}

TEST(TensorMapSpecText, RoundTrips) {
  TensorMapSpec nan = matrix();
  nan.nanFill = true;
  nan.base = 2;
  TensorMapSpec constants;
  constants.base = 1;
  constants.sizes = {constant(7), constant(4096), argument(0)};
  constants.strides = {constant(-8), argument(12), constant(1)};
  constants.box = {1, 16, 256};
  constants.dataType = 7;
  constants.elementBytes = 4;
  constants.swizzleBytes = 0;
  TensorMapSpec five;
  five.sizes = {argument(1), argument(2), argument(3), argument(4), argument(5)};
  five.strides = {argument(6), argument(7), argument(8), argument(9), constant(1)};
  five.box = {2, 2, 2, 2, 8};
  five.dataType = 0;
  five.elementBytes = 1;
  five.swizzleBytes = 32;
  for (const TensorMapSpec &spec : {matrix(), nan, constants, five}) {
    TensorMapSpec back;
    ASSERT_TRUE(TensorMapSpec::parse(spec.str(), back)) << spec.str();
    EXPECT_TRUE(back == spec) << spec.str() << " came back as " << back.str();
    EXPECT_EQ(back.str(), spec.str());
  }
}

TEST(TensorMapSpecText, EqualityComparesEveryField) {
  TensorMapSpec a = matrix();
  EXPECT_TRUE(a == matrix());
  TensorMapSpec b = matrix();
  b.sizes[0] = argument(9);
  EXPECT_FALSE(a == b);
  b = matrix();
  b.strides[1] = constant(2);
  EXPECT_FALSE(a == b);
  b = matrix();
  b.box[1] = 32;
  EXPECT_FALSE(a == b);
  b = matrix();
  b.swizzleBytes = 64;
  EXPECT_FALSE(a == b);
  b = matrix();
  b.nanFill = true;
  EXPECT_FALSE(a == b);
  // An argument operand's `value` is not part of it.
  b = matrix();
  b.sizes[0].value = 42;
  EXPECT_TRUE(a == b);
}

TEST(TensorMapSpecText, RefusesMalformedLines) {
  const std::string good = matrix().str();
  const char *const bad[] = {
      "",
      "base=0",
      // A field missing or unknown.
      "sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero "
      "extra=1",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill",
      // Bad values.
      "base=-1 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=x sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,b4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a-3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4 strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,,a4] strides=[a5,1,1] box=[128,64,1] type=6 bytes=2 swizzle=128 "
      "fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,0] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[512,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=0 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=16 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=16 fill=zero",
      "base=0 sizes=[a3,a4] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=one",
      // Ranks that disagree, or none TMA has.
      "base=0 sizes=[a3] strides=[a5,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[a3,a4] strides=[1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[] strides=[] box=[] type=6 bytes=2 swizzle=128 fill=zero",
      "base=0 sizes=[1,1,1,1,1,1] strides=[1,1,1,1,1,1] box=[1,1,1,1,1,1] type=0 bytes=1 "
      "swizzle=0 fill=zero",
  };
  for (const char *text : bad) {
    TensorMapSpec out = matrix();
    out.base = 9;
    EXPECT_FALSE(TensorMapSpec::parse(text, out)) << text;
    EXPECT_EQ(out.base, 9) << "a refused line must leave the output alone: " << text;
  }
  TensorMapSpec out;
  EXPECT_TRUE(TensorMapSpec::parse(good, out));
}

} // namespace
