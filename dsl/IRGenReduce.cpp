// Reductions: tl.sum, tl.max, tl.min, tl.argmax, tl.argmin and tl.reduce
// with a user's @jit combiner, over one axis or all of them.
#include "dsl/BuiltinTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace tilec::dsl {

namespace arith = mlir::arith;

namespace {
/// The checks a reduction and a scan share: the operands have one shape of
/// rank >= 1 and `axis` (negative counts from the end) names one of its
/// dimensions. Returns the axis as a non-negative index. `verb` and `noun`
/// name the operation in messages ("reduce", "reduction").
int64_t checkedAxis(const std::vector<Value> &srcs, int64_t axis,
                    const std::string &verb, const std::string &noun,
                    SourceLoc at) {
  const std::vector<int64_t> &shape = srcs.front().type.shape;
  int64_t rank = shape.size();
  if (rank == 0)
    fail(at, "cannot " + verb + " a scalar");
  if (axis < -rank || axis >= rank)
    fail(at, "axis " + std::to_string(axis) + " is out of range for a rank-" +
                 std::to_string(rank) + " tensor");
  for (const Value &s : srcs)
    if (s.type.shape != shape)
      fail(at, "the tensors of a " + noun + " must share one shape");
  return axis < 0 ? axis + rank : axis;
}

/// The type a sum or a cumulative sum/product of `element` accumulates in:
/// `dtype=` when given, else 32-bit for narrower integers and fp32 for
/// fp16/bf16, else the element type itself.
DType accumulatorType(const BuiltinArguments &args, DType element) {
  if (args.has("dtype"))
    return dtypeArg(args["dtype"], args.loc("dtype"), "dtype");
  if (element.isInt() && element.bits() < 32)
    return DType{element.isSigned() || element.isBool() ? ScalarKind::Int32
                                                        : ScalarKind::UInt32,
                 false};
  if (element.isFloat() && element.bits() < 32)
    return DType{ScalarKind::Float32, false};
  return element;
}
} // namespace

std::vector<mlir::Value>
Generator::buildCombiner(mlir::Region &region, const std::vector<Value> &srcs,
                         const CombinerBuilder &body, SourceLoc at) {
  mlir::Location where = loc(at);
  mlir::Block *block = b_.createBlock(&region);
  std::vector<Value> lhs, rhs;
  for (int pass = 0; pass < 2; ++pass)
    for (const Value &src : srcs) {
      mlir::Value arg = block->addArgument(src.type.element.toMLIR(&ctx_), where);
      (pass == 0 ? lhs : rhs).push_back(
          Value::ofIR(arg, ValueType{src.type.element, {}}));
    }
  b_.setInsertionPointToEnd(block);
  std::vector<Value> combined = body(lhs, rhs);
  if (combined.size() != srcs.size())
    fail(at, "the combiner returns " + std::to_string(combined.size()) +
                 " values for " + std::to_string(srcs.size()) + " inputs");
  std::vector<mlir::Value> values;
  for (size_t i = 0; i < combined.size(); ++i) {
    Value v = cast(toIR(combined[i], at, srcs[i].type.element),
                   srcs[i].type.element, at);
    if (v.type.isTensor())
      fail(at, "a combiner must return scalars");
    values.push_back(v.ir);
  }
  return values;
}

std::vector<Value> Generator::reduce(const std::vector<Value> &srcs,
                                     int64_t axis, bool keepDims,
                                     const CombinerBuilder &body, SourceLoc at) {
  requireIR(at, "a reduction");
  axis = checkedAxis(srcs, axis, "reduce", "reduction", at);
  std::vector<int64_t> resultShape = srcs.front().type.shape;
  resultShape.erase(resultShape.begin() + axis);
  std::vector<mlir::Value> operands;
  std::vector<mlir::Type> resultTypes;
  std::vector<ValueType> resultValueTypes;
  for (const Value &s : srcs) {
    operands.push_back(s.ir);
    ValueType rt{s.type.element, resultShape};
    resultValueTypes.push_back(rt);
    resultTypes.push_back(rt.toMLIR(&ctx_));
  }
  mlir::Location where = loc(at);
  auto op = b_.create<tile::ReduceOp>(where, resultTypes, operands,
                                      b_.getI32IntegerAttr(int32_t(axis)));
  std::vector<mlir::Value> combined = buildCombiner(op.getCombiner(), srcs, body, at);
  b_.create<tile::ReduceReturnOp>(where, combined);
  b_.setInsertionPointAfter(op);
  std::vector<Value> results;
  for (size_t i = 0; i < srcs.size(); ++i) {
    Value r = Value::ofIR(op.getResult(i), resultValueTypes[i]);
    if (keepDims) {
      std::vector<int64_t> kept = resultShape;
      kept.insert(kept.begin() + axis, 1);
      ValueType type{r.type.element, kept};
      if (r.type.isTensor())
        r = Value::ofIR(b_.create<tile::ExpandDimsOp>(
                            where, type.toMLIR(&ctx_), r.ir,
                            b_.getI32IntegerAttr(int32_t(axis))),
                        type);
      else
        r = broadcastTo(r, kept, at);
    }
    results.push_back(r);
  }
  return results;
}

