#include "dsl/Sema.h"

#include "dsl/Builtins.h"

#include "llvm/Support/Casting.h"

#include <set>

using llvm::cast;
using llvm::dyn_cast;

namespace tilec::dsl {

namespace {
class FunctionChecker {
public:
  FunctionChecker(const JitFunction &fn) : fn_(fn) {}

  void run() {
    const FunctionDef &def = *fn_.def;
    bool sawDefault = false;
    for (const Param &p : def.params) {
      if (!locals_.insert(p.name).second)
        fail(p.loc, "duplicate parameter '" + p.name + "'");
      if (p.defaultValue)
        sawDefault = true;
      else if (sawDefault)
        fail(p.loc, "parameter '" + p.name + "' without a default follows "
                    "one with a default");
    }
    collectAssignedNames(def.body, locals_);
    checkBody(def.body);
  }

private:
  void checkBody(const StmtList &body) {
    for (const StmtPtr &s : body)
      checkStmt(*s);
  }

  void checkStmt(const Stmt &s) {
    switch (s.kind) {
    case Stmt::Kind::Expr:
      checkExpr(*cast<ExprStmt>(s).value);
      return;
    case Stmt::Kind::Assign: {
      const auto &a = cast<AssignStmt>(s);
      for (const ExprPtr &t : a.targets)
        checkTarget(*t);
      checkExpr(*a.value);
      return;
    }
    case Stmt::Kind::AugAssign: {
      const auto &a = cast<AugAssignStmt>(s);
      checkTarget(*a.target);
      checkExpr(*a.value);
      return;
    }
    case Stmt::Kind::AnnAssign: {
      const auto &a = cast<AnnAssignStmt>(s);
      checkTarget(*a.target);
      if (a.value)
        checkExpr(*a.value);
      return;
    }
    case Stmt::Kind::If: {
      const auto &i = cast<IfStmt>(s);
      checkExpr(*i.cond);
      checkBody(i.body);
      checkBody(i.orelse);
      return;
    }
    case Stmt::Kind::For: {
      const auto &f = cast<ForStmt>(s);
      if (!f.orelse.empty())
        fail(f.orelse.front()->loc, "'for ... else' is not supported in tilec "
                                    "kernels");
      checkTarget(*f.target);
      checkExpr(*f.iter);
      checkBody(f.body);
      return;
    }
    case Stmt::Kind::Return: {
      const auto &r = cast<ReturnStmt>(s);
      if (r.value)
        checkExpr(*r.value);
      return;
    }
    case Stmt::Kind::Assert: {
      const auto &a = cast<AssertStmt>(s);
      checkExpr(*a.test);
      if (a.msg)
        checkExpr(*a.msg);
      return;
    }
    case Stmt::Kind::Pass:
      return;
    case Stmt::Kind::While: {
      const auto &w = cast<WhileStmt>(s);
      if (!w.orelse.empty())
        fail(w.orelse.front()->loc, "'while ... else' is not supported in "
                                    "tilec kernels");
      checkExpr(*w.cond);
      checkBody(w.body);
      return;
    }
    case Stmt::Kind::Break:
      fail(s.loc, "'break' is not supported in tilec kernels; end a 'while' "
                  "loop through its condition");
    case Stmt::Kind::Continue:
      fail(s.loc, "'continue' is not supported in tilec kernels; guard the "
                  "rest of the body with 'if'");
    case Stmt::Kind::FunctionDef:
      fail(s.loc, "nested functions are not supported; define '" +
                      cast<FunctionDef>(s).name + "' at module level with @jit");
    case Stmt::Kind::Import:
      fail(s.loc, "'import' is not allowed inside a kernel; import at module "
                  "level");
    case Stmt::Kind::Unparsed: // (only at module level)
      throw CompileError(cast<UnparsedStmt>(s).error);
    }
  }

  void checkTarget(const Expr &e) {
    if (llvm::isa<NameExpr>(&e))
      return;
    if (auto *t = dyn_cast<TupleExpr>(&e)) {
      for (const ExprPtr &x : t->elts)
        checkTarget(*x);
      return;
    }
    fail(e.loc, "only names and tuples of names can be assigned to");
  }

  void checkExpr(const Expr &e) {
    switch (e.kind) {
    case Expr::Kind::Name: {
      const std::string &id = cast<NameExpr>(e).id;
      if (locals_.count(id) || fn_.scope->lookup(id))
        return;
      if (isPythonBuiltin(id))
        return;
      fail(e.loc, "name '" + id + "' is not defined");
    }
    case Expr::Kind::Tuple:
      for (const ExprPtr &x : cast<TupleExpr>(e).elts)
        checkExpr(*x);
      return;
    case Expr::Kind::List:
      for (const ExprPtr &x : cast<ListExpr>(e).elts)
        checkExpr(*x);
      return;
    case Expr::Kind::Attribute:
      checkExpr(*cast<AttributeExpr>(e).value);
      return;
    case Expr::Kind::Call: {
      const auto &c = cast<CallExpr>(e);
      checkExpr(*c.func);
      for (const ExprPtr &a : c.args)
        checkExpr(*a);
      for (const Keyword &k : c.keywords)
        checkExpr(*k.value);
      return;
    }
    case Expr::Kind::Subscript: {
      const auto &s = cast<SubscriptExpr>(e);
      checkExpr(*s.value);
      for (const ExprPtr &i : s.indices)
        checkExpr(*i);
      return;
    }
    case Expr::Kind::Slice: {
      const auto &s = cast<SliceExpr>(e);
      for (const ExprPtr *p : {&s.lower, &s.upper, &s.step})
        if (*p)
          checkExpr(**p);
      return;
    }
    case Expr::Kind::Binary:
      checkExpr(*cast<BinaryExpr>(e).lhs);
      checkExpr(*cast<BinaryExpr>(e).rhs);
      return;
    case Expr::Kind::Unary:
      checkExpr(*cast<UnaryExpr>(e).operand);
      return;
    case Expr::Kind::BoolOp:
      for (const ExprPtr &v : cast<BoolOpExpr>(e).values)
        checkExpr(*v);
      return;
    case Expr::Kind::Compare:
      for (const ExprPtr &v : cast<CompareExpr>(e).operands)
        checkExpr(*v);
      return;
    case Expr::Kind::IfExp: {
      const auto &i = cast<IfExpExpr>(e);
      checkExpr(*i.cond);
      checkExpr(*i.thenValue);
      checkExpr(*i.elseValue);
      return;
    }
    default:
      return; // literals
    }
  }

  const JitFunction &fn_;
  std::set<std::string> locals_;
};
} // namespace

void checkFunction(const JitFunction &fn) { FunctionChecker(fn).run(); }

} // namespace tilec::dsl
