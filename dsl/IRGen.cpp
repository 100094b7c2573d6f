// Statements, expressions and calls of the kernel language → tile IR.
#include "dsl/BuiltinTable.h"
#include "dsl/Builtins.h"
#include "dsl/IRGenImpl.h"
#include "dsl/Sema.h"

#include "compiler/StackSpace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <functional>
#include <iostream>

using llvm::dyn_cast;
using llvm::isa;

namespace tilec::dsl {

Generator::Generator(mlir::MLIRContext &ctx, mlir::ModuleOp module,
                     StaticPrintSink print)
    : ctx_(ctx), module_(module), b_(&ctx), print_(std::move(print)) {}

Generator::DepthGuard::DepthGuard(Generator &g, SourceLoc at) : g(g) {
  // One function's expressions and blocks are as deep as the parser allows
  // (dsl/Parser.cpp), but calls of @jit functions stack them up: a
  // compile-time recursion over a constexpr does, as deep as it likes. The
  // generator stops with an error while the stack still has room.
  ++g.depth_;
  if (stackNearlyExhausted()) {
    --g.depth_;
    fail(at, "calls of @jit functions, blocks and expressions nest too deeply "
             "here (" + std::to_string(g.depth_) +
                 " levels) for the stack; is a compile-time recursion "
                 "missing its end?");
  }
}

// Runtime ifs and loops nested inside one another, helpers' included. Real
// kernels nest a handful; MLIR's canonicalizer takes time that grows faster
// than the square of the depth (a minute for 1000 nested ifs), and the
// interpreter recurses into each region.
constexpr unsigned kMaxRuntimeNesting = 128;

Generator::RuntimeNesting::RuntimeNesting(Generator &g, SourceLoc at) : g(g) {
  if (++g.runtimeNesting_ > kMaxRuntimeNesting) {
    --g.runtimeNesting_;
    fail(at, "runtime 'if's and loops nest more than " +
                 std::to_string(kMaxRuntimeNesting) +
                 " deep here (counting those of the calling functions)");
  }
}

mlir::Location Generator::loc(SourceLoc l) const {
  std::string path = l.buffer ? l.buffer->path() : "<unknown>";
  return mlir::FileLineColLoc::get(&ctx_, path, l.line, l.col);
}

void Generator::requireIR(SourceLoc l, const char *what) {
  if (stack_.empty())
    fail(l, std::string(what) + " is not a compile-time constant; only "
                                "constants are allowed here");
}

const Scope &Generator::scope() const {
  if (!stack_.empty())
    return *stack_.back().fn->scope;
  return *constantScope_;
}

void Generator::staticPrint(const std::string &text) const {
  if (print_)
    print_(text);
  else
    std::cerr << text << "\n";
}

Value Generator::evaluate(const Expr &expr, const Scope &scope) {
  constantScope_ = &scope;
  return gen(expr);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {
bool isConstexprAnnotation(const Expr *annotation) {
  if (!annotation)
    return false;
  if (auto *a = dyn_cast<AttributeExpr>(annotation))
    return a->attr == "constexpr";
  if (auto *n = dyn_cast<NameExpr>(annotation))
    return n->id == "constexpr";
  return false;
}
} // namespace

mlir::func::FuncOp Generator::generateKernel(const JitFunction &kernel,
                                             const KernelSpecialization &spec) {
  const FunctionDef &def = *kernel.def;
  checkFunction(kernel);
  debug_ = spec.debug;

  std::vector<const Param *> runtimeParams;
  for (const Param &p : def.params)
    if (!isConstexprAnnotation(p.annotation.get()))
      runtimeParams.push_back(&p);
  if (runtimeParams.size() != spec.signature.args.size()) {
    std::string names;
    for (const Param *p : runtimeParams)
      names += (names.empty() ? "" : ", ") + p->name;
    fail(def.nameLoc, "the signature has " +
                          std::to_string(spec.signature.args.size()) +
                          " entries but kernel '" + def.name + "' has " +
                          std::to_string(runtimeParams.size()) +
                          " non-constexpr parameters (" + names + ")");
  }
  for (const auto &[name, value] : spec.constexprs) {
    bool known = false;
    for (const Param &p : def.params)
      known |= p.name == name && isConstexprAnnotation(p.annotation.get());
    if (!known)
      fail(def.nameLoc, "'" + name + "' is not a constexpr parameter of "
                        "kernel '" + def.name + "'");
  }

  std::vector<mlir::Type> argTypes;
  for (const ArgSpec &arg : spec.signature.args)
    argTypes.push_back(arg.type.toMLIR(&ctx_));
  b_.setInsertionPointToEnd(module_.getBody());
  auto func = b_.create<mlir::func::FuncOp>(
      loc(def.loc), def.name, b_.getFunctionType(argTypes, {}));
  mlir::Block *entry = func.addEntryBlock();

  Function state;
  state.fn = &kernel;
  state.isKernel = true;
  unsigned argIndex = 0;
  b_.setInsertionPointToStart(entry);
  for (const Param &p : def.params) {
    if (isConstexprAnnotation(p.annotation.get())) {
      auto it = spec.constexprs.find(p.name);
      if (it != spec.constexprs.end())
        state.env[p.name] = it->second;
      else if (p.defaultValue)
        state.env[p.name] =
            evaluateConstantExpression(*p.defaultValue, *kernel.scope);
      else
        fail(p.loc, "no value given for constexpr parameter '" + p.name + "'");
      continue;
    }
    const ArgSpec &arg = spec.signature.args[argIndex];
    mlir::Value value = entry->getArgument(argIndex);
    if (arg.divisibility > 1)
      func.setArgAttr(argIndex, tile::kDivisibilityAttr,
                      b_.getI64IntegerAttr(arg.divisibility));
    if (spec.debug) // for the messages of the bounds checks
      func.setArgAttr(argIndex, tile::kArgNameAttr, b_.getStringAttr(p.name));
    if (arg.equalsOne)
      value = b_.create<mlir::arith::ConstantOp>(
          loc(p.loc), b_.getIntegerAttr(arg.type.toMLIR(&ctx_), 1));
    state.env[p.name] = Value::ofIR(value, ValueType{arg.type, {}});
    ++argIndex;
  }
  stack_.push_back(std::move(state));
  genBody(def.body);
  if (stack_.back().returnValue.kind != Value::Kind::None)
    fail(stack_.back().returnLoc, "a kernel cannot return a value");
  b_.create<mlir::func::ReturnOp>(loc(def.loc));
  stack_.pop_back();
  return func;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Generator::genBody(const StmtList &body) {
  for (const StmtPtr &stmt : body) {
    if (stack_.back().returned)
      return; // after a compile-time-selected return
    genStmt(*stmt);
  }
}

void Generator::genStmt(const Stmt &stmt) {
  DepthGuard depth(*this, stmt.loc);
  switch (stmt.kind) {
  case Stmt::Kind::Expr:
    gen(*llvm::cast<ExprStmt>(stmt).value);
    return;
  case Stmt::Kind::Assign: {
    const auto &s = llvm::cast<AssignStmt>(stmt);
    Value value = gen(*s.value);
    for (const ExprPtr &target : s.targets)
      genAssign(*target, value);
    return;
  }
  case Stmt::Kind::AugAssign: {
    const auto &s = llvm::cast<AugAssignStmt>(stmt);
    Value current = gen(*s.target);
    Value rhs = gen(*s.value);
    genAssign(*s.target, binary(s.op, current, rhs, s.loc));
    return;
  }
  case Stmt::Kind::AnnAssign: {
    const auto &s = llvm::cast<AnnAssignStmt>(stmt);
    if (s.value)
      genAssign(*s.target, gen(*s.value));
    return;
  }
  case Stmt::Kind::If:
    genIf(llvm::cast<IfStmt>(stmt));
    return;
  case Stmt::Kind::For:
    genFor(llvm::cast<ForStmt>(stmt));
    return;
  case Stmt::Kind::While:
    genWhile(llvm::cast<WhileStmt>(stmt));
    return;
  case Stmt::Kind::Return:
    genReturn(llvm::cast<ReturnStmt>(stmt));
    return;
  case Stmt::Kind::Pass:
    return;
  case Stmt::Kind::Assert: {
    const auto &s = llvm::cast<AssertStmt>(stmt);
    Value test = gen(*s.test);
    // The message is evaluated only where it is needed, as Python does.
    auto message = [&]() -> std::string {
      Value msg = gen(*s.msg);
      return msg.kind == Value::Kind::String ? msg.text : msg.repr();
    };
    if (test.isIR()) {
      // A runtime condition is checked on the device, as Triton does, when
      // compiling with debug=True; the message defaults to the statement.
      std::string detail;
      if (debug_ && s.msg)
        detail = message();
      else if (debug_ && s.loc.buffer)
        detail = llvm::StringRef(s.loc.buffer->line(s.loc.line)).trim().str();
      deviceAssert(test, detail, nullptr, s.loc);
      return;
    }
    std::optional<bool> ok = test.truthiness();
    if (!ok)
      fail(s.test->loc, "assert needs a compile-time condition or a runtime "
                        "scalar or tensor, got " + test.describe());
    if (!*ok)
      fail(s.loc, "assertion failed" + (s.msg ? ": " + message() : std::string()));
    return;
  }
  default:
    // Sema rejects every other statement before generation starts.
    fail(stmt.loc, "this statement is not supported in tilec kernels");
  }
}

void Generator::genAssign(const Expr &target, const Value &value) {
  if (auto *name = dyn_cast<NameExpr>(&target)) {
    stack_.back().env[name->id] = value;
    stack_.back().hidden.erase(name->id);
    return;
  }
  if (auto *tuple = dyn_cast<TupleExpr>(&target)) {
    if (value.kind != Value::Kind::Tuple)
      fail(target.loc, "cannot unpack " + value.describe() + " into " +
                           std::to_string(tuple->elts.size()) + " names");
    if (value.elements.size() != tuple->elts.size())
      fail(target.loc, "cannot unpack " +
                           std::to_string(value.elements.size()) +
                           " values into " + std::to_string(tuple->elts.size()) +
                           " names");
    for (size_t i = 0; i < tuple->elts.size(); ++i)
      genAssign(*tuple->elts[i], value.elements[i]);
    return;
  }
  fail(target.loc, "cannot assign to this expression");
}

void Generator::genReturn(const ReturnStmt &stmt) {
  Function &f = stack_.back();
  if (f.runtimeDepth > 0)
    fail(stmt.loc, "'return' inside a runtime 'if' or loop is not "
                   "supported; compute the value and return it at the end");
  f.returned = true;
  f.returnLoc = stmt.loc;
  if (!stmt.value)
    return;
  f.returnValue = gen(*stmt.value);
}

void Generator::genIf(const IfStmt &stmt) {
  Value cond = gen(*stmt.cond);
  if (std::optional<bool> taken = cond.truthiness()) {
    genBody(*taken ? stmt.body : stmt.orelse);
    return;
  }
  if (cond.type.isTensor())
    fail(stmt.cond->loc, "the condition of 'if' must be a scalar, got a " +
                             cond.type.str() + "; use tl.where for tensors");
  genRuntimeIf(stmt, cond);
}


void Generator::genRuntimeIf(const IfStmt &stmt, const Value &condValue) {
  requireIR(stmt.loc, "a runtime 'if'");
  mlir::Location at = loc(stmt.loc);
  mlir::Value cond = toBool(condValue, stmt.cond->loc).ir;
  auto draft = b_.create<mlir::scf::IfOp>(at, mlir::TypeRange{}, cond,
                                          /*withElseRegion=*/true);
  Function &f = stack_.back();
  std::map<std::string, Value> before = f.env;

  auto genBranch = [&](mlir::Block *block, const StmtList &body) {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(block->getTerminator());
    stack_.back().env = before;
    RuntimeNesting nesting(*this, stmt.loc);
    ++stack_.back().runtimeDepth;
    genBody(body);
    --stack_.back().runtimeDepth;
    return stack_.back().env;
  };
  std::map<std::string, Value> thenEnv =
      genBranch(draft.thenBlock(), stmt.body);
  std::map<std::string, Value> elseEnv =
      genBranch(draft.elseBlock(), stmt.orelse);

  // Values that differ between the branches (or from before) become
  // results of the scf.if; a name set in one branch only, and not before,
  // is not visible after it.
  std::set<std::string> names;
  for (auto &[n, _] : thenEnv)
    names.insert(n);
  for (auto &[n, _] : elseEnv)
    names.insert(n);
  std::map<std::string, Value> after = before;
  std::vector<std::string> resultNames;
  std::vector<Value> thenValues, elseValues;
  // Tuples and block pointers that differ: their IR values are results.
  std::vector<std::string> structuredNames;
  std::vector<Value> structuredThen, structuredElse;
  for (const std::string &name : names) {
    auto t = thenEnv.find(name), e = elseEnv.find(name);
    if (t == thenEnv.end() || e == elseEnv.end()) {
      after.erase(name);
      f.hidden[name] = "'" + name + "' is assigned in only one branch of the "
                       "'if' at " + lineOf(stmt.loc);
      continue;
    }
    Value tv = t->second, ev = e->second;
    if (tv.sameAs(ev)) {
      after[name] = tv;
      continue;
    }
    auto isStructured = [](const Value &v) {
      return v.kind == Value::Kind::Tuple || v.kind == Value::Kind::BlockPtr;
    };
    if (isStructured(tv) || isStructured(ev)) {
      structuredNames.push_back(name);
      structuredThen.push_back(tv);
      structuredElse.push_back(ev);
      continue;
    }
    if (!tv.isIR() && !tv.isNumber())
      fail(stmt.loc, "'" + name + "' is " + tv.describe() +
                         " in one branch of the 'if' and " + ev.describe() +
                         " in the other; only numbers and tensors may differ");
    if (!ev.isIR() && !ev.isNumber())
      fail(stmt.loc, "'" + name + "' is " + tv.describe() +
                         " in one branch of the 'if' and " + ev.describe() +
                         " in the other; only numbers and tensors may differ");
    resultNames.push_back(name);
    thenValues.push_back(tv);
    elseValues.push_back(ev);
  }

  // Materialise compile-time numbers in their branch, as the other
  // branch's type when that one is IR.
  std::vector<mlir::Type> resultTypes;
  std::vector<ValueType> resultValueTypes;
  for (size_t i = 0; i < resultNames.size(); ++i) {
    std::optional<DType> as;
    if (thenValues[i].isIR())
      as = thenValues[i].type.element;
    else if (elseValues[i].isIR())
      as = elseValues[i].type.element;
    auto materialise = [&](mlir::Block *block, Value &v) {
      mlir::OpBuilder::InsertionGuard guard(b_);
      b_.setInsertionPoint(block->getTerminator());
      v = toIR(v, stmt.loc, as);
    };
    materialise(draft.thenBlock(), thenValues[i]);
    materialise(draft.elseBlock(), elseValues[i]);
    if (thenValues[i].type != elseValues[i].type)
      fail(stmt.loc, "'" + resultNames[i] + "' has type " +
                         thenValues[i].type.str() + " in one branch of the "
                         "'if' and " + elseValues[i].type.str() +
                         " in the other; convert one with .to()");
    resultTypes.push_back(thenValues[i].ir.getType());
    resultValueTypes.push_back(thenValues[i].type);
  }

  size_t plainResults = resultNames.size();
  for (size_t i = 0; i < structuredNames.size(); ++i) {
    std::vector<Value> thenLeaves, elseLeaves;
    structuredThen[i] = pairBranchValues(structuredThen[i], structuredElse[i],
                                         "'" + structuredNames[i] + "'", stmt.loc,
                                         draft.thenBlock(), draft.elseBlock(), thenLeaves,
                                         elseLeaves);
    for (size_t j = 0; j < thenLeaves.size(); ++j) {
      thenValues.push_back(thenLeaves[j]);
      elseValues.push_back(elseLeaves[j]);
      resultTypes.push_back(thenLeaves[j].ir.getType());
    }
  }
  auto ifOp = b_.create<mlir::scf::IfOp>(at, resultTypes, cond,
                                         /*withElseRegion=*/true);
  auto moveBranch = [&](mlir::Region &from, mlir::Region &to,
                        std::vector<Value> &values) {
    to.takeBody(from);
    mlir::Block &block = to.front();
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(block.getTerminator());
    std::vector<mlir::Value> yields;
    for (Value &v : values)
      yields.push_back(v.ir);
    b_.create<mlir::scf::YieldOp>(at, yields);
    block.back().erase(); // the draft's empty yield, now after the new one
  };
  moveBranch(draft.getThenRegion(), ifOp.getThenRegion(), thenValues);
  moveBranch(draft.getElseRegion(), ifOp.getElseRegion(), elseValues);
  draft.erase();
  for (size_t i = 0; i < plainResults; ++i)
    after[resultNames[i]] = Value::ofIR(ifOp.getResult(i), resultValueTypes[i]);
  size_t next = plainResults;
  for (size_t i = 0; i < structuredNames.size(); ++i)
    after[structuredNames[i]] = rebuildIR(structuredThen[i], ifOp.getResults(), next);
  f.env = after;
}

Value Generator::pairBranchValues(const Value &t, const Value &e, const std::string &what,
                                  SourceLoc at, mlir::Block *thenBlock, mlir::Block *elseBlock,
                                  std::vector<Value> &thenLeaves,
                                  std::vector<Value> &elseLeaves) {
  auto differ = [&] {
    fail(at, what + " is " + t.describe() + " in one branch of the 'if' and " +
                 e.describe() + " in the other");
  };
  // A number becomes IR in its own branch, of the other branch's type
  // when that one is IR.
  auto materialise = [&](mlir::Block *block, const Value &v, std::optional<DType> as) {
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(block->getTerminator());
    return toIR(v, at, as);
  };
  bool leafT = t.isIR() || t.isNumber(), leafE = e.isIR() || e.isNumber();
  if (leafT || leafE) {
    if (!leafT || !leafE)
      differ();
    if (t.isNumber() && e.isNumber() && t.sameAs(e))
      return t; // the same compile-time number either way
    std::optional<DType> as;
    if (t.isIR())
      as = t.type.element;
    else if (e.isIR())
      as = e.type.element;
    Value ti = t.isIR() ? t : materialise(thenBlock, t, as);
    Value ei = e.isIR() ? e : materialise(elseBlock, e, as);
    if (ti.type != ei.type)
      fail(at, what + " holds " + ti.type.str() + " in one branch of the 'if' and " +
                   ei.type.str() + " in the other; convert one with .to()");
    thenLeaves.push_back(ti);
    elseLeaves.push_back(ei);
    return ti; // stands for the result (rebuildIR reads its type)
  }
  if (t.kind == Value::Kind::Tuple || t.kind == Value::Kind::BlockPtr) {
    if (e.kind != t.kind || e.elements.size() != t.elements.size() ||
        e.blockShape != t.blockShape || e.order != t.order || e.text != t.text)
      differ();
    Value merged = t;
    for (size_t i = 0; i < t.elements.size(); ++i)
      merged.elements[i] = pairBranchValues(t.elements[i], e.elements[i], what, at,
                                            thenBlock, elseBlock, thenLeaves, elseLeaves);
    return merged;
  }
  if (!t.sameAs(e))
    differ();
  return t;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value Generator::gen(const Expr &expr) {
  DepthGuard depth(*this, expr.loc);
  switch (expr.kind) {
  case Expr::Kind::Name:
    return genName(llvm::cast<NameExpr>(expr));
  case Expr::Kind::Int: {
    uint64_t v = llvm::cast<IntExpr>(expr).value;
    if (v > uint64_t(INT64_MAX))
      fail(expr.loc, "integer literal does not fit in 64 bits");
    return Value::ofInt(int64_t(v));
  }
  case Expr::Kind::Float:
    return Value::ofFloat(llvm::cast<FloatExpr>(expr).value);
  case Expr::Kind::Bool:
    return Value::ofBool(llvm::cast<BoolExpr>(expr).value);
  case Expr::Kind::None:
    return Value::none();
  case Expr::Kind::String:
    return Value::ofString(llvm::cast<StringExpr>(expr).value);
  case Expr::Kind::Tuple:
  case Expr::Kind::List: {
    const auto &elts = expr.kind == Expr::Kind::Tuple
                           ? llvm::cast<TupleExpr>(expr).elts
                           : llvm::cast<ListExpr>(expr).elts;
    std::vector<Value> values;
    for (const ExprPtr &e : elts)
      values.push_back(gen(*e));
    return Value::ofTuple(std::move(values));
  }
  case Expr::Kind::Attribute:
    return genAttribute(llvm::cast<AttributeExpr>(expr));
  case Expr::Kind::Call:
    return genCall(llvm::cast<CallExpr>(expr));
  case Expr::Kind::Subscript:
    return genSubscript(llvm::cast<SubscriptExpr>(expr));
  case Expr::Kind::Slice:
    fail(expr.loc, "a slice is only valid inside a subscript");
  case Expr::Kind::Binary: {
    const auto &e = llvm::cast<BinaryExpr>(expr);
    Value l = gen(*e.lhs);
    Value r = gen(*e.rhs);
    return binary(e.op, l, r, e.loc);
  }
  case Expr::Kind::Unary:
    return genUnary(llvm::cast<UnaryExpr>(expr));
  case Expr::Kind::BoolOp:
    return genBoolOp(llvm::cast<BoolOpExpr>(expr));
  case Expr::Kind::Compare:
    return genCompare(llvm::cast<CompareExpr>(expr));
  case Expr::Kind::IfExp:
    return genIfExp(llvm::cast<IfExpExpr>(expr));
  }
  fail(expr.loc, "unsupported expression");
}

Value Generator::genName(const NameExpr &e) {
  if (!stack_.empty()) {
    Function &f = stack_.back();
    if (auto it = f.env.find(e.id); it != f.env.end())
      return it->second;
    if (auto it = f.hidden.find(e.id); it != f.hidden.end())
      fail(e.loc, it->second);
  }
  if (const Value *v = scope().lookup(e.id)) {
    if (v->kind == Value::Kind::Unavailable)
      fail(e.loc, "global '" + e.id + "' cannot be used in a kernel: " + v->text);
    return *v;
  }
  if (isPythonBuiltin(e.id))
    return Value::ofBuiltin(e.id);
  fail(e.loc, "name '" + e.id + "' is not defined");
}

Value Generator::genAttribute(const AttributeExpr &e) {
  Value base = gen(*e.value);
  if (base.kind == Value::Kind::Module) {
    if (base.text == "tl") {
      // tl.math.exp is tl.exp (Triton's spelling of the math functions).
      if (e.attr == "math")
        return Value::ofModule("tl");
      if (e.attr == "extra")
        return Value::ofModule("tl.extra");
      if (auto dtype = DType::parse(e.attr); dtype && !dtype->isPointer &&
                                             e.attr.find('_') == std::string::npos)
        return Value::ofDType(*dtype);
      return Value::ofBuiltin("tl." + e.attr);
    }
    // tl.extra.libdevice and tl.extra.cuda.libdevice (Triton's spellings).
    if ((base.text == "tl.extra" || base.text == "tl.extra.cuda") && e.attr == "libdevice")
      return Value::ofModule("libdevice");
    if (base.text == "tl.extra" && e.attr == "cuda")
      return Value::ofModule("tl.extra.cuda");
    // gdc_wait, gdc_launch_dependents (Triton's spellings), prefetch_l2.
    if (base.text == "tl.extra.cuda" && builtins().find("tl.extra.cuda." + e.attr))
      return Value::ofBuiltin("tl.extra.cuda." + e.attr);
    if (base.text == "tl.extra")
      fail(e.loc, "tl.extra has no attribute '" + e.attr +
                      "' usable in a kernel (tilec has its libdevice and cuda only)");
    if (base.text == "tl.extra.cuda") {
      std::string known = "libdevice";
      for (const std::string &name : builtins().names())
        if (name.rfind("tl.extra.cuda.", 0) == 0)
          known += ", " + name.substr(14);
      fail(e.loc, "tl.extra.cuda has no attribute '" + e.attr +
                      "' usable in a kernel (tilec has " + known + ")");
    }
    if (base.text == "libdevice") {
      if (builtins().find("libdevice." + e.attr))
        return Value::ofBuiltin("libdevice." + e.attr);
      std::string known;
      for (const std::string &name : builtins().names())
        if (name.rfind("libdevice.", 0) == 0)
          known += (known.empty() ? "" : ", ") + name.substr(10);
      fail(e.loc, "tilec's libdevice has no function '" + e.attr + "' (it has " + known + ")");
    }
    if (base.text == "triton" || base.text == "tilec") {
      if (e.attr == "language")
        return Value::ofModule("tl");
      if (e.attr == "jit" || e.attr == "cdiv")
        return Value::ofBuiltin("tl." + e.attr);
      fail(e.loc, "module '" + base.text + "' has no attribute '" + e.attr +
                      "' usable in a kernel");
    }
    fail(e.loc, "module '" + base.text + "' cannot be used inside a kernel");
  }
  if (base.kind == Value::Kind::Builtin && base.text == "tl.PropagateNan") {
    // Triton's enumeration for tl.minimum / tl.maximum's propagate_nan.
    if (e.attr == "NONE" || e.attr == "ALL")
      return Value::ofEnum("PropagateNan." + e.attr);
    fail(e.loc, "tl.PropagateNan has no member '" + e.attr +
                    "' (it has NONE and ALL)");
  }
  if (base.isIR()) {
    if (e.attr == "dtype")
      return Value::ofDType(base.type.element);
    if (e.attr == "shape") {
      std::vector<Value> dims;
      for (int64_t d : base.type.shape)
        dims.push_back(Value::ofInt(d));
      return Value::ofTuple(dims);
    }
    if (e.attr == "T") {
      // Triton's x.T: the transpose of a 2-D tensor.
      if (base.type.shape.size() != 2)
        fail(e.loc, "x.T transposes a 2-D tensor, not " + base.describe() +
                        "; use tl.permute");
      return permute(base, {1, 0}, e.loc, "x.T");
    }
    if (e.attr == "to" || isShapeMethod(e.attr) || isMemberFunction(e.attr))
      return Value::ofMethod(e.attr, base);
    fail(e.loc, base.describe() + " has no attribute '" + e.attr + "'");
  }
  if (base.isDescriptor()) {
    if (e.attr == "load" || e.attr == "store" || e.attr.rfind("atomic_", 0) == 0)
      return Value::ofMethod(e.attr, base);
    // Sizes as int32 (Triton's), strides as int64.
    std::vector<Value> entries;
    for (size_t d = 0; d < base.blockShape.size(); ++d)
      entries.push_back(e.attr == "block_shape" ? Value::ofInt(base.blockShape[d])
                        : e.attr == "shape"
                            ? cast(base.blockDimShape(d), DType{ScalarKind::Int32, false}, e.loc)
                            : base.blockStride(d));
    if (e.attr == "block_shape" || e.attr == "shape" || e.attr == "strides")
      return Value::ofTuple(entries);
    if (e.attr == "dtype")
      return Value::ofDType(base.blockBase().type.element.pointee());
    fail(e.loc, base.describe() + " has no attribute '" + e.attr +
                    "' (it has load, store, atomic_add, atomic_min, atomic_max, atomic_and, "
                    "atomic_or, atomic_xor, shape, strides, block_shape and dtype)");
  }
  if (base.kind == Value::Kind::BlockPtr && e.attr == "advance")
    return Value::ofMethod(e.attr, base);
  if (base.kind == Value::Kind::DType) {
    if (e.attr == "element_ty" && base.dtype.isPointer)
      return Value::ofDType(base.dtype.pointee());
    if (e.attr == "primitive_bitwidth")
      return Value::ofInt(base.dtype.bits());
  }
  if (base.kind == Value::Kind::Tuple || base.isNumber())
    fail(e.loc, base.describe() + " has no attribute '" + e.attr + "'");
  fail(e.loc, base.describe() + " has no attribute '" + e.attr + "'");
}

Value Generator::genCall(const CallExpr &e) {
  Value callee = gen(*e.func);
  switch (callee.kind) {
  case Value::Kind::Builtin:
    return callBuiltin(callee.text, e);
  case Value::Kind::Method:
    if (callee.self->isDescriptor())
      return callDescriptorMethod(*callee.self, callee.text, e);
    if (auto v = callShapeMethod(callee, e))
      return *v;
    return callMethod(callee, e);
  case Value::Kind::Function:
    return callJit(*callee.function, e);
  default:
    fail(e.func->loc, callee.describe() + " is not callable");
  }
}

Value Generator::genSubscript(const SubscriptExpr &e) {
  Value base = gen(*e.value);
  if (base.kind == Value::Kind::Tuple) {
    if (e.indices.size() != 1)
      fail(e.loc, "a tuple takes one index");
    Value index = gen(*e.indices[0]);
    int64_t i = constInt(index, e.indices[0]->loc, "a tuple index");
    int64_t n = base.elements.size();
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      fail(e.indices[0]->loc, "tuple index out of range");
    return base.elements[i];
  }
  if (!base.isIR() || !base.type.isTensor())
    fail(e.value->loc, "only tensors and tuples can be subscripted, not " +
                           base.describe());
  // Each ':' keeps a dimension, each None inserts one of size 1.
  size_t kept = 0;
  for (const ExprPtr &index : e.indices) {
    if (auto *slice = dyn_cast<SliceExpr>(index.get())) {
      if (slice->lower || slice->upper || slice->step)
        fail(index->loc, "only ':' and None are supported in tensor "
                         "subscripts");
      ++kept;
    } else if (!isa<NoneExpr>(index.get())) {
      fail(index->loc, "only ':' and None are supported in tensor "
                       "subscripts (indexing single elements is not)");
    }
  }
  if (kept != base.type.shape.size())
    fail(e.loc, "a rank-" + std::to_string(base.type.shape.size()) +
                    " tensor needs " + std::to_string(base.type.shape.size()) +
                    " ':' in its subscript, got " + std::to_string(kept));
  Value result = base;
  for (size_t axis = 0; axis < e.indices.size(); ++axis) {
    if (!isa<NoneExpr>(e.indices[axis].get()))
      continue;
    std::vector<int64_t> shape = result.type.shape;
    shape.insert(shape.begin() + axis, 1);
    ValueType type = tensorType(result.type.element, shape, e.loc);
    auto op = b_.create<tile::ExpandDimsOp>(
        loc(e.loc), type.toMLIR(&ctx_), result.ir,
        b_.getI32IntegerAttr(int32_t(axis)));
    result = Value::ofIR(op, type);
  }
  return result;
}

Value Generator::genUnary(const UnaryExpr &e) {
  Value v = gen(*e.operand);
  if (e.op == UnaryOp::Not)
    if (std::optional<bool> truth = v.truthiness())
      return Value::ofBool(!*truth);
  if (v.isConstexpr()) {
    switch (e.op) {
    case UnaryOp::Not:
      break; // decided above
    case UnaryOp::Neg:
      if (v.kind == Value::Kind::Int) {
        if (v.intValue == INT64_MIN)
          fail(e.loc, "integer overflow in constant expression");
        return Value::ofInt(-v.intValue);
      }
      if (v.kind == Value::Kind::Float) return Value::ofFloat(-v.floatValue);
      if (v.kind == Value::Kind::Bool) return Value::ofInt(-int64_t(v.boolValue));
      break;
    case UnaryOp::Pos:
      if (v.isNumber()) return v;
      break;
    case UnaryOp::Invert:
      if (v.kind == Value::Kind::Int) return Value::ofInt(~v.intValue);
      if (v.kind == Value::Kind::Bool) return Value::ofInt(~int64_t(v.boolValue));
      break;
    }
    fail(e.loc, std::string("bad operand ") + v.describe() + " for unary '" +
                    spelling(e.op) + "'");
  }
  if (!v.isIR())
    fail(e.loc, std::string("bad operand ") + v.describe() + " for unary '" +
                    spelling(e.op) + "'");
  if (v.type.element.isPointer)
    fail(e.loc, std::string("unary '") + spelling(e.op) +
                    "' is not defined for pointers");
  switch (e.op) {
  case UnaryOp::Pos:
    return v;
  case UnaryOp::Neg:
    if (v.type.element.isFloat()) {
      auto op = b_.create<mlir::arith::NegFOp>(loc(e.loc), v.ir);
      return Value::ofIR(op, v.type);
    }
    return binary(BinaryOp::Sub, Value::ofInt(0), v, e.loc);
  case UnaryOp::Invert:
    if (!v.type.element.isInt())
      fail(e.loc, "'~' needs an integer operand, got " + v.type.str());
    {
      // All ones of the operand's type (-1 does not fit an unsigned one).
      DType t = v.type.element;
      mlir::Type mt = t.toMLIR(&ctx_);
      auto ones = b_.create<mlir::arith::ConstantOp>(
          loc(e.loc), b_.getIntegerAttr(mt, llvm::APInt::getAllOnes(t.bits())));
      return binary(BinaryOp::BitXor, v,
                    Value::ofIR(ones, ValueType{t, {}}), e.loc);
    }
  case UnaryOp::Not: {
    Value b = toBool(v, e.loc);
    return binary(BinaryOp::BitXor, b, Value::ofBool(true), e.loc);
  }
  }
  fail(e.loc, "unsupported unary operator");
}

Value Generator::genBoolOp(const BoolOpExpr &e) {
  bool isAnd = e.op == BoolOpExpr::Op::And;
  Value result = gen(*e.values[0]);
  for (size_t i = 1; i < e.values.size(); ++i) {
    if (std::optional<bool> truth = result.truthiness()) {
      // Python's short circuit, at compile time: the result is an operand.
      if (isAnd ? !*truth : *truth)
        return result;
      result = gen(*e.values[i]);
      continue;
    }
    Value rhs = gen(*e.values[i]);
    Value l = toBool(result, e.loc);
    Value r = rhs.isConstexpr() ? toBool(toIR(rhs, e.loc), e.loc)
                                : toBool(rhs, e.loc);
    result = binary(isAnd ? BinaryOp::BitAnd : BinaryOp::BitOr, l, r, e.loc);
  }
  return result;
}

Value Generator::genCompare(const CompareExpr &e) {
  Value result;
  Value lhs = gen(*e.operands[0]);
  for (size_t i = 0; i < e.ops.size(); ++i) {
    Value rhs = gen(*e.operands[i + 1]);
    Value link = compare(e.ops[i], lhs, rhs, e.opLocs[i]);
    if (i == 0)
      result = link;
    else if (result.isConstexpr() && link.isConstexpr())
      result = Value::ofBool(result.boolValue && link.boolValue);
    else
      result = binary(BinaryOp::BitAnd, toBool(toIR(result, e.loc), e.loc),
                      toBool(toIR(link, e.loc), e.loc), e.loc);
    lhs = rhs;
  }
  return result;
}

Value Generator::genIfExp(const IfExpExpr &e) {
  Value cond = gen(*e.cond);
  if (std::optional<bool> taken = cond.truthiness())
    return gen(*taken ? *e.thenValue : *e.elseValue);
  if (cond.type.isTensor())
    fail(e.cond->loc, "the condition of 'x if c else y' must be a scalar; "
                      "use tl.where for tensors");
  Value a = gen(*e.thenValue), b = gen(*e.elseValue);
  return where(cond, a, b, e.loc);
}

//===----------------------------------------------------------------------===//
// Calls to @jit functions
//===----------------------------------------------------------------------===//

void Generator::addCudaSource(const std::string &source) {
  llvm::SmallVector<mlir::Attribute> sources;
  if (auto list = module_->getAttrOfType<mlir::ArrayAttr>(tile::kCudaSourcesAttr))
    sources.assign(list.begin(), list.end());
  mlir::StringAttr text = b_.getStringAttr(source);
  if (llvm::is_contained(sources, text))
    return;
  sources.push_back(text);
  module_->setAttr(tile::kCudaSourcesAttr, b_.getArrayAttr(sources));
}

Value Generator::callJit(const JitFunction &fn, const CallExpr &call) {
  DepthGuard depth(*this, call.loc);
  requireIR(call.loc, "a call to a @jit function");
  const FunctionDef &def = *fn.def;
  checkFunction(fn);
  // Bind arguments to parameters, Python-style.
  std::vector<std::optional<Value>> bound(def.params.size());
  if (call.args.size() > def.params.size())
    fail(call.loc, "'" + def.name + "' takes " +
                       std::to_string(def.params.size()) + " arguments but " +
                       std::to_string(call.args.size()) + " were given");
  for (size_t i = 0; i < call.args.size(); ++i)
    bound[i] = gen(*call.args[i]);
  for (const Keyword &k : call.keywords) {
    size_t index = def.params.size();
    for (size_t i = 0; i < def.params.size(); ++i)
      if (def.params[i].name == k.name)
        index = i;
    if (index == def.params.size())
      fail(k.loc, "'" + def.name + "' has no parameter named '" + k.name + "'");
    if (bound[index])
      fail(k.loc, "argument '" + k.name + "' given twice");
    bound[index] = gen(*k.value);
  }
  std::string key = def.name + "@" + std::to_string(uintptr_t(&def));
  std::vector<Value> args(def.params.size());
  for (size_t i = 0; i < def.params.size(); ++i) {
    const Param &p = def.params[i];
    if (!bound[i]) {
      if (!p.defaultValue)
        fail(call.loc, "missing argument '" + p.name + "' in call to '" +
                           def.name + "'");
      bound[i] = evaluateConstantExpression(*p.defaultValue, *fn.scope);
    }
    args[i] = *bound[i];
    if (isConstexprAnnotation(p.annotation.get()) && !args[i].isConstexpr())
      fail(i < call.args.size() ? call.args[i]->loc : call.loc,
           "argument '" + p.name + "' of '" + def.name +
               "' must be a compile-time constant (it is annotated "
               "tl.constexpr), got " + args[i].describe());
    if (args[i].kind == Value::Kind::Method)
      fail(call.loc, "cannot pass a bound method to '" + def.name + "'");
    // Compile-time values specialise the callee; IR values (also inside
    // tuples and block pointers) are arguments.
    key += "," + structureKey(args[i]);
  }

  auto it = specializations_.find(key);
  if (it == specializations_.end()) {
    if (inProgress_.count(key))
      fail(call.loc, "recursive call to '" + def.name + "' is not supported");
    inProgress_.insert(key);
    std::vector<mlir::Value> argValues;
    for (const Value &a : args)
      flattenIR(a, argValues);
    std::vector<mlir::Type> argTypes;
    for (mlir::Value v : argValues)
      argTypes.push_back(v.getType());
    mlir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(module_.getBody());
    std::string symbol = def.name + "__" + std::to_string(nextHelperId_++);
    auto func = b_.create<mlir::func::FuncOp>(loc(def.loc), symbol,
                                              b_.getFunctionType(argTypes, {}));
    func.setPrivate();
    mlir::Block *entry = func.addEntryBlock();
    b_.setInsertionPointToStart(entry);
    Function state;
    state.fn = &fn;
    size_t argIndex = 0;
    for (size_t i = 0; i < def.params.size(); ++i)
      state.env[def.params[i].name] =
          rebuildIR(args[i], entry->getArguments(), argIndex);
    stack_.push_back(std::move(state));
    genBody(def.body);
    Function done = std::move(stack_.back());
    stack_.pop_back();
    Specialized spec;
    // Numbers become IR (results); tuples and block pointers return their
    // IR values, rebuilt at the call; other compile-time values are
    // returned as they are.
    spec.returned = materialiseNumbers(done.returnValue, done.returnLoc);
    std::function<void(const Value &)> check = [&](const Value &r) {
      if (r.kind == Value::Kind::Method || r.kind == Value::Kind::Unavailable)
        fail(done.returnLoc, "a @jit helper cannot return " + r.describe());
      if (r.kind == Value::Kind::Tuple)
        for (const Value &e : r.elements)
          check(e);
    };
    check(spec.returned);
    std::vector<mlir::Value> results;
    flattenIR(spec.returned, results);
    b_.create<mlir::func::ReturnOp>(loc(done.returned ? done.returnLoc : def.loc),
                                    results);
    std::vector<mlir::Type> resultTypes;
    for (mlir::Value v : results)
      resultTypes.push_back(v.getType());
    func.setType(b_.getFunctionType(argTypes, resultTypes));
    spec.func = func;
    inProgress_.erase(key);
    it = specializations_.emplace(key, spec).first;
  }
  std::vector<mlir::Value> operands;
  for (const Value &a : args)
    flattenIR(a, operands);
  auto callOp = b_.create<mlir::func::CallOp>(loc(call.loc), it->second.func,
                                              operands);
  size_t next = 0;
  return rebuildIR(it->second.returned, callOp.getResults(), next);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

mlir::OwningOpRef<mlir::ModuleOp>
generateKernel(mlir::MLIRContext &ctx, const JitFunction &kernel,
               const KernelSpecialization &spec, const StaticPrintSink &print) {
  ctx.loadDialect<tile::TileDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  Generator gen(ctx, *module, print);
  gen.generateKernel(kernel, spec);
  return module;
}

Value evaluateConstantExpression(const Expr &expr, const Scope &scope) {
  // A constant expression builds no IR, so no context state is touched
  // beyond what Generator's constructor needs.
  static thread_local mlir::MLIRContext *scratch = nullptr;
  if (!scratch)
    scratch = new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
  Generator gen(*scratch, mlir::ModuleOp(), nullptr);
  Value v = gen.evaluate(expr, scope);
  if (!v.isConstexpr())
    fail(expr.loc, "expected a compile-time constant, got " + v.describe());
  return v;
}

} // namespace tilec::dsl