std::vector<Value> Generator::scan(const std::vector<Value> &srcs, int64_t axis,
                                   const CombinerBuilder &body, SourceLoc at) {
  requireIR(at, "a scan");
  axis = checkedAxis(srcs, axis, "scan", "scan", at);
  std::vector<mlir::Value> operands;
  std::vector<mlir::Type> types;
  for (const Value &s : srcs) {
    operands.push_back(s.ir);
    types.push_back(s.type.toMLIR(&ctx_));
  }
  mlir::Location where = loc(at);
  auto op = b_.create<tile::ScanOp>(where, types, operands,
                                    b_.getI32IntegerAttr(int32_t(axis)));
  std::vector<mlir::Value> combined = buildCombiner(op.getCombiner(), srcs, body, at);
  b_.create<tile::ScanReturnOp>(where, combined);
  b_.setInsertionPointAfter(op);
  std::vector<Value> results;
  for (size_t i = 0; i < srcs.size(); ++i)
    results.push_back(Value::ofIR(op.getResult(i), srcs[i].type));
  return results;
}

namespace {
/// The combiner of tl.reduce and tl.associative_scan: the user's @jit
/// function `combine_fn`, of 2N scalars returning N.
Generator::CombinerBuilder userCombiner(Generator &g, const BuiltinArguments &args) {
  const Value &fn = args["combine_fn"];
  if (fn.kind != Value::Kind::Function)
    fail(args.loc("combine_fn"),
         "combine_fn must be a @jit function, got " + fn.describe());
  auto function = fn.function;
  SourceLoc at = args.at();
  return [&g, function, at](const std::vector<Value> &l,
                            const std::vector<Value> &r) {
    std::vector<Value> all = l;
    all.insert(all.end(), r.begin(), r.end());
    return g.callJitValues(*function, all, at);
  };
}

/// The tensors a reduction or scan works on: `input`, or the tensors of a
/// tuple `input` when `tuples` (a user's combiner takes several).
std::vector<Value> inputTensors(const BuiltinArguments &args, bool tuples) {
  std::vector<Value> inputs;
  const Value &input = args["input"];
  if (input.kind == Value::Kind::Tuple && tuples)
    inputs = input.elements;
  else
    inputs.push_back(input);
  for (const Value &v : inputs) {
    if (!v.isIR() || !v.type.isTensor())
      fail(args.loc("input"), args.function() + " needs a tensor, got " + v.describe());
    if (v.type.element.isPointer)
      fail(args.loc("input"), args.function() + " of pointers is not supported");
  }
  return inputs;
}

/// A True/False argument, false when absent.
bool flagArgument(const BuiltinArguments &args, const std::string &name) {
  if (!args.has(name))
    return false;
  const Value &v = args[name];
  if (v.kind != Value::Kind::Bool)
    fail(args.loc(name), name + " must be True or False");
  return v.boolValue;
}

/// tl.cumsum and tl.cumprod (`op` Add or Mul), and tl.associative_scan
/// (no `op`: the user's combiner).
Value scanBuiltin(Generator &g, const BuiltinArguments &args,
                  std::optional<BinaryOp> op) {
  SourceLoc at = args.at();
  if (flagArgument(args, "reverse"))
    fail(args.loc("reverse"), args.function() + "(reverse=True) is not supported yet");
  std::vector<Value> inputs = inputTensors(args, /*tuples=*/!op);
  int64_t axis = args.has("axis") ? g.constInt(args["axis"], args.loc("axis"), "axis") : 0;
  Generator::CombinerBuilder body;
  if (!op) {
    body = userCombiner(g, args);
  } else {
    // As tl.sum: narrow integers accumulate in 32 bits, fp16/bf16 in fp32.
    inputs[0] = g.cast(inputs[0], accumulatorType(args, inputs[0].type.element), at);
    body = [&g, op, at](const std::vector<Value> &l, const std::vector<Value> &r) {
      return std::vector<Value>{g.binary(*op, l[0], r[0], at)};
    };
  }
  std::vector<Value> out = g.scan(inputs, axis, body, at);
  if (out.size() == 1)
    return out[0];
  return Value::ofTuple(out);
}
} // namespace

