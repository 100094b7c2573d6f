// The abstract syntax tree of tilec's kernel language: the Python subset that
// the parser accepts. Every node carries the location of its first token.
//
// The tree is produced by the parser (Parser.h), checked by Sema.h and turned
// into tile-dialect IR by IRGen.h. Nodes are plain structs owned through
// unique_ptr; `kind` plus LLVM-style classof lets callers use llvm::isa and
// llvm::dyn_cast.
#pragma once

#include "dsl/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tilec::dsl {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

struct Expr {
  enum class Kind {
    Name,      // x
    Int,       // 42, 0x10
    Float,     // 1.5, 1e-3
    Bool,      // True / False
    None,      // None
    String,    // "text"
    Tuple,     // (a, b)  or  a, b
    List,      // [a, b]
    Attribute, // value.attr
    Call,      // f(a, key=b)
    Subscript, // value[i, :, None]
    Slice,     // the `:` (or a:b:c) inside a subscript
    Binary,    // a + b
    Unary,     // -a, ~a, not a
    BoolOp,    // a and b, a or b (flattened: a and b and c)
    Compare,   // a < b  (chains a < b < c keep every link)
    IfExp,     // a if c else b
  };
  Expr(Kind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
  const Kind kind;
  SourceLoc loc;
};
using ExprPtr = std::unique_ptr<Expr>;

struct NameExpr : Expr {
  NameExpr(SourceLoc loc, std::string id) : Expr(Kind::Name, loc), id(std::move(id)) {}
  std::string id;
  static bool classof(const Expr *e) { return e->kind == Kind::Name; }
};

struct IntExpr : Expr {
  /// Python ints are unbounded; tilec keeps 64 bits and the parser rejects
  /// literals that do not fit an unsigned 64-bit integer.
  IntExpr(SourceLoc loc, uint64_t value) : Expr(Kind::Int, loc), value(value) {}
  uint64_t value;
  static bool classof(const Expr *e) { return e->kind == Kind::Int; }
};

struct FloatExpr : Expr {
  FloatExpr(SourceLoc loc, double value) : Expr(Kind::Float, loc), value(value) {}
  double value;
  static bool classof(const Expr *e) { return e->kind == Kind::Float; }
};

struct BoolExpr : Expr {
  BoolExpr(SourceLoc loc, bool value) : Expr(Kind::Bool, loc), value(value) {}
  bool value;
  static bool classof(const Expr *e) { return e->kind == Kind::Bool; }
};

struct NoneExpr : Expr {
  explicit NoneExpr(SourceLoc loc) : Expr(Kind::None, loc) {}
  static bool classof(const Expr *e) { return e->kind == Kind::None; }
};

struct StringExpr : Expr {
  StringExpr(SourceLoc loc, std::string value)
      : Expr(Kind::String, loc), value(std::move(value)) {}
  std::string value; ///< escapes already decoded; adjacent literals joined
  static bool classof(const Expr *e) { return e->kind == Kind::String; }
};

struct TupleExpr : Expr {
  TupleExpr(SourceLoc loc, std::vector<ExprPtr> elts)
      : Expr(Kind::Tuple, loc), elts(std::move(elts)) {}
  std::vector<ExprPtr> elts;
  static bool classof(const Expr *e) { return e->kind == Kind::Tuple; }
};

struct ListExpr : Expr {
  ListExpr(SourceLoc loc, std::vector<ExprPtr> elts)
      : Expr(Kind::List, loc), elts(std::move(elts)) {}
  std::vector<ExprPtr> elts;
  static bool classof(const Expr *e) { return e->kind == Kind::List; }
};

struct AttributeExpr : Expr {
  AttributeExpr(SourceLoc loc, ExprPtr value, std::string attr)
      : Expr(Kind::Attribute, loc), value(std::move(value)), attr(std::move(attr)) {}
  ExprPtr value;
  std::string attr;
  static bool classof(const Expr *e) { return e->kind == Kind::Attribute; }
};

struct Keyword {
  SourceLoc loc;
  std::string name;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(SourceLoc loc, ExprPtr func)
      : Expr(Kind::Call, loc), func(std::move(func)) {}
  ExprPtr func;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  static bool classof(const Expr *e) { return e->kind == Kind::Call; }
};

/// `lower:upper:step` inside a subscript; each part may be null. tilec uses
/// only the bare `:`, but the parser keeps the parts so the error can point
/// at them.
struct SliceExpr : Expr {
  explicit SliceExpr(SourceLoc loc) : Expr(Kind::Slice, loc) {}
  ExprPtr lower, upper, step;
  static bool classof(const Expr *e) { return e->kind == Kind::Slice; }
};

struct SubscriptExpr : Expr {
  SubscriptExpr(SourceLoc loc, ExprPtr value)
      : Expr(Kind::Subscript, loc), value(std::move(value)) {}
  ExprPtr value;
  /// One entry per comma-separated index: `x[:, None]` has a SliceExpr and a
  /// NoneExpr.
  std::vector<ExprPtr> indices;
  static bool classof(const Expr *e) { return e->kind == Kind::Subscript; }
};

enum class BinaryOp {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul,
  LShift, RShift, BitAnd, BitOr, BitXor,
};
/// The Python spelling of `op`: "+", "//", "<<", ...
const char *spelling(BinaryOp op);

struct BinaryExpr : Expr {
  BinaryExpr(SourceLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->kind == Kind::Binary; }
};

enum class UnaryOp { Neg, Pos, Invert, Not };
const char *spelling(UnaryOp op);

struct UnaryExpr : Expr {
  UnaryExpr(SourceLoc loc, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, loc), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->kind == Kind::Unary; }
};

