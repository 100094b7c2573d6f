// tl.dot and `a @ b`: the checks Triton makes on a matrix product, as
// located errors, and the tile.dot they build.
#include "dsl/BuiltinTable.h"

#include <limits>

namespace tilec::dsl {

namespace {
std::string dtypeList(std::initializer_list<ScalarKind> kinds) {
  std::string text;
  for (ScalarKind k : kinds)
    text += (text.empty() ? "" : ", ") + DType{k, false}.name();
  return text;
}

/// The accumulator type of a dot of `operand`s when the caller asked for
/// `requested` (tl.float32 unless given), or an error. As in Triton:
/// integers sum in i32 and fp32/bf16 in fp32 whatever `out_dtype` says;
/// only fp16 operands may accumulate in fp16; bf16 is never an
/// accumulator.
DType accumulatorType(DType operand, DType requested, SourceLoc l) {
  if (requested.scalar == ScalarKind::BFloat16)
    fail(l, "out_dtype=bfloat16 is not supported; accumulate in float32 and "
            "cast the result with .to(tl.bfloat16)");
  switch (operand.scalar) {
  case ScalarKind::Int8:
    return DType{ScalarKind::Int32, false};
  case ScalarKind::BFloat16:
  case ScalarKind::Float32:
    return DType{ScalarKind::Float32, false};
  case ScalarKind::Float8E4M3:
  case ScalarKind::Float8E5M2:
    // The tensor cores sum fp8 products in fp32 only.
    if (requested.scalar == ScalarKind::Float32)
      return requested;
    fail(l, "tl.dot of fp8 operands accumulates in float32, not in " +
                requested.name());
  case ScalarKind::Float16:
    if (requested.scalar == ScalarKind::Float16 ||
        requested.scalar == ScalarKind::Float32)
      return requested;
    fail(l, "tl.dot of fp16 operands cannot accumulate in " + requested.name() +
                " (fp32 or fp16)");
  default:
    fail(l, "tl.dot does not support " + operand.name() + " operands (it takes " +
                dtypeList({ScalarKind::Float16, ScalarKind::BFloat16,
                           ScalarKind::Float32, ScalarKind::Int8,
                           ScalarKind::Float8E4M3, ScalarKind::Float8E5M2}) +
                ")");
  }
}
} // namespace

Value Generator::dot(const Value &a, const Value &b, const Value &acc,
                     tile::InputPrecision precision, DType outDtype,
                     SourceLoc at, SourceLoc aLoc, SourceLoc bLoc,
                     SourceLoc accLoc, const char *spelling) {
  for (auto [v, l, which] : {std::tuple{&a, aLoc, "first"},
                             std::tuple{&b, bLoc, "second"}}) {
    if (!v->isIR() || !v->type.isTensor())
      fail(l, std::string("the ") + which + " operand of " + spelling +
                 " must be a tensor, got " + v->describe());
    if (v->type.element.isPointer)
      fail(l, std::string("the ") + which + " operand of tl.dot is a tensor of "
                 "pointers (" + v->type.str() + "); load it first");
  }
  const std::vector<int64_t> &as = a.type.shape, &bs = b.type.shape;
  size_t rank = as.size();
  if (rank != bs.size())
    fail(at, "tl.dot operands must have the same rank, got " + a.type.str() +
                 " and " + b.type.str());
  if (rank != 2 && rank != 3)
    fail(at, "tl.dot takes 2-D operands, or 3-D ones with a leading batch "
             "dimension, got " + a.type.str());
  if (as[rank - 1] != bs[rank - 2])
    fail(at, "tl.dot shapes " + shapeString(as) + " and " + shapeString(bs) +
                 " are not compatible: K is " + std::to_string(as[rank - 1]) +
                 " in the first and " + std::to_string(bs[rank - 2]) +
                 " in the second");
  if (rank == 3 && as[0] != bs[0])
    fail(at, "tl.dot operands must have the same batch size, got " +
                 shapeString(as) + " and " + shapeString(bs));
  int64_t m = as[rank - 2], n = bs[rank - 1], k = as[rank - 1];
  if (m < 16 || n < 16 || k < 16)
    fail(at, "tl.dot needs M, N and K of at least 16 (tensor-core tiles), got "
             "M=" + std::to_string(m) + ", N=" + std::to_string(n) +
                 ", K=" + std::to_string(k));
  // The two fp8 formats may meet (e4m3 x e5m2), as in Triton.
  if (a.type.element != b.type.element &&
      !(a.type.element.isFP8() && b.type.element.isFP8()))
    fail(at, "tl.dot operands must have the same dtype, got " +
                 a.type.element.name() + " and " + b.type.element.name() +
                 "; cast one with .to()");
  DType accType = accumulatorType(a.type.element, outDtype, at);

  std::vector<int64_t> shape(as.begin(), as.end());
  shape[rank - 1] = n;
  ValueType resultType = tensorType(accType, shape, at);
  Value c;
  if (acc.kind == Value::Kind::None) {
    c = broadcastTo(cast(Value::ofInt(0), accType, at), shape, at);
  } else {
    if (!acc.isIR() || acc.type != resultType)
      fail(accLoc, "the accumulator of tl.dot must be " + resultType.str() +
                       " (the product's shape and type), got " + acc.describe());
    c = acc;
  }
  requireIR(at, "tl.dot");
  auto op = b_.create<tile::DotOp>(loc(at), c.ir.getType(), a.ir, b.ir, c.ir,
                                   precision, /*maxNumImpreciseAcc=*/mlir::IntegerAttr());
  return Value::ofIR(op, resultType);
}

namespace {
Value dotBuiltin(Generator &g, const BuiltinArguments &args) {
  auto precision = tile::InputPrecision::tf32; // Triton's default
  if (args.has("input_precision")) {
    std::string text = args.text("input_precision");
    if (text == "tf32")
      precision = tile::InputPrecision::tf32;
    else if (text == "tf32x3")
      precision = tile::InputPrecision::tf32x3;
    else if (text == "ieee")
      precision = tile::InputPrecision::ieee;
    else
      fail(args.loc("input_precision"),
           "unknown input_precision '" + text +
               "' (expected one of 'tf32', 'tf32x3', 'ieee')");
  }
  // Only fp8 products accumulate imprecisely (Hopper's wgmma): the count
  // bounds how many K elements they may, as in Triton; None (or a count
  // above K) leaves the instruction's own accumulation.
  std::optional<int64_t> count;
  if (args.has("max_num_imprecise_acc")) {
    count = g.constInt(args["max_num_imprecise_acc"], args.loc("max_num_imprecise_acc"),
                       "max_num_imprecise_acc");
    if (*count < 0 || *count > std::numeric_limits<int32_t>::max())
      fail(args.loc("max_num_imprecise_acc"),
           "max_num_imprecise_acc must be a non-negative int32, got " +
               std::to_string(*count));
  }
  DType out{ScalarKind::Float32, false};
  if (args.has("out_dtype"))
    out = dtypeArg(args["out_dtype"], args.loc("out_dtype"), "out_dtype");
  Value product = g.dot(args["input"], args["other"], args["acc"], precision, out,
                        args.at(), args.loc("input"), args.loc("other"),
                        args.loc("acc"));
  const Value &a = args["input"];
  if (count && a.type.element.isFP8()) {
    int64_t k = a.type.shape.back();
    if (*count > k)
      fail(args.loc("max_num_imprecise_acc"),
           "max_num_imprecise_acc (" + std::to_string(*count) +
               ") must be at most K (" + std::to_string(k) + ")");
    auto dot = product.ir.getDefiningOp<tile::DotOp>();
    dot.setMaxNumImpreciseAccAttr(
        g.builder().getI32IntegerAttr(int32_t(*count)));
  }
  return product;
}
} // namespace

void addDotBuiltins(BuiltinTable &t) {
  t.add("tl.dot",
        {{"input", "other", "acc", "input_precision", "max_num_imprecise_acc",
          "out_dtype"},
         2},
        dotBuiltin);
}

} // namespace tilec::dsl
