// The kernel language's types and its promotion rules (docs/language.md
// states them; tests/unit/dsl/TypesTest.cpp checks them).
//
// MLIR integers are signless, so the front end keeps signedness itself:
// every IR value it builds carries a ValueType.
#pragma once

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::dsl {

enum class ScalarKind {
  Int1, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float16, BFloat16, Float32, Float64,
  // 8-bit floats (OCP FP8): e4m3 without infinities (Triton's fp8e4nv,
  // torch.float8_e4m3fn) and e5m2 (fp8e5, torch.float8_e5m2). Storage,
  // conversion and tl.dot types: arithmetic needs a wider float first.
  Float8E4M3, Float8E5M2,
};

/// A scalar type, or a pointer to one.
struct DType {
  ScalarKind scalar = ScalarKind::Int32;
  bool isPointer = false;

  static DType ptr(ScalarKind k) { return {k, true}; }
  bool operator==(const DType &o) const {
    return scalar == o.scalar && isPointer == o.isPointer;
  }
  bool operator!=(const DType &o) const { return !(*this == o); }

  bool isBool() const { return !isPointer && scalar == ScalarKind::Int1; }
  bool isInt() const; ///< integers, bool included
  bool isFloat() const;
  bool isFP8() const; ///< the 8-bit floats, which take no arithmetic
  bool isSigned() const; ///< signed integers (bool is unsigned)
  unsigned bits() const; ///< of the scalar (pointee for pointers)
  DType pointee() const { return {scalar, false}; }

  /// Triton's spelling: "fp32", "i32", "u8", "i1", "bf16", "*fp16".
  std::string name() const;
  mlir::Type toMLIR(mlir::MLIRContext *ctx) const;

  /// Accepts Triton's short names (fp32, i32, u8, bf16, i1, fp8e4nv, fp8e5)
  /// and tl's long ones (float32, int32, uint8, bfloat16, int1, float8e4nv,
  /// float8e5), with '*' for pointers.
  static std::optional<DType> parse(const std::string &name);
};

/// A scalar (empty shape) or a tensor of `element`.
struct ValueType {
  DType element;
  std::vector<int64_t> shape;

  bool isTensor() const { return !shape.empty(); }
  int64_t numElements() const;
  bool operator==(const ValueType &o) const {
    return element == o.element && shape == o.shape;
  }
  bool operator!=(const ValueType &o) const { return !(*this == o); }
  /// "fp32", "tensor<128x64xfp16>", "tensor<64x*fp32>".
  std::string str() const;
  mlir::Type toMLIR(mlir::MLIRContext *ctx) const;
};

std::string shapeString(const std::vector<int64_t> &shape);

/// How an operand takes part in promotion. Python literals and constexpr
/// numbers are weak: they adopt the other operand's type rather than
/// widen it (`x_fp16 * 2.0` stays fp16).
struct PromotionOperand {
  DType type;
  bool weak = false;
};

/// The type both operands of an arithmetic operator are converted to, or an
/// error message. `trueDivision` is `/`, which computes in floats.
struct Promotion {
  std::optional<DType> type;
  std::string error;
};
Promotion promoteArithmetic(PromotionOperand a, PromotionOperand b,
                            bool trueDivision = false);

/// Default types of literals: ints that fit are int32, then int64; floats
/// are fp32; booleans int1.
DType literalIntType(int64_t value);

} // namespace tilec::dsl
