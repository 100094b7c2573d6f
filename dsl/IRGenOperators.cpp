// Operators, conversions and broadcasting: the type rules of
// docs/language.md, applied while tile IR is built.
#include "dsl/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

namespace tilec::dsl {

namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Types, constants and conversions
//===----------------------------------------------------------------------===//

ValueType Generator::tensorType(DType element, std::vector<int64_t> shape,
                                SourceLoc l) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0 || !llvm::isPowerOf2_64(d))
      fail(l, "tensor dimensions must be powers of two, got shape " +
                  shapeString(shape));
    n *= d;
    if (n > kMaxTensorElements)
      fail(l, "a tensor of shape " + shapeString(shape) + " exceeds the " +
                  std::to_string(kMaxTensorElements) +
                  " elements a program can hold");
  }
  return ValueType{element, std::move(shape)};
}

int64_t Generator::constInt(const Value &v, SourceLoc l, const std::string &what) {
  if (v.kind == Value::Kind::Int)
    return v.intValue;
  if (v.kind == Value::Kind::Bool)
    return v.boolValue;
  fail(l, what + " must be a compile-time integer (a literal or a "
                 "tl.constexpr), got " + v.describe());
}

std::vector<int64_t> Generator::constShape(const Value &v, SourceLoc l,
                                           const std::string &what) {
  std::vector<int64_t> shape;
  if (v.kind == Value::Kind::Int) {
    shape.push_back(v.intValue);
  } else if (v.kind == Value::Kind::Tuple) {
    for (const Value &d : v.elements)
      shape.push_back(constInt(d, l, "each dimension of " + what));
  } else {
    fail(l, what + " must be a compile-time list of integers, got " +
                v.describe());
  }
  if (shape.empty())
    fail(l, what + " must have at least one dimension");
  return shape;
}

namespace {
bool fitsIn(int64_t v, DType t) {
  unsigned bits = t.bits();
  if (bits >= 64)
    return !(t.isInt() && !t.isSigned() && v < 0);
  if (bits == 1)
    return v == 0 || v == 1;
  if (t.isSigned())
    return v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1));
  return v >= 0 && v < (int64_t(1) << bits);
}
} // namespace

PromotionOperand promotionOperand(const Value &v) {
  if (v.isIR())
    return {v.type.element, false};
  if (v.kind == Value::Kind::Float)
    return {DType{ScalarKind::Float32, false}, true};
  if (v.kind == Value::Kind::Bool)
    return {DType{ScalarKind::Int1, false}, true};
  return {literalIntType(v.intValue), true};
}

mlir::TypedAttr Generator::numberAttr(const Value &v, DType t, SourceLoc l) {
  if (t.isPointer)
    fail(l, "cannot use " + v.describe() + " as a pointer");
  mlir::Type type = t.toMLIR(&ctx_);
  // Numbers become fp8 as conversions to fp8 do (cvt.rn.satfinite):
  // whatever lies beyond the largest finite value, infinity included,
  // becomes that value.
  auto floatAttr = [&](double x) {
    if (t.isFP8() && !std::isnan(x)) {
      double largest = llvm::APFloat::getLargest(
                           llvm::cast<mlir::FloatType>(type).getFloatSemantics())
                           .convertToDouble();
      x = std::clamp(x, -largest, largest);
    }
    return b_.getFloatAttr(type, x);
  };
  if (v.kind == Value::Kind::Float) {
    if (t.isFloat())
      return floatAttr(v.floatValue);
    if (t.isBool())
      return b_.getIntegerAttr(type, v.floatValue != 0);
    if (!std::isfinite(v.floatValue) || std::trunc(v.floatValue) != v.floatValue ||
        !fitsIn(int64_t(v.floatValue), t))
      fail(l, "float constant " + v.repr() + " cannot be represented as " +
                  t.name());
    return b_.getIntegerAttr(type, int64_t(v.floatValue));
  }
  int64_t i = v.kind == Value::Kind::Bool ? v.boolValue : v.intValue;
  if (t.isFloat())
    return floatAttr(double(i));
  if (!fitsIn(i, t))
    fail(l, "integer constant " + std::to_string(i) + " does not fit in " +
                t.name());
  return b_.getIntegerAttr(type, i);
}