struct BoolOpExpr : Expr {
  enum class Op { And, Or };
  BoolOpExpr(SourceLoc loc, Op op, std::vector<ExprPtr> values)
      : Expr(Kind::BoolOp, loc), op(op), values(std::move(values)) {}
  Op op;
  std::vector<ExprPtr> values; ///< at least two
  static bool classof(const Expr *e) { return e->kind == Kind::BoolOp; }
};

enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne, Is, IsNot, In, NotIn };
const char *spelling(CompareOp op);

struct CompareExpr : Expr {
  CompareExpr(SourceLoc loc, ExprPtr first) : Expr(Kind::Compare, loc) {
    operands.push_back(std::move(first));
  }
  /// `a < b <= c`: operands {a, b, c}, ops {Lt, Le}; ops.size() + 1 ==
  /// operands.size().
  std::vector<ExprPtr> operands;
  std::vector<CompareOp> ops;
  std::vector<SourceLoc> opLocs;
  static bool classof(const Expr *e) { return e->kind == Kind::Compare; }
};

struct IfExpExpr : Expr {
  IfExpExpr(SourceLoc loc, ExprPtr cond, ExprPtr thenValue, ExprPtr elseValue)
      : Expr(Kind::IfExp, loc), cond(std::move(cond)),
        thenValue(std::move(thenValue)), elseValue(std::move(elseValue)) {}
  ExprPtr cond, thenValue, elseValue;
  static bool classof(const Expr *e) { return e->kind == Kind::IfExp; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

struct Stmt {
  enum class Kind {
    Expr, Assign, AugAssign, AnnAssign, If, For, While, Return, Pass, Break,
    Continue, Assert, FunctionDef, Import,
    Unparsed, ///< module level only: a statement tilec could not parse
  };
  Stmt(Kind kind, SourceLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  const Kind kind;
  SourceLoc loc;
};
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  ExprStmt(SourceLoc loc, ExprPtr value) : Stmt(Kind::Expr, loc), value(std::move(value)) {}
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Kind::Expr; }
};

/// `a = b = value`: targets {a, b}. A target is a NameExpr, a TupleExpr of
/// targets, or (rejected later with a located error) anything else the parser
/// saw on the left of `=`.
struct AssignStmt : Stmt {
  AssignStmt(SourceLoc loc) : Stmt(Kind::Assign, loc) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Kind::Assign; }
};

struct AugAssignStmt : Stmt {
  AugAssignStmt(SourceLoc loc, ExprPtr target, BinaryOp op, ExprPtr value)
      : Stmt(Kind::AugAssign, loc), target(std::move(target)), op(op),
        value(std::move(value)) {}
  ExprPtr target;
  BinaryOp op;
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Kind::AugAssign; }
};

/// `x: annotation = value` (value may be null).
struct AnnAssignStmt : Stmt {
  AnnAssignStmt(SourceLoc loc) : Stmt(Kind::AnnAssign, loc) {}
  ExprPtr target, annotation, value;
  static bool classof(const Stmt *s) { return s->kind == Kind::AnnAssign; }
};

/// `elif` is an IfStmt alone in the orelse of its parent.
struct IfStmt : Stmt {
  IfStmt(SourceLoc loc) : Stmt(Kind::If, loc) {}
  ExprPtr cond;
  StmtList body, orelse;
  static bool classof(const Stmt *s) { return s->kind == Kind::If; }
};

