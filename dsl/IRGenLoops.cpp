// Loops: `for` over range / tl.range / tl.static_range (scf.for, or
// unrolled) and `while` (scf.while). A runtime loop carries the names its
// body assigns that exist before it; each keeps its type across
// iterations, and names first assigned inside the body are not visible
// after it.
#include "dsl/IRGenImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using llvm::dyn_cast;

namespace tilec::dsl {

std::vector<mlir::Value> Generator::LoopCarried::initValues() const {
  std::vector<mlir::Value> values;
  for (const Value &v : inits)
    flattenIR(v, values);
  return values;
}

std::vector<mlir::Type> Generator::LoopCarried::types() const {
  std::vector<mlir::Type> types;
  for (mlir::Value v : initValues())
    types.push_back(v.getType());
  return types;
}

void Generator::LoopCarried::bind(std::map<std::string, Value> &env,
                                  mlir::ValueRange irs) const {
  size_t next = 0;
  for (size_t i = 0; i < names.size(); ++i)
    env[names[i]] = rebuildIR(inits[i], irs, next);
}

Value Generator::materialiseNumbers(const Value &v, SourceLoc at) {
  if (v.isNumber())
    return toIR(v, at);
  if (v.kind != Value::Kind::Tuple)
    return v;
  Value out = v;
  for (Value &e : out.elements)
    e = materialiseNumbers(e, at);
  return out;
}

void Generator::flattenIR(const Value &v, std::vector<mlir::Value> &leaves) {
  if (v.isIR())
    leaves.push_back(v.ir);
  else if (v.kind == Value::Kind::Tuple || v.kind == Value::Kind::BlockPtr)
    for (const Value &e : v.elements)
      flattenIR(e, leaves);
}

Value Generator::rebuildIR(const Value &like, mlir::ValueRange irs, size_t &next) {
  if (like.isIR())
    return Value::ofIR(irs[next++], like.type);
  if (like.kind != Value::Kind::Tuple && like.kind != Value::Kind::BlockPtr)
    return like;
  Value out = like;
  for (Value &e : out.elements)
    e = rebuildIR(e, irs, next);
  return out;
}

std::string Generator::structureKey(const Value &v) {
  if (v.isIR())
    return v.type.str();
  if (v.kind != Value::Kind::Tuple && v.kind != Value::Kind::BlockPtr)
    return "=" + v.repr();
  std::string key = v.kind == Value::Kind::Tuple ? "(" : "block[";
  for (int64_t d : v.blockShape)
    key += std::to_string(d) + ",";
  for (int64_t d : v.order)
    key += "o" + std::to_string(d) + ",";
  if (v.kind == Value::Kind::BlockPtr)
    key += v.text + "](";
  for (const Value &e : v.elements)
    key += structureKey(e) + ",";
  return key + ")";
}

void Generator::flattenLike(const Value &like, const Value &v, SourceLoc at,
                            const std::string &what, std::vector<mlir::Value> &leaves) {
  if (like.isIR()) {
    Value ir = v;
    if (v.isNumber())
      ir = toIR(v, at, like.type.element);
    if (!ir.isIR())
      fail(at, what + " changes from " + like.describe() + " to " + v.describe());
    if (ir.type != like.type)
      fail(at, what + " changes type from " + like.type.str() + " to " + ir.type.str() +
                   " in the loop body; give it its final type before the loop");
    leaves.push_back(ir.ir);
    return;
  }
  if (like.kind == Value::Kind::Tuple || like.kind == Value::Kind::BlockPtr) {
    bool same = v.kind == like.kind && v.elements.size() == like.elements.size() &&
                v.blockShape == like.blockShape && v.order == like.order &&
                v.text == like.text;
    if (!same)
      fail(at, what + " changes from " + like.describe() + " to " + v.describe() +
                   " in the loop body");
    for (size_t i = 0; i < like.elements.size(); ++i)
      flattenLike(like.elements[i], v.elements[i], at, what, leaves);
    return;
  }
  if (!v.sameAs(like))
    fail(at, what + " changes from the compile-time " + like.repr() + " to " +
                 (v.isConstexpr() ? v.repr() : v.describe()) + " in the loop body");
}

Generator::LoopCarried Generator::loopCarried(const StmtList &body, SourceLoc at,
                                              const std::string &exclude) {
  LoopCarried carried;
  collectAssignedNames(body, carried.assigned);
  carried.assigned.erase(exclude);
  Function &f = stack_.back();
  for (const std::string &name : carried.assigned) {
    auto it = f.env.find(name);
    if (it == f.env.end())
      continue;
    Value init = materialiseNumbers(it->second, at);
    bool structured = init.kind == Value::Kind::Tuple || init.kind == Value::Kind::BlockPtr;
    if (!init.isIR() && !structured)
      fail(at, "'" + name + "' holds " + init.describe() +
                   " and is reassigned inside a loop; only numbers, "
                   "tensors, tuples of them, block pointers and tensor descriptors can change "
                   "from one iteration to the next");
    carried.names.push_back(name);
    carried.inits.push_back(init);
  }
  return carried;
}

std::vector<mlir::Value> Generator::carriedYields(const LoopCarried &carried,
                                                  SourceLoc at) {
  Function &f = stack_.back();
  std::vector<mlir::Value> yields;
  for (size_t i = 0; i < carried.names.size(); ++i)
    flattenLike(carried.inits[i], f.env[carried.names[i]], at,
                "loop-carried variable '" + carried.names[i] + "'", yields);
  return yields;
}

void Generator::hideLoopLocals(const LoopCarried &carried,
                               const std::map<std::string, Value> &before,
                               SourceLoc at) {
  Function &f = stack_.back();
  for (const std::string &name : carried.assigned)
    if (!before.count(name))
      f.hidden[name] = "'" + name + "' is assigned only inside the loop at " +
                       lineOf(at) + " and is not visible after it";
  f.env = before;
}

void Generator::genFor(const ForStmt &stmt) {
  auto *call = dyn_cast<CallExpr>(stmt.iter.get());
  Value callee = call ? gen(*call->func) : Value();
  if (!call || callee.kind != Value::Kind::Builtin ||
      (callee.text != "range" && callee.text != "tl.range" &&
       callee.text != "tl.static_range"))
    fail(stmt.iter->loc, "a for loop must iterate over range(...), "
                         "tl.range(...) or tl.static_range(...)");
  auto *target = dyn_cast<NameExpr>(stmt.target.get());
  if (!target)
    fail(stmt.target->loc, "the loop variable must be a single name");
  if (call->args.empty() || call->args.size() > 3)
    fail(call->loc, "range takes 1 to 3 arguments");
  std::optional<int64_t> numStages;
  bool warpSpecialize = false;
  std::optional<int64_t> consumerGroups;
  std::optional<int64_t> numCtas;
  // tl.range's keywords: range() and tl.static_range take none of them.
  auto rangeKeyword = [&](const Keyword &k) {
    if (callee.text != "tl.range")
      fail(k.loc, k.name + " is a tl.range argument");
    return gen(*k.value);
  };
  // A compile-time integer in [low, high].
  auto boundedInt = [&](const Keyword &k, int64_t low, int64_t high) {
    Value v = rangeKeyword(k);
    if (v.kind != Value::Kind::Int || v.intValue < low || v.intValue > high)
      fail(k.value->loc, k.name + " must be a compile-time integer from " +
                             std::to_string(low) + " to " + std::to_string(high) + ", got " +
                             (v.kind == Value::Kind::Int ? std::to_string(v.intValue)
                                                         : v.describe()));
    return v.intValue;
  };
  for (const Keyword &k : call->keywords) {
    if (k.name == "num_stages") {
      numStages = boundedInt(k, 1, 16);
    } else if (k.name == "num_consumer_groups") {
      consumerGroups = boundedInt(k, 1, 4);
    } else if (k.name == "num_ctas") {
      // (1, 2 or 4 programs: a block is shared by splitting its 128-byte
      // columns among them, and the widest, 256 16-bit columns, has four.)
      numCtas = boundedInt(k, 1, 4);
      if (*numCtas == 3)
        fail(k.value->loc, "num_ctas must be 1, 2 or 4, got 3");
    } else if (k.name == "warp_specialize") {
      Value on = rangeKeyword(k);
      if (on.kind != Value::Kind::Bool && on.kind != Value::Kind::Int)
        fail(k.value->loc, "warp_specialize must be a compile-time bool, got " +
                               on.describe());
      warpSpecialize = on.kind == Value::Kind::Bool ? on.boolValue : on.intValue != 0;
    } else if (k.name != "loop_unroll_factor") {
      fail(k.loc, "unexpected keyword argument '" + k.name + "' to range");
    }
  }

  std::vector<Value> bounds;
  for (const ExprPtr &arg : call->args)
    bounds.push_back(gen(*arg));
  Value start = bounds.size() > 1 ? bounds[0] : Value::ofInt(0);
  Value end = bounds.size() > 1 ? bounds[1] : bounds[0];
  Value step = bounds.size() > 2 ? bounds[2] : Value::ofInt(1);
  for (size_t i = 0; i < bounds.size(); ++i) {
    const Value &v = bounds[i];
    bool isInt = v.kind == Value::Kind::Int ||
                 (v.isIR() && v.type.element.isInt() && !v.type.isTensor());
    if (!isInt)
      fail(call->args[i]->loc, "range bounds must be scalar integers, got " +
                                   v.describe());
  }
  Function &f = stack_.back();

  if (callee.text == "tl.static_range") {
    if (!start.isConstexpr() || !end.isConstexpr() || !step.isConstexpr())
      fail(call->loc, "tl.static_range needs compile-time bounds");
    if (step.intValue == 0)
      fail(call->loc, "range step must not be zero");
    int64_t trips = 0;
    for (int64_t i = start.intValue;
         step.intValue > 0 ? i < end.intValue : i > end.intValue;
         i += step.intValue) {
      if (++trips > 4096)
        fail(call->loc, "tl.static_range would unroll more than 4096 times");
      f.env[target->id] = Value::ofInt(i);
      genBody(stmt.body);
      if (f.returned)
        fail(f.returnLoc, "'return' inside a loop is not supported");
    }
    return;
  }

  requireIR(stmt.loc, "a runtime loop");
  mlir::Location at = loc(stmt.loc);
  // A compile-time negative step counts an index up from 0 instead:
  // scf.for needs a positive step.
  bool reversed = step.kind == Value::Kind::Int && step.intValue < 0;
  if (step.kind == Value::Kind::Int && step.intValue == 0)
    fail(call->loc, "range step must not be zero");
  DType indexType{ScalarKind::Int32, false};
  for (const Value &v : {start, end, step})
    if (v.isIR() && v.type.element.bits() == 64)
      indexType = {ScalarKind::Int64, false};
  Value lb = cast(toIR(start, call->loc, indexType), indexType, call->loc);
  Value ub = cast(toIR(end, call->loc, indexType), indexType, call->loc);
  Value st = cast(toIR(step, call->loc, indexType), indexType, call->loc);
  Value origStart = lb, origStep = st;
  if (reversed) {
    // trips = max(0, cdiv(start - end, -step)); i = start + k * step
    Value negStep = toIR(Value::ofInt(-step.intValue), call->loc, indexType);
    Value span = binary(BinaryOp::Sub, lb, ub, call->loc);
    Value trips = binary(
        BinaryOp::FloorDiv,
        binary(BinaryOp::Add, span,
               binary(BinaryOp::Sub, negStep, Value::ofInt(1), call->loc),
               call->loc),
        negStep, call->loc);
    Value zero = toIR(Value::ofInt(0), call->loc, indexType);
    auto maxOp = b_.create<mlir::arith::MaxSIOp>(at, trips.ir, zero.ir);
    lb = zero;
    ub = Value::ofIR(maxOp, trips.type);
    st = toIR(Value::ofInt(1), call->loc, indexType);
  }

  LoopCarried carried = loopCarried(stmt.body, stmt.loc, target->id);
  auto forOp = b_.create<mlir::scf::ForOp>(at, lb.ir, ub.ir, st.ir,
                                           carried.initValues());
  if (numStages)
    forOp->setAttr(tile::kNumStagesAttr, b_.getI32IntegerAttr(int32_t(*numStages)));
  if (warpSpecialize)
    forOp->setAttr(tile::kWarpSpecializeAttr, b_.getUnitAttr());
  // (Consumer groups divide a warp-specialised loop's work: without a
  // producer warpgroup there is nothing to divide.)
  if (consumerGroups && *consumerGroups > 1) {
    if (!warpSpecialize)
      fail(call->loc, "num_consumer_groups > 1 needs warp_specialize=True");
    forOp->setAttr(tile::kNumConsumerGroupsAttr,
                   b_.getI32IntegerAttr(int32_t(*consumerGroups)));
  }
  // (Clusters share what the loop's producer warpgroup copies.)
  if (numCtas && *numCtas > 1) {
    if (!warpSpecialize)
      fail(call->loc, "num_ctas > 1 needs warp_specialize=True");
    forOp->setAttr(tile::kNumCtasAttr, b_.getI32IntegerAttr(int32_t(*numCtas)));
  }
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    mlir::Block *body = forOp.getBody();
    if (!body->empty() && body->back().hasTrait<mlir::OpTrait::IsTerminator>())
      body->back().erase();
    b_.setInsertionPointToEnd(body);
    std::map<std::string, Value> before = f.env;
    Value iv = Value::ofIR(forOp.getInductionVar(), ValueType{indexType, {}});
    if (reversed)
      iv = binary(BinaryOp::Add, origStart,
                  binary(BinaryOp::Mul, iv, origStep, call->loc), call->loc);
    f.env[target->id] = iv;
    carried.bind(f.env, forOp.getRegionIterArgs());
    RuntimeNesting nesting(*this, stmt.loc);
    ++f.runtimeDepth;
    genBody(stmt.body);
    --f.runtimeDepth;
    b_.create<mlir::scf::YieldOp>(at, carriedYields(carried, stmt.loc));
    hideLoopLocals(carried, before, stmt.loc);
    f.env.erase(target->id);
  }
  carried.bind(f.env, forOp.getResults());
}
void Generator::genWhile(const WhileStmt &stmt) {
  requireIR(stmt.loc, "a 'while' loop");
  mlir::Location at = loc(stmt.loc);
  Function &f = stack_.back();
  LoopCarried carried = loopCarried(stmt.body, stmt.loc);
  std::vector<mlir::Type> types = carried.types();
  auto whileOp = b_.create<mlir::scf::WhileOp>(at, types, carried.initValues());
  std::map<std::string, Value> before = f.env;
  std::vector<mlir::Location> locs(types.size(), at);
  RuntimeNesting nesting(*this, stmt.loc);
  auto bindArguments = [&](mlir::Block *block) {
    carried.bind(f.env, block->getArguments());
  };
  {
    // The condition, evaluated before every iteration with the carried
    // values of the one before.
    mlir::OpBuilder::InsertionGuard guard(b_);
    mlir::Block *cond = b_.createBlock(&whileOp.getBefore(), {}, types, locs);
    bindArguments(cond);
    Value c = gen(*stmt.cond);
    if (std::optional<bool> truth = c.truthiness()) {
      if (*truth)
        fail(stmt.cond->loc, "this 'while' condition is always true, so the "
                             "loop would never end (tilec has no 'break')");
    } else if (c.type.isTensor()) {
      fail(stmt.cond->loc, "the condition of 'while' must be a scalar, got a " +
                               c.type.str() + "; reduce it first (tl.max, tl.sum)");
    }
    Value flag = toBool(toIR(c, stmt.cond->loc), stmt.cond->loc);
    b_.create<mlir::scf::ConditionOp>(at, flag.ir, cond->getArguments());
  }
  f.env = before;
  {
    mlir::OpBuilder::InsertionGuard guard(b_);
    mlir::Block *body = b_.createBlock(&whileOp.getAfter(), {}, types, locs);
    bindArguments(body);
    ++f.runtimeDepth;
    genBody(stmt.body);
    --f.runtimeDepth;
    b_.create<mlir::scf::YieldOp>(at, carriedYields(carried, stmt.loc));
    hideLoopLocals(carried, before, stmt.loc);
  }
  carried.bind(f.env, whileOp.getResults());
}

} // namespace tilec::dsl
