// The promotion rules of docs/language.md.
#include "dsl/Signature.h"
#include "dsl/Types.h"

#include <gtest/gtest.h>

using namespace tilec::dsl;

namespace {
DType t(const char *name) { return *DType::parse(name); }
std::string promote(const char *a, const char *b, bool weakA = false,
                    bool weakB = false, bool div = false) {
  Promotion p = promoteArithmetic({t(a), weakA}, {t(b), weakB}, div);
  return p.type ? p.type->name() : "error: " + p.error;
}
} // namespace

TEST(Promotion, IntegersWiden) {
  EXPECT_EQ(promote("i32", "i64"), "i64");
  EXPECT_EQ(promote("i8", "i16"), "i16");
  EXPECT_EQ(promote("i64", "i8"), "i64");
}

TEST(Promotion, UnsignedWinsAtEqualWidth) {
  EXPECT_EQ(promote("i32", "u32"), "u32");
  EXPECT_EQ(promote("u8", "i32"), "i32");
  EXPECT_EQ(promote("u64", "i32"), "u64");
}

TEST(Promotion, FloatsWidenAndHalvesMeetInFp32) {
  EXPECT_EQ(promote("fp16", "fp32"), "fp32");
  EXPECT_EQ(promote("bf16", "fp64"), "fp64");
  EXPECT_EQ(promote("fp16", "bf16"), "fp32");
  EXPECT_EQ(promote("fp16", "fp16"), "fp16");
}

TEST(Promotion, FP8FollowsTriton) {
  // The wider float wins; the two fp8 formats meet in fp16; one format
  // stays itself (tile-widen-fp8 computes it in fp32).
  EXPECT_EQ(promote("fp8e4nv", "fp32"), "fp32");
  EXPECT_EQ(promote("fp8e5", "bf16"), "bf16");
  EXPECT_EQ(promote("fp8e4nv", "fp8e5"), "fp16");
  EXPECT_EQ(promote("fp8e5", "fp8e5"), "fp8e5");
  EXPECT_EQ(promote("fp8e4nv", "i32"), "fp8e4nv");
}

TEST(Promotion, IntegerWithFloatIsTheFloat) {
  EXPECT_EQ(promote("i64", "fp16"), "fp16");
  EXPECT_EQ(promote("bf16", "u8"), "bf16");
}

TEST(Promotion, LiteralsAreWeak) {
  // x_fp16 * 2.0 stays fp16; x_i8 + 1 stays i8; i32 literal with i64 → i64.
  EXPECT_EQ(promote("fp16", "fp32", false, true), "fp16");
  EXPECT_EQ(promote("i8", "i32", false, true), "i8");
  EXPECT_EQ(promote("i32", "i64", true, false), "i64");
  // A float literal meeting an integer tensor computes in fp32.
  EXPECT_EQ(promote("i32", "fp32", false, true), "fp32");
  // Two literals: the defaults, float winning.
  EXPECT_EQ(promote("i32", "fp32", true, true), "fp32");
}

TEST(Promotion, TrueDivisionOfIntegersIsFp32) {
  EXPECT_EQ(promote("i32", "i32", false, false, true), "fp32");
  EXPECT_EQ(promote("i64", "fp16", false, false, true), "fp16");
}

TEST(Promotion, BooleansComputeAsInt32) {
  EXPECT_EQ(promote("i1", "i1"), "i32");
  EXPECT_EQ(promote("i1", "i16"), "i16");
}

TEST(Promotion, PointersDoNotPromote) {
  EXPECT_EQ(promote("*fp32", "i32").rfind("error:", 0), 0u);
}

TEST(DType, ParsesBothSpellings) {
  EXPECT_EQ(t("float16"), t("fp16"));
  EXPECT_EQ(t("bfloat16").name(), "bf16");
  EXPECT_EQ(t("*fp32").name(), "*fp32");
  EXPECT_TRUE(t("*fp32").isPointer);
  EXPECT_FALSE(DType::parse("fp8").has_value()); // which format?
  EXPECT_EQ(t("float8e4nv").name(), "fp8e4nv");
  EXPECT_EQ(t("float8_e5m2").name(), "fp8e5"); // torch's name
  EXPECT_TRUE(t("fp8e5").isFP8() && t("fp8e5").isFloat() && t("fp8e5").bits() == 8);
  EXPECT_FALSE(t("fp16").isFP8() || t("*fp8e4nv").isFP8());
  EXPECT_FALSE(DType::parse("*").has_value());
  EXPECT_FALSE(DType::parse("int33").has_value());
}

TEST(Signature, ParsesTritonNotation) {
  Signature s;
  std::string error;
  ASSERT_TRUE(parseSignature("*fp32:16, *fp16,i32:16,i64:1,fp32,i64:8", s, error))
      << error;
  ASSERT_EQ(s.args.size(), 6u);
  EXPECT_EQ(s.args[0].divisibility, 16u);
  EXPECT_TRUE(s.args[0].type.isPointer);
  EXPECT_EQ(s.args[1].divisibility, 1u);
  EXPECT_EQ(s.args[2].type.name(), "i32");
  EXPECT_TRUE(s.args[3].equalsOne);
  EXPECT_EQ(s.args[5].divisibility, 8u); // tilec's :8
  EXPECT_EQ(s.str(), "*fp32:16,*fp16,i32:16,i64:1,fp32,i64:8");
}

TEST(Signature, RejectsBadEntriesWithTheirIndex) {
  Signature s;
  std::string error;
  EXPECT_FALSE(parseSignature("*fp32,float128", s, error));
  EXPECT_NE(error.find("signature entry 2"), std::string::npos) << error;
  EXPECT_FALSE(parseSignature("fp32:16", s, error));
  EXPECT_NE(error.find("':16' applies to pointers and integers"), std::string::npos);
  EXPECT_FALSE(parseSignature("*fp32:1", s, error));
  EXPECT_FALSE(parseSignature("*fp16:8", s, error));
  EXPECT_NE(error.find("':8' applies to integers only"), std::string::npos) << error;
  EXPECT_FALSE(parseSignature("fp32:8", s, error));
  EXPECT_FALSE(parseSignature("i32:4", s, error));
  EXPECT_NE(error.find("unknown specialisation ':4' (expected ':16', ':8' or ':1')"),
            std::string::npos) << error;
  EXPECT_FALSE(parseSignature("i32,,i32", s, error));
}
