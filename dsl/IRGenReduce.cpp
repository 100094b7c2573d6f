// Reductions: tl.sum, tl.max, tl.min, tl.argmax, tl.argmin and tl.reduce
// with a user's @jit combiner, over one axis or all of them.
#include "dsl/IRGenImpl.h"

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

std::optional<Value> Generator::callScan(const std::string &name,
                                         const CallExpr &call) {
  bool sum = name == "tl.cumsum", product = name == "tl.cumprod";
  bool user = name == "tl.associative_scan";
  if (!sum && !product && !user)
    return std::nullopt;
  SourceLoc at = call.loc;
  std::vector<std::string> params = {"input", "axis"};
  if (user)
    params.push_back("combine_fn");
  params.push_back("reverse");
  if (!user)
    params.push_back("dtype");
  BuiltinArguments args(*this, call, name, params, user ? 3 : 1);
  if (args.has("reverse")) {
    const Value &r = args["reverse"];
    if (r.kind != Value::Kind::Bool)
      fail(args.loc("reverse"), "reverse must be True or False");
    if (r.boolValue)
      fail(args.loc("reverse"), name + "(reverse=True) is not supported yet");
  }
  std::vector<Value> inputs;
  const Value &input = args["input"];
  if (input.kind == Value::Kind::Tuple && user)
    inputs = input.elements;
  else
    inputs.push_back(input);
  for (const Value &v : inputs) {
    if (!v.isIR() || !v.type.isTensor())
      fail(args.loc("input"), name + " needs a tensor, got " + v.describe());
    if (v.type.element.isPointer)
      fail(args.loc("input"), name + " of pointers is not supported");
  }
  int64_t axis = args.has("axis") ? constInt(args["axis"], args.loc("axis"), "axis") : 0;

  CombinerBuilder body;
  if (user) {
    const Value &fn = args["combine_fn"];
    if (fn.kind != Value::Kind::Function)
      fail(args.loc("combine_fn"),
           "combine_fn must be a @jit function, got " + fn.describe());
    auto function = fn.function;
    body = [this, function, at](const std::vector<Value> &l,
                                const std::vector<Value> &r) {
      std::vector<Value> all = l;
      all.insert(all.end(), r.begin(), r.end());
      return callJitValues(*function, all, at);
    };
  } else {
    // As tl.sum: narrow integers accumulate in 32 bits, fp16/bf16 in fp32.
    inputs[0] = cast(inputs[0], accumulatorType(args, inputs[0].type.element), at);
    BinaryOp op = sum ? BinaryOp::Add : BinaryOp::Mul;
    body = [this, op, at](const std::vector<Value> &l, const std::vector<Value> &r) {
      return std::vector<Value>{binary(op, l[0], r[0], at)};
    };
  }
  std::vector<Value> out = scan(inputs, axis, body, at);
  if (out.size() == 1)
    return out[0];
  return Value::ofTuple(out);
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
enum class Reduction { Sum, Max, Min, ArgMax, ArgMin };
} // namespace