Value Generator::toIR(const Value &v, SourceLoc l, std::optional<DType> as) {
  if (v.isIR())
    return v;
  requireIR(l, ("the value " + v.repr()).c_str());
  if (!v.isNumber())
    fail(l, "cannot use " + v.describe() + " as a value here");
  DType t = as ? *as : promotionOperand(v).type;
  // A float literal meeting an integer type is computed in fp32, as the
  // promotion rules say; every other literal takes the type asked for.
  if (as && v.kind == Value::Kind::Float && as->isInt() && !as->isBool())
    t = DType{ScalarKind::Float32, false};
  auto op = b_.create<arith::ConstantOp>(loc(l), numberAttr(v, t, l));
  return Value::ofIR(op, ValueType{t, {}});
}

Value Generator::cast(const Value &input, DType to, SourceLoc l, bool bitcast) {
  Value v = toIR(input, l, to.isPointer ? std::nullopt : std::optional<DType>(to));
  DType from = v.type.element;
  if (from == to)
    return v;
  ValueType resultType{to, v.type.shape};
  mlir::Type target = resultType.toMLIR(&ctx_);
  mlir::Location at = loc(l);
  auto result = [&](mlir::Value r) { return Value::ofIR(r, resultType); };
  if (from.isPointer || to.isPointer)
    fail(l, "cannot convert " + v.type.str() + " to " + to.name() +
                ": pointer conversions are not supported");
  // fp8 converts to and from fp32 only, as the hardware does (cvt between
  // f32 and e4m3x2/e5m2x2); every other type goes through fp32 first.
  DType fp32{ScalarKind::Float32, false};
  if (!bitcast && (from.isFP8() || to.isFP8()) && from != fp32 && to != fp32)
    return cast(cast(v, fp32, l), to, l);
  if (bitcast) {
    if (from.bits() != to.bits())
      fail(l, "bitcast needs types of one width, got " + from.name() + " and " +
                  to.name());
    return result(b_.create<arith::BitcastOp>(at, target, v.ir));
  }
  if (to.isBool()) // x != 0, as Python's bool()
    return toBool(v, l);
  if (from.isInt() && to.isInt()) {
    if (to.bits() > from.bits()) {
      if (from.isSigned())
        return result(b_.create<arith::ExtSIOp>(at, target, v.ir));
      return result(b_.create<arith::ExtUIOp>(at, target, v.ir));
    }
    if (to.bits() < from.bits())
      return result(b_.create<arith::TruncIOp>(at, target, v.ir));
    return Value::ofIR(v.ir, resultType); // signedness only
  }
  if (from.isInt() && to.isFloat()) {
    if (from.isSigned())
      return result(b_.create<arith::SIToFPOp>(at, target, v.ir));
    return result(b_.create<arith::UIToFPOp>(at, target, v.ir));
  }
  if (from.isFloat() && to.isInt()) {
    if (to.isSigned())
      return result(b_.create<arith::FPToSIOp>(at, target, v.ir));
    return result(b_.create<arith::FPToUIOp>(at, target, v.ir));
  }
  // Float to float. fp16 ↔ bf16 goes through fp32, which holds both.
  if (from.bits() == to.bits()) {
    Value wide = cast(v, DType{ScalarKind::Float32, false}, l);
    return cast(wide, to, l);
  }
  if (to.bits() > from.bits())
    return result(b_.create<arith::ExtFOp>(at, target, v.ir));
  return result(b_.create<arith::TruncFOp>(at, target, v.ir));
}

