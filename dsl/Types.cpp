#include "dsl/Types.h"

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

namespace tilec::dsl {

namespace {
struct ScalarInfo {
  ScalarKind kind;
  const char *shortName, *longName;
  unsigned bits;
  bool isFloat, isSigned;
};
const ScalarInfo kScalars[] = {
    {ScalarKind::Int1, "i1", "int1", 1, false, false},
    {ScalarKind::Int8, "i8", "int8", 8, false, true},
    {ScalarKind::Int16, "i16", "int16", 16, false, true},
    {ScalarKind::Int32, "i32", "int32", 32, false, true},
    {ScalarKind::Int64, "i64", "int64", 64, false, true},
    {ScalarKind::UInt8, "u8", "uint8", 8, false, false},
    {ScalarKind::UInt16, "u16", "uint16", 16, false, false},
    {ScalarKind::UInt32, "u32", "uint32", 32, false, false},
    {ScalarKind::UInt64, "u64", "uint64", 64, false, false},
    {ScalarKind::Float16, "fp16", "float16", 16, true, true},
    {ScalarKind::BFloat16, "bf16", "bfloat16", 16, true, true},
    {ScalarKind::Float32, "fp32", "float32", 32, true, true},
    {ScalarKind::Float64, "fp64", "float64", 64, true, true},
    {ScalarKind::Float8E4M3, "fp8e4nv", "float8e4nv", 8, true, true},
    {ScalarKind::Float8E5M2, "fp8e5", "float8e5", 8, true, true},
};
const ScalarInfo &info(ScalarKind k) { return kScalars[int(k)]; }

DType intType(unsigned bits, bool isSigned) {
  for (const ScalarInfo &s : kScalars)
    if (!s.isFloat && s.bits == bits && s.isSigned == isSigned)
      return {s.kind, false};
  return {ScalarKind::Int64, false};
}
} // namespace

bool DType::isInt() const { return !isPointer && !info(scalar).isFloat; }
bool DType::isFloat() const { return !isPointer && info(scalar).isFloat; }
bool DType::isFP8() const {
  return !isPointer &&
         (scalar == ScalarKind::Float8E4M3 || scalar == ScalarKind::Float8E5M2);
}
bool DType::isSigned() const { return isInt() && info(scalar).isSigned; }
unsigned DType::bits() const { return info(scalar).bits; }

std::string DType::name() const {
  return std::string(isPointer ? "*" : "") + info(scalar).shortName;
}

std::optional<DType> DType::parse(const std::string &text) {
  std::string name = text;
  bool pointer = !name.empty() && name[0] == '*';
  if (pointer)
    name = name.substr(1);
  // Common aliases of the spellings above.
  if (name == "fp8" || name.empty()) // which of the two fp8 formats?
    return std::nullopt;
  if (name == "float8_e4m3fn") // torch's names
    name = "fp8e4nv";
  if (name == "float8_e5m2")
    name = "fp8e5";
  if (name == "float")
    name = "fp32";
  if (name == "double")
    name = "fp64";
  if (name == "half")
    name = "fp16";
  if (name == "bool" || name == "int1")
    name = "i1";
  for (const ScalarInfo &s : kScalars)
    if (name == s.shortName || name == s.longName)
      return DType{s.kind, pointer};
  return std::nullopt;
}

mlir::Type DType::toMLIR(mlir::MLIRContext *ctx) const {
  mlir::Type scalarType;
  switch (scalar) {
  case ScalarKind::Float16: scalarType = mlir::Float16Type::get(ctx); break;
  case ScalarKind::BFloat16: scalarType = mlir::BFloat16Type::get(ctx); break;
  case ScalarKind::Float32: scalarType = mlir::Float32Type::get(ctx); break;
  case ScalarKind::Float64: scalarType = mlir::Float64Type::get(ctx); break;
  case ScalarKind::Float8E4M3: scalarType = mlir::Float8E4M3FNType::get(ctx); break;
  case ScalarKind::Float8E5M2: scalarType = mlir::Float8E5M2Type::get(ctx); break;
  default: scalarType = mlir::IntegerType::get(ctx, bits()); break;
  }
  if (isPointer)
    return tile::PointerType::get(ctx, scalarType);
  return scalarType;
}

int64_t ValueType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string ValueType::str() const {
  if (!isTensor())
    return element.name();
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element.name() + ">";
}

mlir::Type ValueType::toMLIR(mlir::MLIRContext *ctx) const {
  mlir::Type e = element.toMLIR(ctx);
  if (!isTensor())
    return e;
  return mlir::RankedTensorType::get(shape, e);
}

DType literalIntType(int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX)
    return {ScalarKind::Int32, false};
  return {ScalarKind::Int64, false};
}

Promotion promoteArithmetic(PromotionOperand a, PromotionOperand b,
                            bool trueDivision) {
  Promotion p;
  if (a.type.isPointer || b.type.isPointer) {
    p.error = "pointers take part only in `+` and `-` with an integer";
    return p;
  }
  DType fp32{ScalarKind::Float32, false};
  DType result;
  if (a.weak && !b.weak)
    std::swap(a, b); // `a` is now the strong operand, if any
  if (a.weak && b.weak) {
    // Two literals: the usual defaults, float winning.
    if (a.type.isFloat() || b.type.isFloat())
      result = fp32;
    else
      result = a.type.bits() >= b.type.bits() ? a.type : b.type;
  } else if (b.weak) {
    // A literal adopts the strong operand's type; an int literal meeting an
    // integer, or any number meeting a float. A float literal meeting an
    // integer makes fp32.
    if (a.type.isFloat() || b.type.isInt())
      result = a.type;
    else
      result = fp32;
  } else if (a.type.isFloat() || b.type.isFloat()) {
    if (a.type.isFloat() && b.type.isFloat()) {
      if (a.type.bits() == b.type.bits() && a.type != b.type)
        // fp16 with bf16 meet in fp32, the two fp8 formats in fp16 (as
        // in Triton)
        result = a.type.isFP8() ? DType{ScalarKind::Float16, false} : fp32;
      else
        result = a.type.bits() >= b.type.bits() ? a.type : b.type;
    } else {
      result = a.type.isFloat() ? a.type : b.type;
    }
  } else {
    // Integers: the wider wins; at equal width unsigned wins, as in C.
    unsigned bits = std::max(a.type.bits(), b.type.bits());
    bool aUnsignedWide = !a.type.isSigned() && a.type.bits() == bits;
    bool bUnsignedWide = !b.type.isSigned() && b.type.bits() == bits;
    bool isSigned = !(aUnsignedWide || bUnsignedWide);
    if (bits == 1) // bool with bool: arithmetic happens in int32
      result = {ScalarKind::Int32, false};
    else
      result = intType(bits, isSigned);
  }
  if (trueDivision && result.isInt())
    result = fp32;
  p.type = result;
  return p;
}

} // namespace tilec::dsl
