// Math builtins: tl.exp, tl.log, tl.sqrt, ... Computed in the operand's
// float type, fp16 and bf16 going through fp32 (and back), integers
// through fp32. They lower to libdevice calls or PTX instructions. Also
// the elementwise tl.minimum and tl.maximum; Python's min, max and abs of
// runtime values (IRGenPython.cpp) are these and tl.abs.
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

namespace tilec::dsl {

namespace arith = mlir::arith;

namespace {
enum class MathOp { Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Sin, Cos, Erf, Tanh,
                    Floor, Ceil, Abs, Sigmoid };

/// tl.fma(x, y, z): the three promoted together, computed in fp32 at least.
Value fma(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  g.requireIR(at, "tl.fma");
  Value x = g.toIR(args["x"], at), y = args["y"], z = args["z"];
  Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
  if (p.type)
    p = promoteArithmetic({*p.type, false}, promotionOperand(z));
  if (!p.type || !p.type->isFloat())
    fail(at, "tl.fma needs float operands, got " + x.describe());
  DType type = *p.type;
  DType compute = type.bits() < 32 ? DType{ScalarKind::Float32, false} : type;
  Value a = g.cast(x, compute, at), b = g.cast(g.toIR(y, at, compute), compute, at),
        c = g.cast(g.toIR(z, at, compute), compute, at);
  g.broadcastPair(a, b, at);
  g.broadcastPair(a, c, at);
  g.broadcastPair(a, b, at);
  auto op = g.builder().create<mlir::math::FmaOp>(g.loc(at), a.ir, b.ir, c.ir);
  return g.cast(Value::ofIR(op, a.type), type, at);
}

/// tl.div_rn(x, y): IEEE round-to-nearest division. tl.fdiv(x, y,
/// ieee_rounding=False): Triton's spelling, '/' unless asked for IEEE.
Value divide(Generator &g, const BuiltinArguments &args, bool fdiv) {
  SourceLoc at = args.at();
  const std::string &name = args.function();
  bool ieee = !fdiv;
  if (fdiv && args.has("ieee_rounding")) {
    const Value &r = args["ieee_rounding"];
    if (r.kind != Value::Kind::Bool)
      fail(args.loc("ieee_rounding"), "ieee_rounding must be True or False");
    ieee = r.boolValue;
  }
  const Value &x = args["x"], &y = args["y"];
  for (const Value *v : {&x, &y})
    if (v->isIR() && !v->type.element.isFloat())
      fail(at, name + " needs float operands, got " + v->describe());
  g.requireIR(at, name.c_str());
  Value q = g.binary(BinaryOp::Div, x, y, at);
  if (ieee && q.isIR())
    if (auto div = q.ir.getDefiningOp<mlir::arith::DivFOp>())
      div.setFastmath(mlir::arith::FastMathFlags::none);
  return q;
}

/// The unary function `op` of `input` (at `inputLoc`) as IR; `name` is
/// the builtin's, for messages.
Value unaryMath(Generator &g, MathOp op, const Value &input, SourceLoc inputLoc,
                SourceLoc at, const std::string &name) {
  g.requireIR(at, name.c_str());
  Value x = g.toIR(input, inputLoc);
  DType type = x.type.element;
  if (type.isPointer)
    fail(inputLoc, name + " of a pointer is not defined");
  mlir::OpBuilder &b = g.builder();
  mlir::Location where = g.loc(at);
  if (op == MathOp::Abs && type.isInt()) {
    if (!type.isSigned())
      return x;
    return Value::ofIR(b.create<mlir::math::AbsIOp>(where, x.ir), x.type);
  }
  // Math happens in fp32 at least; the result keeps the operand's float
  // type (integers give fp32).
  DType resultType = type.isFloat() ? type : DType{ScalarKind::Float32, false};
  DType compute = resultType.bits() < 32 ? DType{ScalarKind::Float32, false}
                                         : resultType;
  Value v = g.cast(x, compute, at);
  // exp and exp2 use the hardware's ex2.approx for fp32, as Triton does;
  // the rest are libdevice's accurate versions.
  auto fast = mlir::arith::FastMathFlagsAttr::get(
      b.getContext(), compute.bits() == 32 ? mlir::arith::FastMathFlags::afn
                                           : mlir::arith::FastMathFlags::none);
  mlir::Value out;
  switch (op) {
  case MathOp::Exp: out = b.create<mlir::math::ExpOp>(where, v.ir, fast); break;
  case MathOp::Exp2: out = b.create<mlir::math::Exp2Op>(where, v.ir, fast); break;
  case MathOp::Log: out = b.create<mlir::math::LogOp>(where, v.ir); break;
  case MathOp::Log2: out = b.create<mlir::math::Log2Op>(where, v.ir); break;
  case MathOp::Sqrt: out = b.create<mlir::math::SqrtOp>(where, v.ir); break;
  case MathOp::Rsqrt: out = b.create<mlir::math::RsqrtOp>(where, v.ir); break;
  case MathOp::Sin: out = b.create<mlir::math::SinOp>(where, v.ir); break;
  case MathOp::Cos: out = b.create<mlir::math::CosOp>(where, v.ir); break;
  case MathOp::Erf: out = b.create<mlir::math::ErfOp>(where, v.ir); break;
  case MathOp::Tanh: out = b.create<mlir::math::TanhOp>(where, v.ir); break;
  case MathOp::Floor: out = b.create<mlir::math::FloorOp>(where, v.ir); break;
  case MathOp::Ceil: out = b.create<mlir::math::CeilOp>(where, v.ir); break;
  case MathOp::Abs: out = b.create<mlir::math::AbsFOp>(where, v.ir); break;
  case MathOp::Sigmoid: {
    // 1 / (1 + exp(-x))
    Value neg = g.binary(BinaryOp::Sub, Value::ofFloat(0.0), v, at);
    Value e = Value::ofIR(b.create<mlir::math::ExpOp>(where, neg.ir, fast), v.type);
    Value denominator = g.binary(BinaryOp::Add, Value::ofFloat(1.0), e, at);
    out = g.binary(BinaryOp::Div, Value::ofFloat(1.0), denominator, at).ir;
    break;
  }
  }
  return g.cast(Value::ofIR(out, v.type), resultType, at);
}

/// tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE) and tl.maximum.
bool propagatesNan(const BuiltinArguments &args) {
  bool propagateNan = false;
  if (args.has("propagate_nan")) {
    const Value &p = args["propagate_nan"];
    if (p.kind != Value::Kind::Enum ||
        (p.text != "PropagateNan.NONE" && p.text != "PropagateNan.ALL"))
      fail(args.loc("propagate_nan"), "propagate_nan must be "
                                      "tl.PropagateNan.NONE or "
                                      "tl.PropagateNan.ALL, got " +
                                          p.describe());
    propagateNan = p.text == "PropagateNan.ALL";
  }
  return propagateNan;
}

Value minimumMaximum(Generator &g, const BuiltinArguments &args, bool isMin) {
  return g.minMax(isMin, args["x"], args["y"], propagatesNan(args), args.at(),
                  args.function());
}

/// tl.clamp(x, min, max, propagate_nan): maximum(minimum(x, max), min), on
/// floating-point values as Triton's (a NaN x gives max unless NaNs
/// propagate; min > max is not checked, as in Triton).
Value clamp(Generator &g, const BuiltinArguments &args) {
  auto isFloat = [](const Value &v) {
    return v.kind == Value::Kind::Float || (v.isIR() && v.type.element.isFloat());
  };
  if (!isFloat(args["x"]))
    fail(args.loc("x"), "tl.clamp clamps floating-point values, got " +
                            args["x"].describe());
  bool nan = propagatesNan(args);
  Value low = g.minMax(true, args["x"], args["max"], nan, args.at(), args.function());
  return g.minMax(false, low, args["min"], nan, args.at(), args.function());
}

bool isNan(const Value &v) {
  return v.kind == Value::Kind::Float && std::isnan(v.floatValue);
}
} // namespace

Value Generator::absolute(const Value &x, SourceLoc xLoc, SourceLoc at,
                          const std::string &what) {
  return unaryMath(*this, MathOp::Abs, x, xLoc, at, what);
}

Value Generator::minMax(bool isMin, const Value &x, const Value &y,
                        bool propagateNan, SourceLoc at, const std::string &what) {
  bool numbers = (x.isIR() || x.isNumber()) && (y.isIR() || y.isNumber());
  if (!numbers)
    fail(at, what + " needs numbers or tensors, got " + x.describe() + " and " +
                 y.describe());
  if (x.isConstexpr() && y.isConstexpr()) {
    // As the IR would: a NaN loses to a number, unless NaNs propagate.
    if (isNan(x) || isNan(y))
      return isNan(x) == propagateNan ? x : y;
    Value less = compare(CompareOp::Lt, x, y, at);
    return (less.boolValue == isMin) ? x : y;
  }
  Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
  if (!p.type || p.type->isBool())
    fail(at, what + " needs numbers, got " + x.describe() + " and " +
                 y.describe());
  DType type = *p.type;
  Value a = cast(toIR(x, at, type), type, at), b = cast(toIR(y, at, type), type, at);
  broadcastPair(a, b, at);
  mlir::Location where = loc(at);
  mlir::Value out;
  if (type.isFloat() && propagateNan)
    out = isMin ? b_.create<arith::MinimumFOp>(where, a.ir, b.ir).getResult()
                : b_.create<arith::MaximumFOp>(where, a.ir, b.ir).getResult();
  else if (type.isFloat())
    out = isMin ? b_.create<arith::MinNumFOp>(where, a.ir, b.ir).getResult()
                : b_.create<arith::MaxNumFOp>(where, a.ir, b.ir).getResult();
  else if (type.isSigned())
    out = isMin ? b_.create<arith::MinSIOp>(where, a.ir, b.ir).getResult()
                : b_.create<arith::MaxSIOp>(where, a.ir, b.ir).getResult();
  else
    out = isMin ? b_.create<arith::MinUIOp>(where, a.ir, b.ir).getResult()
                : b_.create<arith::MaxUIOp>(where, a.ir, b.ir).getResult();
  return Value::ofIR(out, a.type);
}

namespace {
const std::pair<const char *, MathOp> kUnaryMath[] = {
      {"tl.exp", MathOp::Exp},     {"tl.exp2", MathOp::Exp2},
      {"tl.log", MathOp::Log},     {"tl.log2", MathOp::Log2},
      {"tl.sqrt", MathOp::Sqrt},   {"tl.rsqrt", MathOp::Rsqrt},
      {"tl.sin", MathOp::Sin},     {"tl.cos", MathOp::Cos},
      {"tl.erf", MathOp::Erf},     {"tl.tanh", MathOp::Tanh},
      {"tl.floor", MathOp::Floor}, {"tl.ceil", MathOp::Ceil},
      {"tl.abs", MathOp::Abs},     {"tl.sigmoid", MathOp::Sigmoid}};
} // namespace

Value Generator::mathFunction(const std::string &name, const Value &x, SourceLoc at) {
  for (auto [entry, op] : kUnaryMath)
    if (name == entry)
      return unaryMath(*this, op, x, at, at, name);
  fail(at, "internal error: no math function " + name);
}

void addMathBuiltins(BuiltinTable &t) {
  for (auto [name, op] : kUnaryMath)
    t.add(name, {{"x"}, 1}, [op = op](Generator &g, const BuiltinArguments &a) {
      return unaryMath(g, op, a["x"], a.loc("x"), a.at(), a.function());
    });
  t.add("tl.fma", {{"x", "y", "z"}, 3}, fma);
  t.add("tl.div_rn", {{"x", "y"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return divide(g, a, false); });
  t.add("tl.fdiv", {{"x", "y", "ieee_rounding"}, 2},
        [](Generator &g, const BuiltinArguments &a) { return divide(g, a, true); });
  t.add("tl.minimum", {{"x", "y", "propagate_nan"}, 2},
        [](Generator &g, const BuiltinArguments &a) {
          return minimumMaximum(g, a, true);
        });
  t.add("tl.maximum", {{"x", "y", "propagate_nan"}, 2},
        [](Generator &g, const BuiltinArguments &a) {
          return minimumMaximum(g, a, false);
        });
  t.add("tl.clamp", {{"x", "min", "max", "propagate_nan"}, 3}, clamp);
}

} // namespace tilec::dsl