Value Generator::toBool(const Value &input, SourceLoc l) {
  Value v = toIR(input, l);
  if (v.type.element.isBool())
    return v;
  if (v.type.element.isPointer)
    fail(l, "a pointer cannot be used as a condition");
  Value zero = broadcastTo(toIR(Value::ofInt(0), l, v.type.element),
                           v.type.shape, l);
  ValueType type{DType{ScalarKind::Int1, false}, v.type.shape};
  mlir::Location at = loc(l);
  if (v.type.element.isFloat())
    return Value::ofIR(b_.create<arith::CmpFOp>(at, arith::CmpFPredicate::UNE,
                                                v.ir, zero.ir),
                       type);
  return Value::ofIR(
      b_.create<arith::CmpIOp>(at, arith::CmpIPredicate::ne, v.ir, zero.ir),
      type);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

Value Generator::broadcastTo(const Value &input, const std::vector<int64_t> &shape,
                             SourceLoc l) {
  Value v = toIR(input, l);
  if (v.type.shape == shape)
    return v;
  mlir::Location at = loc(l);
  if (!v.type.isTensor()) {
    ValueType type = tensorType(v.type.element, shape, l);
    return Value::ofIR(b_.create<tile::SplatOp>(at, type.toMLIR(&ctx_), v.ir),
                       type);
  }
  auto mismatch = [&]() {
    fail(l, "shape mismatch in broadcasting: " + shapeString(v.type.shape) +
                " cannot become " + shapeString(shape));
  };
  if (v.type.shape.size() > shape.size())
    mismatch();
  // Leading size-1 dimensions first (numpy aligns shapes on the right).
  while (v.type.shape.size() < shape.size()) {
    std::vector<int64_t> s = v.type.shape;
    s.insert(s.begin(), 1);
    ValueType type{v.type.element, s};
    v = Value::ofIR(b_.create<tile::ExpandDimsOp>(at, type.toMLIR(&ctx_), v.ir,
                                                  b_.getI32IntegerAttr(0)),
                    type);
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (v.type.shape[d] != shape[d] && v.type.shape[d] != 1)
      mismatch();
  ValueType type = tensorType(v.type.element, shape, l);
  return Value::ofIR(b_.create<tile::BroadcastOp>(at, type.toMLIR(&ctx_), v.ir),
                     type);
}

void Generator::broadcastPair(Value &a, Value &b, SourceLoc l) {
  const std::vector<int64_t> &sa = a.type.shape, &sb = b.type.shape;
  if (sa == sb)
    return;
  size_t rank = std::max(sa.size(), sb.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - sa.size() ? 1 : sa[i - (rank - sa.size())];
    int64_t db = i < rank - sb.size() ? 1 : sb[i - (rank - sb.size())];
    if (da != db && da != 1 && db != 1)
      fail(l, "shape mismatch in broadcasting: " + shapeString(sa) + " and " +
                  shapeString(sb));
    shape[i] = std::max(da, db);
  }
  a = broadcastTo(a, shape, l);
  b = broadcastTo(b, shape, l);
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

namespace {
double asDouble(const Value &v) {
  return v.kind == Value::Kind::Float ? v.floatValue
         : v.kind == Value::Kind::Int ? double(v.intValue)
                                      : double(v.boolValue);
}
int64_t asInt(const Value &v) {
  return v.kind == Value::Kind::Int ? v.intValue : int64_t(v.boolValue);
}
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
} // namespace

Value Generator::constantBinary(BinaryOp op, const Value &l, const Value &r,
                                SourceLoc at) {
  if (!l.isNumber() || !r.isNumber())
    fail(at, std::string("unsupported operand types for '") + spelling(op) +
                 "': " + l.describe() + " and " + r.describe());
  bool floats = l.kind == Value::Kind::Float || r.kind == Value::Kind::Float;
  if (floats) {
    double a = asDouble(l), b = asDouble(r);
    switch (op) {
    case BinaryOp::Add: return Value::ofFloat(a + b);
    case BinaryOp::Sub: return Value::ofFloat(a - b);
    case BinaryOp::Mul: return Value::ofFloat(a * b);
    case BinaryOp::Div:
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
      if (b == 0)
        fail(at, "division by zero in constant expression");
      if (op == BinaryOp::Div) return Value::ofFloat(a / b);
      if (op == BinaryOp::FloorDiv) return Value::ofFloat(std::floor(a / b));
      return Value::ofFloat(a - b * std::floor(a / b));
    case BinaryOp::Pow: return Value::ofFloat(std::pow(a, b));
    default:
      fail(at, std::string("'") + spelling(op) + "' needs integer operands");
    }
  }
  int64_t a = asInt(l), b = asInt(r), out = 0;
  auto overflow = [&]() -> Value {
    fail(at, "integer overflow in constant expression");
  };
  switch (op) {
  case BinaryOp::Add: if (__builtin_add_overflow(a, b, &out)) overflow(); break;
  case BinaryOp::Sub: if (__builtin_sub_overflow(a, b, &out)) overflow(); break;
  case BinaryOp::Mul: if (__builtin_mul_overflow(a, b, &out)) overflow(); break;
  case BinaryOp::Div:
    if (b == 0)
      fail(at, "division by zero in constant expression");
    return Value::ofFloat(double(a) / double(b));
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (b == 0)
      fail(at, "division by zero in constant expression");
    if (a == INT64_MIN && b == -1)
      overflow();
    out = op == BinaryOp::FloorDiv ? floorDiv(a, b) : a - b * floorDiv(a, b);
    break;
  case BinaryOp::Pow: {
    if (b < 0)
      return Value::ofFloat(std::pow(double(a), double(b)));
    out = 1;
    for (int64_t i = 0; i < b; ++i)
      if (__builtin_mul_overflow(out, a, &out))
        overflow();
    break;
  }
  case BinaryOp::LShift:
    if (b < 0 || b >= 63)
      fail(at, "shift count out of range in constant expression");
    if (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b)))
      overflow();
    out = a << b;
    break;
  case BinaryOp::RShift:
    if (b < 0)
      fail(at, "negative shift count in constant expression");
    out = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
    break;
  case BinaryOp::BitAnd: out = a & b; break;
  case BinaryOp::BitOr: out = a | b; break;
  case BinaryOp::BitXor: out = a ^ b; break;
  case BinaryOp::MatMul:
    fail(at, "'@' needs tensors (it is a matrix product), got " + l.describe() + " and " + r.describe());
  }
  if (l.kind == Value::Kind::Bool && r.kind == Value::Kind::Bool &&
      (op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor))
    return Value::ofBool(out != 0);
  return Value::ofInt(out);
}

Value Generator::pointerArithmetic(BinaryOp op, const Value &ptr,
                                   const Value &offsetIn, SourceLoc at) {
  bool offsetIsInt = offsetIn.kind == Value::Kind::Int ||
                     offsetIn.kind == Value::Kind::Bool ||
                     (offsetIn.isIR() && offsetIn.type.element.isInt() &&
                      !offsetIn.type.element.isBool());
  if (!offsetIsInt)
    fail(at, std::string("cannot ") + (op == BinaryOp::Add ? "add" : "subtract") +
                 " " + offsetIn.describe() + (op == BinaryOp::Add ? " to" : " from") +
                 " a pointer (" + ptr.type.str() +
                 "): pointer offsets must be integers");
  Value offset = toIR(offsetIn, at);
  if (op == BinaryOp::Sub)
    offset = binary(BinaryOp::Sub, Value::ofInt(0), offset, at);
  Value p = ptr;
  broadcastPair(p, offset, at);
  auto result = b_.create<tile::AddPtrOp>(loc(at), p.ir.getType(), p.ir, offset.ir);
  return Value::ofIR(result, p.type);
}

Value Generator::binary(BinaryOp op, const Value &l, const Value &r,
                        SourceLoc at) {
  if (l.isConstexpr() && r.isConstexpr())
    return constantBinary(op, l, r, at);
  if (op == BinaryOp::MatMul) // Triton's defaults: tf32, fp32 accumulator
    return dot(l, r, Value(), tile::InputPrecision::tf32,
               DType{ScalarKind::Float32, false}, at, at, at, at, "'@'");
  for (const Value *v : {&l, &r})
    if (!v->isIR() && !v->isNumber())
      fail(at, std::string("unsupported operand types for '") + spelling(op) +
                   "': " + l.describe() + " and " + r.describe());
  requireIR(at, "an operation on runtime values");

  bool lPtr = l.isIR() && l.type.element.isPointer;
  bool rPtr = r.isIR() && r.type.element.isPointer;
  if (lPtr || rPtr) {
    if (lPtr && rPtr)
      fail(at, std::string("'") + spelling(op) +
                   "' of two pointers is not supported");
    if (op == BinaryOp::Add)
      return lPtr ? pointerArithmetic(op, l, r, at) : pointerArithmetic(op, r, l, at);
    if (op == BinaryOp::Sub && lPtr)
      return pointerArithmetic(op, l, r, at);
    fail(at, std::string("operator '") + spelling(op) +
                 "' is not defined for pointers (" +
                 (lPtr ? l : r).type.str() + ")");
  }

  bool bitwise = op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
                 op == BinaryOp::BitXor || op == BinaryOp::LShift ||
                 op == BinaryOp::RShift;
  PromotionOperand lt = promotionOperand(l), rt = promotionOperand(r);
  DType type;
  if (bitwise && lt.type.isBool() && rt.type.isBool() &&
      op != BinaryOp::LShift && op != BinaryOp::RShift) {
    type = lt.type; // logical and/or/xor of booleans stay booleans
  } else {
    Promotion p = promoteArithmetic(lt, rt, op == BinaryOp::Div);
    if (!p.type)
      fail(at, p.error);
    type = *p.type;
  }
  if (bitwise && !type.isInt())
    fail(at, std::string("operator '") + spelling(op) +
                 "' needs integer operands, got " + l.describe() + " and " +
                 r.describe());
  if (op == BinaryOp::Pow)
    fail(at, "'**' on runtime values is not supported; use tl.exp and tl.log");
  if (type.isFP8()) {
    // fp8 computes in fp32, the result rounded to fp8 once: literals enter
    // unrounded, and `//` and `%` round only their final result.
    DType fp32{ScalarKind::Float32, false};
    Value wide = binary(op, cast(l, fp32, at), cast(r, fp32, at), at);
    return cast(wide, type, at);
  }

  Value a = cast(toIR(l, at, type), type, at);
  Value b = cast(toIR(r, at, type), type, at);
  broadcastPair(a, b, at);
  mlir::Location where = loc(at);
  mlir::Value x = a.ir, y = b.ir;
  mlir::Value out;
  bool isFloat = type.isFloat(), isSigned = type.isSigned();
  switch (op) {
  case BinaryOp::Add:
    out = isFloat ? b_.create<arith::AddFOp>(where, x, y).getResult()
                  : b_.create<arith::AddIOp>(where, x, y).getResult();
    break;
  case BinaryOp::Sub:
    out = isFloat ? b_.create<arith::SubFOp>(where, x, y).getResult()
                  : b_.create<arith::SubIOp>(where, x, y).getResult();
    break;
  case BinaryOp::Mul:
    out = isFloat ? b_.create<arith::MulFOp>(where, x, y).getResult()
                  : b_.create<arith::MulIOp>(where, x, y).getResult();
    break;
  case BinaryOp::Div: {
    // fp32 '/' is div.full.f32 (within 2 ulp), as Triton's is: the IEEE
    // division is a long instruction sequence per element that slows
    // kernels like softmax. tl.div_rn asks for the IEEE rounding.
    auto flags = type.scalar == ScalarKind::Float32 ? arith::FastMathFlags::afn
                                                  : arith::FastMathFlags::none;
    out = b_.create<arith::DivFOp>(where, x, y, flags);
    break;
  }
  case BinaryOp::FloorDiv:
    if (isFloat)
      out = b_.create<mlir::math::FloorOp>(
          where, b_.create<arith::DivFOp>(where, x, y));
    else
      out = isSigned ? b_.create<arith::DivSIOp>(where, x, y).getResult()
                     : b_.create<arith::DivUIOp>(where, x, y).getResult();
    break;
  case BinaryOp::Mod:
    if (isFloat)
      out = b_.create<arith::RemFOp>(where, x, y);
    else
      out = isSigned ? b_.create<arith::RemSIOp>(where, x, y).getResult()
                     : b_.create<arith::RemUIOp>(where, x, y).getResult();
    break;
  case BinaryOp::BitAnd: out = b_.create<arith::AndIOp>(where, x, y); break;
  case BinaryOp::BitOr: out = b_.create<arith::OrIOp>(where, x, y); break;
  case BinaryOp::BitXor: out = b_.create<arith::XOrIOp>(where, x, y); break;
  case BinaryOp::LShift: out = b_.create<arith::ShLIOp>(where, x, y); break;
  case BinaryOp::RShift:
    out = isSigned ? b_.create<arith::ShRSIOp>(where, x, y).getResult()
                   : b_.create<arith::ShRUIOp>(where, x, y).getResult();
    break;
  case BinaryOp::Pow:
  case BinaryOp::MatMul:
    break; // rejected above
  }
  return Value::ofIR(out, a.type);
}

Value Generator::compare(CompareOp op, const Value &l, const Value &r,
                         SourceLoc at) {
  if (op == CompareOp::Is || op == CompareOp::IsNot) {
    if (!l.isConstexpr() || !r.isConstexpr())
      fail(at, "'is' compares compile-time values only (e.g. `x is None`)");
    bool same = l.sameAs(r);
    return Value::ofBool(op == CompareOp::Is ? same : !same);
  }
  if (op == CompareOp::In || op == CompareOp::NotIn)
    fail(at, "'in' is not supported in tilec kernels");
  if (l.isConstexpr() && r.isConstexpr()) {
    if (!l.isNumber() || !r.isNumber()) {
      if (op == CompareOp::Eq) return Value::ofBool(l.sameAs(r));
      if (op == CompareOp::Ne) return Value::ofBool(!l.sameAs(r));
      fail(at, std::string("cannot compare ") + l.describe() + " and " +
                   r.describe() + " with '" + spelling(op) + "'");
    }
    bool floats = l.kind == Value::Kind::Float || r.kind == Value::Kind::Float;
    auto test = [&](auto a, auto b) {
      switch (op) {
      case CompareOp::Lt: return a < b;
      case CompareOp::Le: return a <= b;
      case CompareOp::Gt: return a > b;
      case CompareOp::Ge: return a >= b;
      case CompareOp::Eq: return a == b;
      default: return a != b;
      }
    };
    return Value::ofBool(floats ? test(asDouble(l), asDouble(r))
                                : test(asInt(l), asInt(r)));
  }
  for (const Value *v : {&l, &r})
    if (!v->isIR() && !v->isNumber())
      fail(at, std::string("cannot compare ") + l.describe() + " and " +
                   r.describe());
  requireIR(at, "a comparison of runtime values");
  Promotion p = promoteArithmetic(promotionOperand(l), promotionOperand(r));
  if (!p.type)
    fail(at, "cannot compare " + l.describe() + " and " + r.describe());
  DType type = *p.type;
  // i1 == i1 stays boolean.
  if (promotionOperand(l).type.isBool() && promotionOperand(r).type.isBool())
    type = DType{ScalarKind::Int1, false};
  // fp8 compares in fp32, exactly, against unrounded literals (`x < 1000`
  // must not become `x < 448`).
  if (type.isFP8())
    type = DType{ScalarKind::Float32, false};
  Value a = cast(toIR(l, at, type), type, at);
  Value b = cast(toIR(r, at, type), type, at);
  broadcastPair(a, b, at);
  ValueType result{DType{ScalarKind::Int1, false}, a.type.shape};
  mlir::Location where = loc(at);
  if (type.isFloat()) {
    arith::CmpFPredicate pred;
    switch (op) {
    case CompareOp::Lt: pred = arith::CmpFPredicate::OLT; break;
    case CompareOp::Le: pred = arith::CmpFPredicate::OLE; break;
    case CompareOp::Gt: pred = arith::CmpFPredicate::OGT; break;
    case CompareOp::Ge: pred = arith::CmpFPredicate::OGE; break;
    case CompareOp::Eq: pred = arith::CmpFPredicate::OEQ; break;
    default: pred = arith::CmpFPredicate::UNE; break;
    }
    Value cmp = Value::ofIR(b_.create<arith::CmpFOp>(where, pred, a.ir, b.ir), result);
    if (debug_) // for the report of a failed assertion
      comparisons_[cmp.ir] = {a, b};
    return cmp;
  }
  bool s = type.isSigned();
  arith::CmpIPredicate pred;
  switch (op) {
  case CompareOp::Lt: pred = s ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult; break;
  case CompareOp::Le: pred = s ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule; break;
  case CompareOp::Gt: pred = s ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt; break;
  case CompareOp::Ge: pred = s ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge; break;
  case CompareOp::Eq: pred = arith::CmpIPredicate::eq; break;
  default: pred = arith::CmpIPredicate::ne; break;
  }
  Value cmp = Value::ofIR(b_.create<arith::CmpIOp>(where, pred, a.ir, b.ir), result);
  if (debug_) // for the report of a failed assertion
    comparisons_[cmp.ir] = {a, b};
  return cmp;
}

Value Generator::where(const Value &c, const Value &x, const Value &y,
                       SourceLoc at) {
  requireIR(at, "tl.where");
  Value cond = toBool(toIR(c, at), at);
  if (!(x.isIR() || x.isNumber()) || !(y.isIR() || y.isNumber()))
    fail(at, "tl.where needs numbers or tensors, got " + x.describe() + " and " +
                 y.describe());
  DType type;
  PromotionOperand xt = promotionOperand(x), yt = promotionOperand(y);
  if (xt.type.isPointer || yt.type.isPointer) {
    if (xt.type != yt.type)
      fail(at, "tl.where of pointers needs both of one type");
    type = xt.type;
  } else if (xt.type.isBool() && yt.type.isBool()) {
    type = xt.type;
  } else {
    Promotion p = promoteArithmetic(xt, yt);
    if (!p.type)
      fail(at, p.error);
    type = *p.type;
  }
  Value a = type.isPointer ? x : cast(toIR(x, at, type), type, at);
  Value b = type.isPointer ? y : cast(toIR(y, at, type), type, at);
  broadcastPair(a, b, at);
  broadcastPair(cond, a, at);
  broadcastPair(cond, b, at);
  broadcastPair(a, b, at);
  auto op = b_.create<arith::SelectOp>(loc(at), cond.ir, a.ir, b.ir);
  return Value::ofIR(op, a.type);
}

} // namespace tilec::dsl
