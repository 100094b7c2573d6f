#include "dsl/AST.h"

#include "llvm/Support/Casting.h"

namespace tilec::dsl {

const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::LShift:
    return "<<";
  case BinaryOp::RShift:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  }
  return "?";
}

const char *spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}

const char *spelling(CompareOp op) {
  switch (op) {
  case CompareOp::Lt:
    return "<";
  case CompareOp::Le:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::Ge:
    return ">=";
  case CompareOp::Eq:
    return "==";
  case CompareOp::Ne:
    return "!=";
  case CompareOp::Is:
    return "is";
  case CompareOp::IsNot:
    return "is not";
  case CompareOp::In:
    return "in";
  case CompareOp::NotIn:
    return "not in";
  }
  return "?";
}

namespace {
void collectTargetNames(const Expr &target, std::set<std::string> &names) {
  if (auto *n = llvm::dyn_cast<NameExpr>(&target))
    names.insert(n->id);
  else if (auto *t = llvm::dyn_cast<TupleExpr>(&target))
    for (const ExprPtr &e : t->elts)
      collectTargetNames(*e, names);
}
} // namespace

void collectAssignedNames(const StmtList &body, std::set<std::string> &names) {
  for (const StmtPtr &stmt : body)
    collectAssignedNames(*stmt, names);
}

void collectAssignedNames(const Stmt &stmt, std::set<std::string> &names) {
  if (auto *s = llvm::dyn_cast<AssignStmt>(&stmt))
    for (const ExprPtr &t : s->targets)
      collectTargetNames(*t, names);
  else if (auto *s = llvm::dyn_cast<AugAssignStmt>(&stmt))
    collectTargetNames(*s->target, names);
  else if (auto *s = llvm::dyn_cast<AnnAssignStmt>(&stmt))
    collectTargetNames(*s->target, names);
  else if (auto *s = llvm::dyn_cast<IfStmt>(&stmt)) {
    collectAssignedNames(s->body, names);
    collectAssignedNames(s->orelse, names);
  } else if (auto *s = llvm::dyn_cast<ForStmt>(&stmt)) {
    collectTargetNames(*s->target, names);
    collectAssignedNames(s->body, names);
  } else if (auto *s = llvm::dyn_cast<WhileStmt>(&stmt)) {
    collectAssignedNames(s->body, names);
  } else if (auto *s = llvm::dyn_cast<FunctionDef>(&stmt)) {
    names.insert(s->name);
  } else if (auto *s = llvm::dyn_cast<UnparsedStmt>(&stmt)) {
    if (!s->name.empty())
      names.insert(s->name);
  }
}

} // namespace tilec::dsl