void addScanBuiltins(BuiltinTable &t) {
  t.add("tl.cumsum", {{"input", "axis", "reverse", "dtype"}, 1},
        [](Generator &g, const BuiltinArguments &a) {
          return scanBuiltin(g, a, BinaryOp::Add);
        });
  t.add("tl.cumprod", {{"input", "axis", "reverse", "dtype"}, 1},
        [](Generator &g, const BuiltinArguments &a) {
          return scanBuiltin(g, a, BinaryOp::Mul);
        });
  t.add("tl.associative_scan", {{"input", "axis", "combine_fn", "reverse"}, 3},
        [](Generator &g, const BuiltinArguments &a) {
          return scanBuiltin(g, a, std::nullopt);
        });
}

std::vector<Value> Generator::callJitValues(const JitFunction &fn,
                                            const std::vector<Value> &args,
                                            SourceLoc at) {
  // Build a call expression's worth of arguments without source: bind the
  // values to the callee's parameters through a synthetic environment.
  CallExpr call(at, nullptr);
  std::vector<std::string> temporaries;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string name = "\x01arg" + std::to_string(i); // not a Python name
    stack_.back().env[name] = args[i];
    temporaries.push_back(name);
    call.args.push_back(std::make_unique<NameExpr>(at, name));
  }
  // callJit may grow stack_, so the caller's frame is looked up again.
  Value result = callJit(fn, call);
  for (const std::string &name : temporaries)
    stack_.back().env.erase(name);
  if (result.kind == Value::Kind::Tuple)
    return result.elements;
  if (result.kind == Value::Kind::None)
    return {};
  return {result};
}