std::optional<Value> Generator::callReduction(const std::string &name,
                                              const CallExpr &call) {
  SourceLoc at = call.loc;
  std::optional<Reduction> kind;
  if (name == "tl.sum") kind = Reduction::Sum;
  else if (name == "tl.max") kind = Reduction::Max;
  else if (name == "tl.min") kind = Reduction::Min;
  else if (name == "tl.argmax") kind = Reduction::ArgMax;
  else if (name == "tl.argmin") kind = Reduction::ArgMin;
  if (!kind && name != "tl.reduce")
    return std::nullopt;

  std::vector<std::string> params = {"input", "axis"};
  if (name == "tl.reduce")
    params.push_back("combine_fn");
  params.push_back("keep_dims");
  if (kind == Reduction::Sum)
    params.push_back("dtype");
  if (kind == Reduction::Max || kind == Reduction::Min)
    params.push_back("return_indices");
  BuiltinArguments args(*this, call, name, params,
                        name == "tl.reduce" ? 3 : 1);
  bool keepDims = false;
  if (args.has("keep_dims")) {
    const Value &k = args["keep_dims"];
    if (k.kind != Value::Kind::Bool)
      fail(args.loc("keep_dims"), "keep_dims must be True or False");
    keepDims = k.boolValue;
  }
  if (args.has("return_indices") && args["return_indices"].kind == Value::Kind::Bool &&
      args["return_indices"].boolValue)
    kind = *kind == Reduction::Max ? Reduction::ArgMax : Reduction::ArgMin;

  // Inputs: one tensor, or a tuple of tensors for tl.reduce.
  std::vector<Value> inputs;
  const Value &input = args["input"];
  if (input.kind == Value::Kind::Tuple && name == "tl.reduce")
    inputs = input.elements;
  else
    inputs.push_back(input);
  for (Value &v : inputs) {
    if (!v.isIR() || !v.type.isTensor())
      fail(args.loc("input"), name + " needs a tensor, got " + v.describe());
    if (v.type.element.isPointer)
      fail(args.loc("input"), name + " of pointers is not supported");
  }

  // The accumulation type: sums of narrow integers in i32, of fp16/bf16 in
  // fp32 (the result has that type too).
  if (kind == Reduction::Sum)
    inputs[0] = cast(inputs[0], accumulatorType(args, inputs[0].type.element), at);

  // Which axes: one, or all (innermost first) when axis is None.
  std::vector<int64_t> axes;
  int64_t rank = inputs[0].type.shape.size();
  if (!args.has("axis")) {
    if (kind == Reduction::ArgMax || kind == Reduction::ArgMin) {
      if (rank != 1)
        fail(at, name + " needs an axis for a tensor of rank " +
                     std::to_string(rank));
      axes.push_back(0);
    } else {
      for (int64_t a = rank - 1; a >= 0; --a)
        axes.push_back(a);
    }
  } else {
    axes.push_back(constInt(args["axis"], args.loc("axis"), "axis"));
  }

  mlir::OpBuilder &b = builder();
  auto combineFor = [&](Reduction r, DType type) -> CombinerBuilder {
    return [this, r, type, at, &b](const std::vector<Value> &l,
                                   const std::vector<Value> &rr) {
      mlir::Location where = loc(at);
      auto pick = [&](bool wantMax, mlir::Value x, mlir::Value y) -> mlir::Value {
        if (type.isFloat())
          return wantMax ? b.create<arith::MaxNumFOp>(where, x, y).getResult()
                         : b.create<arith::MinNumFOp>(where, x, y).getResult();
        if (type.isSigned())
          return wantMax ? b.create<arith::MaxSIOp>(where, x, y).getResult()
                         : b.create<arith::MinSIOp>(where, x, y).getResult();
        return wantMax ? b.create<arith::MaxUIOp>(where, x, y).getResult()
                       : b.create<arith::MinUIOp>(where, x, y).getResult();
      };
      switch (r) {
      case Reduction::Sum:
        return std::vector<Value>{binary(BinaryOp::Add, l[0], rr[0], at)};
      case Reduction::Max:
      case Reduction::Min:
        return std::vector<Value>{
            Value::ofIR(pick(r == Reduction::Max, l[0].ir, rr[0].ir), l[0].type)};
      case Reduction::ArgMax:
      case Reduction::ArgMin: {
        // The better value wins; on a tie the smaller index, so the
        // combination is commutative and the result deterministic.
        bool wantMax = r == Reduction::ArgMax;
        Value better = compare(wantMax ? CompareOp::Gt : CompareOp::Lt, l[0], rr[0], at);
        Value equal = compare(CompareOp::Eq, l[0], rr[0], at);
        Value smaller = compare(CompareOp::Lt, l[1], rr[1], at);
        Value takeLeft = binary(BinaryOp::BitOr, better,
                                binary(BinaryOp::BitAnd, equal, smaller, at), at);
        return std::vector<Value>{this->where(takeLeft, l[0], rr[0], at),
                                  this->where(takeLeft, l[1], rr[1], at)};
      }
      }
      return std::vector<Value>{};
    };
  };

  std::vector<Value> current = inputs;
  for (int64_t axis : axes) {
    CombinerBuilder body;
    if (name == "tl.reduce") {
      const Value &fn = args["combine_fn"];
      if (fn.kind != Value::Kind::Function)
        fail(args.loc("combine_fn"), "combine_fn must be a @jit function, got " +
                                         fn.describe());
      auto function = fn.function;
      body = [this, function, at](const std::vector<Value> &l,
                                  const std::vector<Value> &r) {
        std::vector<Value> all = l;
        all.insert(all.end(), r.begin(), r.end());
        return callJitValues(*function, all, at);
      };
      current = reduce(current, axis, keepDims, body, at);
      continue;
    }
    DType type = current[0].type.element;
    if (kind == Reduction::ArgMax || kind == Reduction::ArgMin) {
      // Pair each value with its index along the axis.
      int64_t a = axis < 0 ? axis + int64_t(current[0].type.shape.size()) : axis;
      if (a < 0 || a >= int64_t(current[0].type.shape.size()))
        fail(at, "axis " + std::to_string(axis) + " is out of range");
      int64_t extent = current[0].type.shape[a];
      ValueType rangeType = tensorType(DType{ScalarKind::Int32, false}, {extent}, at);
      Value index = Value::ofIR(
          b.create<tile::MakeRangeOp>(loc(at), rangeType.toMLIR(&ctx_), 0,
                                      int32_t(extent)),
          rangeType);
      for (int64_t d = 0; d < int64_t(current[0].type.shape.size()); ++d) {
        if (d == a)
          continue;
        std::vector<int64_t> shape = index.type.shape;
        int64_t at_ = d < a ? 0 : int64_t(shape.size());
        shape.insert(shape.begin() + at_, 1);
        ValueType t{index.type.element, shape};
        index = Value::ofIR(b.create<tile::ExpandDimsOp>(
                                loc(at), t.toMLIR(&ctx_), index.ir,
                                b.getI32IntegerAttr(int32_t(at_))),
                            t);
      }
      index = broadcastTo(index, current[0].type.shape, at);
      std::vector<Value> pair = {current[0], index};
      std::vector<Value> out = reduce(pair, axis, keepDims, combineFor(*kind, type), at);
      return out[1];
    }
    current = reduce(current, axis, keepDims, combineFor(*kind, type), at);
  }
  if (current.size() == 1)
    return current[0];
  return Value::ofTuple(current);
}

} // namespace tilec::dsl
