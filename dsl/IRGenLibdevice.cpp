// libdevice.NAME: the functions of Triton's `triton.language.extra.libdevice`
// (also tl.extra.cuda.libdevice) that kernels call most, as math-dialect
// ops, which the lowering turns into calls of CUDA's libdevice (__nv_powf,
// __nv_atan2, ...) or into PTX instructions, and which the interpreter runs
// with the C library's functions. Float functions compute fp32 and fp64 in
// their own type, fp16 and bf16 through fp32 (Triton's libdevice refuses
// them), integers through fp32; isnan/isinf give booleans (as Triton's),
// clz and popc int32 (as libdevice's).
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace tilec::dsl {

namespace {

namespace math = mlir::math;
namespace arith = mlir::arith;

using UnaryBuild = mlir::Value (*)(mlir::OpBuilder &, mlir::Location, mlir::Value);
using BinaryBuild = mlir::Value (*)(mlir::OpBuilder &, mlir::Location, mlir::Value,
                                    mlir::Value);

template <class Op> mlir::Value unary(mlir::OpBuilder &b, mlir::Location l, mlir::Value x) {
  return b.create<Op>(l, x);
}
template <class Op>
mlir::Value binary(mlir::OpBuilder &b, mlir::Location l, mlir::Value x, mlir::Value y) {
  return b.create<Op>(l, x, y);
}

const std::pair<const char *, UnaryBuild> kUnary[] = {
    {"acos", unary<math::AcosOp>},       {"acosh", unary<math::AcoshOp>},
    {"asin", unary<math::AsinOp>},       {"asinh", unary<math::AsinhOp>},
    {"atan", unary<math::AtanOp>},       {"atanh", unary<math::AtanhOp>},
    {"cbrt", unary<math::CbrtOp>},       {"ceil", unary<math::CeilOp>},
    {"cos", unary<math::CosOp>},         {"cosh", unary<math::CoshOp>},
    {"erf", unary<math::ErfOp>},         {"erfc", unary<math::ErfcOp>},
    {"exp", unary<math::ExpOp>},         {"exp2", unary<math::Exp2Op>},
    {"expm1", unary<math::ExpM1Op>},     {"fabs", unary<math::AbsFOp>},
    {"floor", unary<math::FloorOp>},     {"log", unary<math::LogOp>},
    {"log10", unary<math::Log10Op>},     {"log1p", unary<math::Log1pOp>},
    {"log2", unary<math::Log2Op>},       {"nearbyint", unary<math::RoundEvenOp>},
    {"rint", unary<math::RoundEvenOp>},  {"round", unary<math::RoundOp>},
    {"rsqrt", unary<math::RsqrtOp>},     {"sin", unary<math::SinOp>},
    {"sinh", unary<math::SinhOp>},       {"sqrt", unary<math::SqrtOp>},
    {"tan", unary<math::TanOp>},         {"tanh", unary<math::TanhOp>},
    {"trunc", unary<math::TruncOp>},
};

/// libdevice's fast_* functions (fp32): the same math ops marked `afn`
/// (approximate functions allowed), which the lowering turns into the
/// hardware's approximations (upstream's calls of libdevice's
/// __nv_fast_*: ex2.approx, lg2.approx, sin/cos.approx; tanh into
/// tanh.approx.f32 itself: one or two special-function instructions
/// instead of an accurate sequence), and the interpreter runs as the
/// exact functions.
template <class Op> mlir::Value approx(mlir::OpBuilder &b, mlir::Location l, mlir::Value x) {
  return b.create<Op>(l, x, arith::FastMathFlags::afn);
}
template <class Op>
mlir::Value approx2(mlir::OpBuilder &b, mlir::Location l, mlir::Value x, mlir::Value y) {
  return b.create<Op>(l, x, y, arith::FastMathFlags::afn);
}

const std::pair<const char *, UnaryBuild> kFastUnary[] = {
    {"fast_cosf", approx<math::CosOp>},     {"fast_expf", approx<math::ExpOp>},
    {"fast_log10f", approx<math::Log10Op>}, {"fast_log2f", approx<math::Log2Op>},
    {"fast_logf", approx<math::LogOp>},     {"fast_sinf", approx<math::SinOp>},
    {"fast_tanf", approx<math::TanOp>},     {"fast_tanhf", approx<math::TanhOp>},
};

const std::pair<const char *, BinaryBuild> kFastBinary[] = {
    {"fast_powf", approx2<math::PowFOp>},
};

const std::pair<const char *, BinaryBuild> kBinary[] = {
    {"atan2", binary<math::Atan2Op>},    {"copysign", binary<math::CopySignOp>},
    {"fmax", binary<arith::MaxNumFOp>},  {"fmin", binary<arith::MinNumFOp>},
    {"fmod", binary<arith::RemFOp>},     {"pow", binary<math::PowFOp>},
};

const DType kF32{ScalarKind::Float32, false};
const DType kI32{ScalarKind::Int32, false};

/// The float type `name` computes `v` in, and the type of its result: fp32
/// and fp64 their own; fp16, bf16 and integers in fp32, the result in the
/// operand's float type (fp32 for integers).
std::pair<DType, DType> floatTypes(const Value &v, SourceLoc l, const std::string &name) {
  DType t = v.type.element;
  if (t.isPointer || t.isFP8() || t.isBool())
    fail(l, name + " takes floats or integers, got " + v.describe());
  DType result = t.isFloat() ? t : kF32;
  return {result.bits() < 32 ? kF32 : result, result};
}

/// A fast_* function (fp32 only) refuses fp64, which it would round.
void requireSingle(DType compute, SourceLoc l, const std::string &name) {
  if (compute.bits() > 32)
    fail(l, name + " approximates in fp32 and takes fp32, fp16, bf16 or integers, got fp64");
}

Value unaryFloat(Generator &g, const BuiltinArguments &args, UnaryBuild build,
                 bool fast = false) {
  SourceLoc at = args.at();
  g.requireIR(at, args.function().c_str());
  Value x = g.toIR(args["x"], args.loc("x"));
  auto [compute, result] = floatTypes(x, args.loc("x"), args.function());
  if (fast)
    requireSingle(compute, args.loc("x"), args.function());
  Value v = g.cast(x, compute, at);
  mlir::Value out = build(g.builder(), g.loc(at), v.ir);
  return g.cast(Value::ofIR(out, v.type), result, at);
}

Value binaryFloat(Generator &g, const BuiltinArguments &args, BinaryBuild build,
                  bool fast = false) {
  SourceLoc at = args.at();
  g.requireIR(at, args.function().c_str());
  const Value &x = args["x"], &y = args["y"];
  Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
  if (!p.type)
    fail(at, args.function() + " needs numbers, got " + x.describe() + " and " +
                 y.describe());
  Value xi = g.toIR(x, args.loc("x"), *p.type);
  auto [compute, result] = floatTypes(Value::ofIR(xi.ir, ValueType{*p.type, xi.type.shape}),
                                      at, args.function());
  if (fast)
    requireSingle(compute, at, args.function());
  Value a = g.cast(xi, compute, at);
  Value b = g.cast(g.toIR(y, args.loc("y"), *p.type), compute, at);
  g.broadcastPair(a, b, at);
  mlir::Value out = build(g.builder(), g.loc(at), a.ir, b.ir);
  return g.cast(Value::ofIR(out, a.type), result, at);
}

/// libdevice.isnan / isinf: booleans, as Triton's (it converts libdevice's
/// int32 to int1), so that `~libdevice.isnan(x)` negates.
Value classify(Generator &g, const BuiltinArguments &args, bool nan) {
  SourceLoc at = args.at();
  g.requireIR(at, args.function().c_str());
  Value x = g.toIR(args["x"], args.loc("x"));
  if (!x.type.element.isFloat() || x.type.element.isFP8())
    fail(args.loc("x"), args.function() + " takes floats, got " + x.describe());
  Value v = g.cast(x, floatTypes(x, at, args.function()).first, at);
  mlir::OpBuilder &b = g.builder();
  mlir::Location where = g.loc(at);
  mlir::Value bit = nan ? b.create<math::IsNaNOp>(where, v.ir).getResult()
                        : b.create<math::IsInfOp>(where, v.ir).getResult();
  return Value::ofIR(bit, ValueType{DType{ScalarKind::Int1, false}, v.type.shape});
}

/// libdevice.fma(x, y, z): one rounding, in the promoted float type (fp32
/// for fp16, bf16 and integers), as the other functions compute.
Value fusedMultiplyAdd(Generator &g, const BuiltinArguments &args) {
  SourceLoc at = args.at();
  g.requireIR(at, args.function().c_str());
  const Value &x = args["x"], &y = args["y"], &z = args["z"];
  Promotion p = promoteArithmetic(promotionOperand(x), promotionOperand(y));
  if (p.type)
    p = promoteArithmetic({*p.type, false}, promotionOperand(z));
  if (!p.type)
    fail(at, args.function() + " needs numbers, got " + x.describe() + ", " + y.describe() +
                 " and " + z.describe());
  Value xi = g.toIR(x, args.loc("x"), *p.type);
  auto [compute, result] = floatTypes(Value::ofIR(xi.ir, ValueType{*p.type, xi.type.shape}),
                                      at, args.function());
  Value a = g.cast(xi, compute, at);
  Value b = g.cast(g.toIR(y, args.loc("y"), *p.type), compute, at);
  Value c = g.cast(g.toIR(z, args.loc("z"), *p.type), compute, at);
  g.broadcastPair(a, b, at);
  g.broadcastPair(a, c, at);
  g.broadcastPair(a, b, at);
  auto op = g.builder().create<math::FmaOp>(g.loc(at), a.ir, b.ir, c.ir);
  return g.cast(Value::ofIR(op, a.type), result, at);
}

/// libdevice.clz / popc of a 32- or 64-bit integer, as int32.
Value countBits(Generator &g, const BuiltinArguments &args, bool leadingZeros) {
  SourceLoc at = args.at();
  g.requireIR(at, args.function().c_str());
  Value x = g.toIR(args["x"], args.loc("x"));
  DType t = x.type.element;
  if (t.isPointer || !t.isInt() || t.isBool() || (t.bits() != 32 && t.bits() != 64))
    fail(args.loc("x"), args.function() + " takes a 32- or 64-bit integer, got " +
                            x.describe());
  mlir::OpBuilder &b = g.builder();
  mlir::Location where = g.loc(at);
  mlir::Value count = leadingZeros
                          ? b.create<math::CountLeadingZerosOp>(where, x.ir).getResult()
                          : b.create<math::CtPopOp>(where, x.ir).getResult();
  // A count fits any integer type: reinterpret as signed, then narrow.
  DType same{t.bits() == 64 ? ScalarKind::Int64 : ScalarKind::Int32, false};
  return g.cast(Value::ofIR(count, ValueType{same, x.type.shape}), kI32, at);
}

} // namespace

void addLibdeviceBuiltins(BuiltinTable &t) {
  for (auto [name, build] : kUnary)
    t.add(std::string("libdevice.") + name, {{"x"}, 1},
          [build = build](Generator &g, const BuiltinArguments &a) {
            return unaryFloat(g, a, build);
          });
  for (auto [name, build] : kBinary)
    t.add(std::string("libdevice.") + name, {{"x", "y"}, 2},
          [build = build](Generator &g, const BuiltinArguments &a) {
            return binaryFloat(g, a, build);
          });
  for (auto [name, build] : kFastUnary)
    t.add(std::string("libdevice.") + name, {{"x"}, 1},
          [build = build](Generator &g, const BuiltinArguments &a) {
            return unaryFloat(g, a, build, /*fast=*/true);
          });
  for (auto [name, build] : kFastBinary)
    t.add(std::string("libdevice.") + name, {{"x", "y"}, 2},
          [build = build](Generator &g, const BuiltinArguments &a) {
            return binaryFloat(g, a, build, /*fast=*/true);
          });
  t.add("libdevice.fma", {{"x", "y", "z"}, 3}, fusedMultiplyAdd);
  t.add("libdevice.isnan", {{"x"}, 1},
        [](Generator &g, const BuiltinArguments &a) { return classify(g, a, true); });
  t.add("libdevice.isinf", {{"x"}, 1},
        [](Generator &g, const BuiltinArguments &a) { return classify(g, a, false); });
  t.add("libdevice.clz", {{"x"}, 1},
        [](Generator &g, const BuiltinArguments &a) { return countBits(g, a, true); });
  t.add("libdevice.popc", {{"x"}, 1},
        [](Generator &g, const BuiltinArguments &a) { return countBits(g, a, false); });
}

} // namespace tilec::dsl
