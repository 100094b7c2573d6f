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
    values.push_back(v.ir);
  return values;
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
    Value init = it->second;
    if (!init.isIR()) {
      if (!init.isNumber())
        fail(at, "'" + name + "' holds " + init.describe() +
                     " and is reassigned inside a loop; only numbers "
                     "and tensors can change from one iteration to "
                     "the next");
      init = toIR(init, at);
    }
    carried.names.push_back(name);
    carried.inits.push_back(init);
  }
  return carried;
}

std::vector<mlir::Value> Generator::carriedYields(const LoopCarried &carried,
                                                  SourceLoc at) {
  Function &f = stack_.back();
  std::vector<mlir::Value> yields;
  for (size_t i = 0; i < carried.names.size(); ++i) {
    Value v = f.env[carried.names[i]];
    if (!v.isIR())
      v = toIR(v, at, carried.inits[i].type.element);
    if (v.type != carried.inits[i].type)
      fail(at, "loop-carried variable '" + carried.names[i] +
                   "' changes type from " + carried.inits[i].type.str() +
                   " to " + v.type.str() +
                   " in the loop body; give it its final type "
                   "before the loop");
    yields.push_back(v.ir);
  }
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
  for (const Keyword &k : call->keywords) {
    if (k.name != "num_stages" && k.name != "loop_unroll_factor")
      fail(k.loc, "unexpected keyword argument '" + k.name + "' to range");
    if (k.name != "num_stages")
      continue;
    if (callee.text != "tl.range")
      fail(k.loc, "num_stages is a tl.range argument");
    Value stages = gen(*k.value);
    if (stages.kind != Value::Kind::Int || stages.intValue < 1 || stages.intValue > 16)
      fail(k.value->loc, "num_stages must be a compile-time integer from 1 to 16, got " +
                             (stages.kind == Value::Kind::Int
                                  ? std::to_string(stages.intValue)
                                  : stages.describe()));
    numStages = stages.intValue;
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
    for (size_t i = 0; i < carried.names.size(); ++i)
      f.env[carried.names[i]] =
          Value::ofIR(forOp.getRegionIterArg(i), carried.inits[i].type);
    RuntimeNesting nesting(*this, stmt.loc);
    ++f.runtimeDepth;
    genBody(stmt.body);
    --f.runtimeDepth;
    b_.create<mlir::scf::YieldOp>(at, carriedYields(carried, stmt.loc));
    hideLoopLocals(carried, before, stmt.loc);
    f.env.erase(target->id);
  }
  for (size_t i = 0; i < carried.names.size(); ++i)
    f.env[carried.names[i]] = Value::ofIR(forOp.getResult(i), carried.inits[i].type);
}
void Generator::genWhile(const WhileStmt &stmt) {
  requireIR(stmt.loc, "a 'while' loop");
  mlir::Location at = loc(stmt.loc);
  Function &f = stack_.back();
  LoopCarried carried = loopCarried(stmt.body, stmt.loc);
  std::vector<mlir::Type> types;
  for (const Value &v : carried.inits)
    types.push_back(v.ir.getType());
  auto whileOp = b_.create<mlir::scf::WhileOp>(at, types, carried.initValues());
  std::map<std::string, Value> before = f.env;
  std::vector<mlir::Location> locs(types.size(), at);
  RuntimeNesting nesting(*this, stmt.loc);
  auto bindArguments = [&](mlir::Block *block) {
    for (size_t i = 0; i < carried.names.size(); ++i)
      f.env[carried.names[i]] =
          Value::ofIR(block->getArgument(i), carried.inits[i].type);
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
  for (size_t i = 0; i < carried.names.size(); ++i)
    f.env[carried.names[i]] =
        Value::ofIR(whileOp.getResult(i), carried.inits[i].type);
}

} // namespace tilec::dsl