namespace {
enum class Reduction { Sum, XorSum, Max, Min, ArgMax, ArgMin };

/// The combiner of a builtin reduction of elements of `type`; argmax and
/// argmin combine (value, index) pairs.
Generator::CombinerBuilder builtinCombiner(Generator &g, Reduction r, DType type,
                                           SourceLoc at) {
  return [&g, r, type, at](const std::vector<Value> &l,
                           const std::vector<Value> &rr) {
    switch (r) {
    case Reduction::Sum:
      return std::vector<Value>{g.binary(BinaryOp::Add, l[0], rr[0], at)};
    case Reduction::XorSum:
      return std::vector<Value>{g.binary(BinaryOp::BitXor, l[0], rr[0], at)};
    case Reduction::Max:
    case Reduction::Min: {
      mlir::OpBuilder &b = g.builder();
      mlir::Location where = g.loc(at);
      mlir::Value x = l[0].ir, y = rr[0].ir, out;
      bool wantMax = r == Reduction::Max;
      if (type.isFloat())
        out = wantMax ? b.create<arith::MaxNumFOp>(where, x, y).getResult()
                      : b.create<arith::MinNumFOp>(where, x, y).getResult();
      else if (type.isSigned())
        out = wantMax ? b.create<arith::MaxSIOp>(where, x, y).getResult()
                      : b.create<arith::MinSIOp>(where, x, y).getResult();
      else
        out = wantMax ? b.create<arith::MaxUIOp>(where, x, y).getResult()
                      : b.create<arith::MinUIOp>(where, x, y).getResult();
      return std::vector<Value>{Value::ofIR(out, l[0].type)};
    }
    case Reduction::ArgMax:
    case Reduction::ArgMin: {
      // The better value wins; on a tie the smaller index, so the
      // combination is commutative and the result deterministic.
      bool wantMax = r == Reduction::ArgMax;
      Value better = g.compare(wantMax ? CompareOp::Gt : CompareOp::Lt, l[0], rr[0], at);
      Value equal = g.compare(CompareOp::Eq, l[0], rr[0], at);
      Value smaller = g.compare(CompareOp::Lt, l[1], rr[1], at);
      Value takeLeft = g.binary(BinaryOp::BitOr, better,
                                g.binary(BinaryOp::BitAnd, equal, smaller, at), at);
      return std::vector<Value>{g.where(takeLeft, l[0], rr[0], at),
                                g.where(takeLeft, l[1], rr[1], at)};
    }
    }
    return std::vector<Value>{};
  };
}

/// The index of each element of `src` along `axis`, as an i32 tensor of
/// `src`'s shape.
Value indicesAlong(Generator &g, const Value &src, int64_t axis, SourceLoc at) {
  const std::vector<int64_t> &shape = src.type.shape;
  int64_t rank = shape.size();
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail(at, "axis " + std::to_string(axis) + " is out of range");
  mlir::OpBuilder &b = g.builder();
  mlir::MLIRContext *ctx = b.getContext();
  int64_t extent = shape[a];
  Value index = rangeOf(g, extent, at);
  for (int64_t d = 0; d < rank; ++d) {
    if (d == a)
      continue;
    std::vector<int64_t> expanded = index.type.shape;
    int64_t position = d < a ? 0 : int64_t(expanded.size());
    expanded.insert(expanded.begin() + position, 1);
    ValueType t{index.type.element, expanded};
    index = Value::ofIR(b.create<tile::ExpandDimsOp>(
                            g.loc(at), t.toMLIR(ctx), index.ir,
                            b.getI32IntegerAttr(int32_t(position))),
                        t);
  }
  return g.broadcastTo(index, shape, at);
}

/// The axes to reduce, in order: `axis`, or every axis innermost first
/// when it is None (argmax and argmin need one unless the tensor is 1-D).
std::vector<int64_t> reductionAxes(Generator &g, const BuiltinArguments &args,
                                   int64_t rank, bool needsAxis) {
  if (args.has("axis"))
    return {g.constInt(args["axis"], args.loc("axis"), "axis")};
  if (needsAxis) {
    if (rank != 1)
      fail(args.at(), args.function() + " needs an axis for a tensor of rank " +
                          std::to_string(rank));
    return {0};
  }
  std::vector<int64_t> axes;
  for (int64_t a = rank - 1; a >= 0; --a)
    axes.push_back(a);
  return axes;
}

/// tl.sum, tl.max, tl.min, tl.argmax, tl.argmin (`kind`) and tl.reduce
/// (no `kind`: the user's combiner).
Value reduction(Generator &g, const BuiltinArguments &args,
                std::optional<Reduction> kind) {
  SourceLoc at = args.at();
  bool keepDims = flagArgument(args, "keep_dims");
  if ((kind == Reduction::Max || kind == Reduction::Min) &&
      args.has("return_indices") && args["return_indices"].kind == Value::Kind::Bool &&
      args["return_indices"].boolValue)
    kind = *kind == Reduction::Max ? Reduction::ArgMax : Reduction::ArgMin;
  std::vector<Value> current = inputTensors(args, /*tuples=*/!kind);
  // The accumulation type: sums of narrow integers in i32, of fp16/bf16 in
  // fp32 (the result has that type too).
  if (kind == Reduction::Sum)
    current[0] = g.cast(current[0], accumulatorType(args, current[0].type.element), at);
  if (kind == Reduction::XorSum &&
      (!current[0].type.element.isInt() || current[0].type.element.isPointer))
    fail(args.loc("input"), "tl.xor_sum needs integers, got " + current[0].type.str());
  bool arg = kind == Reduction::ArgMax || kind == Reduction::ArgMin;
  std::vector<int64_t> axes =
      reductionAxes(g, args, current[0].type.shape.size(), arg);
  for (int64_t axis : axes) {
    if (!kind) {
      current = g.reduce(current, axis, keepDims, userCombiner(g, args), at);
      continue;
    }
    Generator::CombinerBuilder body =
        builtinCombiner(g, *kind, current[0].type.element, at);
    if (arg) {
      // Pair each value with its index along the axis.
      std::vector<Value> pair = {current[0], indicesAlong(g, current[0], axis, at)};
      return g.reduce(pair, axis, keepDims, body, at)[1];
    }
    current = g.reduce(current, axis, keepDims, body, at);
  }
  if (current.size() == 1)
    return current[0];
  return Value::ofTuple(current);
}
} // namespace

void addReductionBuiltins(BuiltinTable &t) {
  auto add = [&t](const char *name, std::vector<std::string> params,
                  size_t required, std::optional<Reduction> kind) {
    t.add(name, {std::move(params), required},
          [kind](Generator &g, const BuiltinArguments &a) {
            return reduction(g, a, kind);
          });
  };
  add("tl.sum", {"input", "axis", "keep_dims", "dtype"}, 1, Reduction::Sum);
  add("tl.xor_sum", {"input", "axis", "keep_dims"}, 1, Reduction::XorSum);
  add("tl.max", {"input", "axis", "keep_dims", "return_indices"}, 1, Reduction::Max);
  add("tl.min", {"input", "axis", "keep_dims", "return_indices"}, 1, Reduction::Min);
  add("tl.argmax", {"input", "axis", "keep_dims"}, 1, Reduction::ArgMax);
  add("tl.argmin", {"input", "axis", "keep_dims"}, 1, Reduction::ArgMin);
  add("tl.reduce", {"input", "axis", "combine_fn", "keep_dims"}, 3, std::nullopt);
}

} // namespace tilec::dsl