struct ForStmt : Stmt {
  ForStmt(SourceLoc loc) : Stmt(Kind::For, loc) {}
  ExprPtr target, iter;
  StmtList body, orelse; ///< orelse (`for ... else`) is rejected by Sema
  static bool classof(const Stmt *s) { return s->kind == Kind::For; }
};

struct WhileStmt : Stmt {
  WhileStmt(SourceLoc loc) : Stmt(Kind::While, loc) {}
  ExprPtr cond;
  StmtList body, orelse;
  static bool classof(const Stmt *s) { return s->kind == Kind::While; }
};

struct ReturnStmt : Stmt {
  ReturnStmt(SourceLoc loc, ExprPtr value) : Stmt(Kind::Return, loc), value(std::move(value)) {}
  ExprPtr value; ///< may be null
  static bool classof(const Stmt *s) { return s->kind == Kind::Return; }
};

struct PassStmt : Stmt {
  explicit PassStmt(SourceLoc loc) : Stmt(Kind::Pass, loc) {}
  static bool classof(const Stmt *s) { return s->kind == Kind::Pass; }
};
struct BreakStmt : Stmt {
  explicit BreakStmt(SourceLoc loc) : Stmt(Kind::Break, loc) {}
  static bool classof(const Stmt *s) { return s->kind == Kind::Break; }
};
struct ContinueStmt : Stmt {
  explicit ContinueStmt(SourceLoc loc) : Stmt(Kind::Continue, loc) {}
  static bool classof(const Stmt *s) { return s->kind == Kind::Continue; }
};

struct AssertStmt : Stmt {
  AssertStmt(SourceLoc loc) : Stmt(Kind::Assert, loc) {}
  ExprPtr test, msg; ///< msg may be null
  static bool classof(const Stmt *s) { return s->kind == Kind::Assert; }
};

struct Param {
  SourceLoc loc;
  std::string name;
  ExprPtr annotation; ///< may be null; `tl.constexpr` marks a constexpr
  ExprPtr defaultValue; ///< may be null
};

struct FunctionDef : Stmt {
  FunctionDef(SourceLoc loc) : Stmt(Kind::FunctionDef, loc) {}
  std::string name;
  SourceLoc nameLoc;
  /// Where each `@decorator` line starts. Decorators run in the host
  /// language (`@tilec.autotune(configs=[...])`), never in the kernel, so
  /// they are skipped, not parsed.
  std::vector<SourceLoc> decorators;
  std::vector<Param> params;
  ExprPtr returns; ///< `-> annotation`, may be null; ignored
  StmtList body;
  static bool classof(const Stmt *s) { return s->kind == Kind::FunctionDef; }
};

/// `import a.b as c` or `from a.b import c as d` (module level only).
struct ImportStmt : Stmt {
  ImportStmt(SourceLoc loc) : Stmt(Kind::Import, loc) {}
  struct Alias {
    std::string name;   ///< dotted name as written: "triton.language"
    std::string asName; ///< empty when no `as`
  };
  std::string fromModule; ///< empty for a plain `import`
  std::vector<Alias> names;
  static bool classof(const Stmt *s) { return s->kind == Kind::Import; }
};

/// The names a statement list assigns anywhere inside it (assignments,
/// `for` targets, the bodies of `if`, `for` and `while`): a function's
/// locals, and the values a loop may carry.
void collectAssignedNames(const StmtList &body, std::set<std::string> &names);
/// The same for one statement (a `def` binds its name).
void collectAssignedNames(const Stmt &stmt, std::set<std::string> &names);

/// A module-level statement that did not parse (Python that is no kernel:
/// a class, a comprehension, an f-string...), skipped with its indented
/// block. It is an error only if a kernel needs what it defines.
struct UnparsedStmt : Stmt {
  UnparsedStmt(SourceLoc loc, Diagnostic error)
      : Stmt(Kind::Unparsed, loc), error(std::move(error)) {}
  Diagnostic error;  ///< why it did not parse
  std::string name;  ///< `def NAME`, `class NAME` or `NAME = ...`; may be empty
  bool isFunction = false; ///< a `def`
  static bool classof(const Stmt *s) { return s->kind == Kind::Unparsed; }
};

/// One parsed source: a file of kernels, or the source of one Python function.
struct ModuleAST {
  std::shared_ptr<SourceBuffer> source;
  StmtList body;
};

} // namespace tilec::dsl
