// Math builtins: tl.exp, tl.log, tl.sqrt, ... Computed in the operand's
// float type, fp16 and bf16 going through fp32 (and back), integers
// through fp32. They lower to libdevice calls or PTX instructions.
#include "dsl/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace tilec::dsl {

namespace {
enum class MathOp { Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Sin, Cos, Erf, Tanh,
                    Floor, Ceil, Abs, Sigmoid };

std::optional<MathOp> unaryMath(const std::string &name) {
  static const std::pair<const char *, MathOp> table[] = {
      {"tl.exp", MathOp::Exp},     {"tl.exp2", MathOp::Exp2},
      {"tl.log", MathOp::Log},     {"tl.log2", MathOp::Log2},
      {"tl.sqrt", MathOp::Sqrt},   {"tl.rsqrt", MathOp::Rsqrt},
      {"tl.sin", MathOp::Sin},     {"tl.cos", MathOp::Cos},
      {"tl.erf", MathOp::Erf},     {"tl.tanh", MathOp::Tanh},
      {"tl.floor", MathOp::Floor}, {"tl.ceil", MathOp::Ceil},
      {"tl.abs", MathOp::Abs},     {"tl.sigmoid", MathOp::Sigmoid}};
  for (auto &[n, op] : table)
    if (name == n)
      return op;
  return std::nullopt;
}
} // namespace

std::optional<Value> Generator::callMath(const std::string &name,
                                         const CallExpr &call) {
  SourceLoc at = call.loc;
  if (name == "tl.fma") {
    BuiltinArguments args(*this, call, name, {"x", "y", "z"}, 3);
    requireIR(at, "tl.fma");
    // Promote the three together, then compute in (at least) fp32.
    Value x = toIR(args["x"], at), y = args["y"], z = args["z"];
    Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
    if (p.type)
      p = promoteArithmetic({*p.type, false}, promotionOperand(z));
    if (!p.type || !p.type->isFloat())
      fail(at, "tl.fma needs float operands, got " + x.describe());
    DType type = *p.type;
    DType compute = type.bits() < 32 ? DType{ScalarKind::Float32, false} : type;
    Value a = cast(x, compute, at), b = cast(toIR(y, at, compute), compute, at),
          c = cast(toIR(z, at, compute), compute, at);
    broadcastPair(a, b, at);
    broadcastPair(a, c, at);
    broadcastPair(a, b, at);
    auto op = builder().create<mlir::math::FmaOp>(loc(at), a.ir, b.ir, c.ir);
    return cast(Value::ofIR(op, a.type), type, at);
  }
  if (name == "tl.div_rn" || name == "tl.fdiv") {
    // tl.div_rn(x, y): IEEE round-to-nearest division. tl.fdiv(x, y,
    // ieee_rounding=False): Triton's spelling, '/' unless asked for IEEE.
    bool fdiv = name == "tl.fdiv";
    std::vector<std::string> params = {"x", "y"};
    if (fdiv)
      params.push_back("ieee_rounding");
    BuiltinArguments args(*this, call, name, params, 2);
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
    requireIR(at, name.c_str());
    Value q = binary(BinaryOp::Div, x, y, at);
    if (ieee && q.isIR())
      if (auto div = q.ir.getDefiningOp<mlir::arith::DivFOp>())
        div.setFastmath(mlir::arith::FastMathFlags::none);
    return q;
  }
  std::optional<MathOp> kind = unaryMath(name);
  if (!kind)
    return std::nullopt;
  BuiltinArguments args(*this, call, name, {"x"}, 1);
  requireIR(at, name.c_str());
  Value x = toIR(args["x"], args.loc("x"));
  DType type = x.type.element;
  if (type.isPointer)
    fail(args.loc("x"), name + " of a pointer is not defined");
  mlir::OpBuilder &b = builder();
  mlir::Location where = loc(at);
  if (*kind == MathOp::Abs && type.isInt()) {
    if (!type.isSigned())
      return x;
    return Value::ofIR(b.create<mlir::math::AbsIOp>(where, x.ir), x.type);
  }
  // Math happens in fp32 at least; the result keeps the operand's float
  // type (integers give fp32).
  DType resultType = type.isFloat() ? type : DType{ScalarKind::Float32, false};
  DType compute = resultType.bits() < 32 ? DType{ScalarKind::Float32, false}
                                         : resultType;
  Value v = cast(x, compute, at);
  // exp and exp2 use the hardware's ex2.approx for fp32, as Triton does;
  // the rest are libdevice's accurate versions.
  auto fast = mlir::arith::FastMathFlagsAttr::get(
      b.getContext(), compute.bits() == 32 ? mlir::arith::FastMathFlags::afn
                                           : mlir::arith::FastMathFlags::none);
  mlir::Value out;
  switch (*kind) {
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
    Value neg = binary(BinaryOp::Sub, Value::ofFloat(0.0), v, at);
    Value e = Value::ofIR(b.create<mlir::math::ExpOp>(where, neg.ir, fast), v.type);
    Value denominator = binary(BinaryOp::Add, Value::ofFloat(1.0), e, at);
    out = binary(BinaryOp::Div, Value::ofFloat(1.0), denominator, at).ir;
    break;
  }
  }
  return cast(Value::ofIR(out, v.type), resultType, at);
}

} // namespace tilec::dsl
