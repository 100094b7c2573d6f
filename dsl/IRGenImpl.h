// Private to IRGen*.cpp: the generator's state and the helpers the
// statement, expression and builtin code share.
#pragma once

#include "dsl/IRGen.h"

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <optional>
#include <set>

namespace tilec::dsl {

/// Largest tensor a program may hold: beyond this a kernel would need more
/// registers than any GPU has, and LLVM would take minutes to find out.
constexpr int64_t kMaxTensorElements = int64_t(1) << 17;

/// How a value takes part in type promotion: IR values by their type,
/// compile-time numbers weakly by their literal type.
PromotionOperand promotionOperand(const Value &v);

class Generator {
public:
  /// `module` may be null for compile-time evaluation only.
  Generator(mlir::MLIRContext &ctx, mlir::ModuleOp module,
            StaticPrintSink print);

  mlir::func::FuncOp generateKernel(const JitFunction &kernel,
                                    const KernelSpecialization &spec);
  Value evaluate(const Expr &expr, const Scope &scope);

  //===--------------------------------------------------------------------===//
  // Used by the builtins (IRGenBuiltins.cpp)
  //===--------------------------------------------------------------------===//

  mlir::Location loc(SourceLoc l) const;
  mlir::OpBuilder &builder() { return b_; }
  /// Fail unless IR may be created here (not in module-level constants).
  void requireIR(SourceLoc l, const char *what);

  Value gen(const Expr &expr);
  /// Materialise a compile-time number as IR (of type `as` when given, else
  /// its literal type). IR values pass through.
  Value toIR(const Value &v, SourceLoc l, std::optional<DType> as = std::nullopt);
  /// Convert an IR value's element type (`.to(dtype)`).
  Value cast(const Value &v, DType to, SourceLoc l, bool bitcast = false);
  /// Make `v` (scalar or tensor) have `shape`, by splat or broadcast.
  Value broadcastTo(const Value &v, const std::vector<int64_t> &shape,
                    SourceLoc l);
  /// Broadcast two values to their common shape (numpy rules).
  void broadcastPair(Value &a, Value &b, SourceLoc l);
  /// Convert to i1 (non-zero is true) with the value's shape.
  Value toBool(const Value &v, SourceLoc l);
  Value binary(BinaryOp op, const Value &l, const Value &r, SourceLoc at);
  Value compare(CompareOp op, const Value &l, const Value &r, SourceLoc at);
  /// tl.where(c, x, y), also `x if c else y` with a runtime scalar c.
  Value where(const Value &c, const Value &x, const Value &y, SourceLoc at);
  /// Result type of a tensor with `element` and `shape`, checked against
  /// the size limit and the power-of-two rule.
  ValueType tensorType(DType element, std::vector<int64_t> shape, SourceLoc l);
  /// The attribute of a compile-time number converted to `type`.
  mlir::TypedAttr numberAttr(const Value &number, DType type, SourceLoc l);
  Value constantBinary(BinaryOp op, const Value &l, const Value &r,
                       SourceLoc at);
  Value pointerArithmetic(BinaryOp op, const Value &ptr, const Value &offset,
                          SourceLoc at);

  /// Integer value of a compile-time argument, or a located error naming it.
  int64_t constInt(const Value &v, SourceLoc l, const std::string &what);
  std::vector<int64_t> constShape(const Value &v, SourceLoc l,
                                  const std::string &what);

  /// tl.* and Python builtins (IRGenBuiltins.cpp).
  Value callBuiltin(const std::string &name, const CallExpr &call);
  /// tl.exp, tl.sqrt, ... (IRGenMath.cpp); null optional when `name` is not
  /// a math function.
  std::optional<Value> callMath(const std::string &name, const CallExpr &call);
  /// tl.sum, tl.max, tl.argmax, tl.reduce, ... (IRGenReduce.cpp).
  std::optional<Value> callReduction(const std::string &name,
                                     const CallExpr &call);
  /// Reduce `srcs` (tensors of one shape) along `axis` with the combiner
  /// `body` builds from 2N scalar block arguments; results keep the
  /// reduced dimension as size 1 when `keepDims`.
  using CombinerBuilder =
      std::function<std::vector<Value>(const std::vector<Value> &lhs,
                                       const std::vector<Value> &rhs)>;
  std::vector<Value> reduce(const std::vector<Value> &srcs, int64_t axis,
                            bool keepDims, const CombinerBuilder &body,
                            SourceLoc at);
  /// tl.cumsum, tl.cumprod, tl.associative_scan (IRGenReduce.cpp).
  std::optional<Value> callScan(const std::string &name, const CallExpr &call);
  /// tl.trans, tl.permute, tl.reshape, tl.ravel, tl.broadcast_to,
  /// tl.broadcast, tl.expand_dims (IRGenShape.cpp); null optional when
  /// `name` is not one of them.
  std::optional<Value> callShape(const std::string &name, const CallExpr &call);
  /// x.trans(...), x.permute(...), x.reshape(...), x.ravel(),
  /// x.broadcast_to(...), x.expand_dims(...); null optional for other
  /// methods.
  std::optional<Value> callShapeMethod(const Value &method, const CallExpr &call);
  /// `x` with its dimensions permuted (result dimension i is dimension
  /// dims[i] of x), checked as tl.permute checks them; `what` names the
  /// call in messages.
  Value permute(const Value &x, const std::vector<int64_t> &dims, SourceLoc at,
                const std::string &what);
  /// Inclusive scan of `srcs` along `axis`; results have the inputs' types.
  std::vector<Value> scan(const std::vector<Value> &srcs, int64_t axis,
                          const CombinerBuilder &body, SourceLoc at);
  /// The block of a reduce/scan combiner in `region`, with 2N scalar
  /// arguments; returns the N combined values (the caller adds its
  /// terminator, with the builder left at the block's end).
  std::vector<mlir::Value> buildCombiner(mlir::Region &region,
                                         const std::vector<Value> &srcs,
                                         const CombinerBuilder &body, SourceLoc at);
  /// Call a @jit function on IR values from inside a region being built
  /// (a tl.reduce combiner); tile-inline splices it in later.
  std::vector<Value> callJitValues(const JitFunction &fn,
                                   const std::vector<Value> &args, SourceLoc at);
  Value callMethod(const Value &method, const CallExpr &call);
  /// The `mask=` of tl.load / tl.store as an i1 of `ptr`'s shape (both
  /// broadcast to their common shape); not IR when there is none.
  Value maskArgument(const class BuiltinArguments &args, Value &ptr);

  void staticPrint(const std::string &text) const;

private:
  struct Function {
    const JitFunction *fn = nullptr;
    std::map<std::string, Value> env;
    /// Why a name is not visible here although the function assigns it.
    std::map<std::string, std::string> hidden;
    bool isKernel = false;
    unsigned runtimeDepth = 0; ///< nesting of runtime if/for
    bool returned = false;
    std::vector<Value> returnValues;
    SourceLoc returnLoc;
  };

  // Statements (IRGen.cpp).
  void genBody(const StmtList &body);
  void genStmt(const Stmt &stmt);
  void genAssign(const Expr &target, const Value &value);
  void genIf(const IfStmt &stmt);
  void genRuntimeIf(const IfStmt &stmt, const Value &cond);
  void genFor(const ForStmt &stmt);
  void genReturn(const ReturnStmt &stmt);

  // Expressions.
  Value genName(const NameExpr &e);
  Value genAttribute(const AttributeExpr &e);
  Value genCall(const CallExpr &e);
  Value genSubscript(const SubscriptExpr &e);
  Value genUnary(const UnaryExpr &e);
  Value genBoolOp(const BoolOpExpr &e);
  Value genCompare(const CompareExpr &e);
  Value genIfExp(const IfExpExpr &e);

  // Calls to @jit functions.
  Value callJit(const JitFunction &fn, const CallExpr &call);
  struct Specialized {
    mlir::func::FuncOp func;
    std::vector<ValueType> results;
  };

  /// The scope free names resolve in: the current function's.
  const Scope &scope() const;

  mlir::MLIRContext &ctx_;
  mlir::ModuleOp module_;
  mlir::OpBuilder b_;
  StaticPrintSink print_;
  std::vector<Function> stack_;
  const Scope *constantScope_ = nullptr; ///< for evaluate()
  std::map<std::string, Specialized> specializations_;
  std::set<std::string> inProgress_;
  unsigned nextHelperId_ = 0;
};

/// Arguments of a builtin call, bound to its parameter names Python-style.
class BuiltinArguments {
public:
  BuiltinArguments(Generator &gen, const CallExpr &call, const std::string &function,
            std::vector<std::string> params, size_t required)
      : call_(call), function_(function), params_(std::move(params)) {
    values_.resize(params_.size());
    locs_.resize(params_.size(), call.loc);
    given_.resize(params_.size(), false);
    if (call.args.size() > params_.size())
      fail(call.loc, function + "() takes at most " +
                         std::to_string(params_.size()) + " arguments, got " +
                         std::to_string(call.args.size()));
    for (size_t i = 0; i < call.args.size(); ++i) {
      values_[i] = gen.gen(*call.args[i]);
      locs_[i] = call.args[i]->loc;
      given_[i] = true;
    }
    for (const Keyword &k : call.keywords) {
      size_t i = indexOf(k.name);
      if (i == params_.size())
        fail(k.loc, function + "() got an unexpected keyword argument '" +
                        k.name + "'");
      if (given_[i])
        fail(k.loc, function + "() got multiple values for '" + k.name + "'");
      values_[i] = gen.gen(*k.value);
      locs_[i] = k.value->loc;
      given_[i] = true;
    }
    for (size_t i = 0; i < required; ++i)
      if (!given_[i])
        fail(call.loc, function + "() missing required argument '" +
                           params_[i] + "'");
  }

  bool has(const std::string &name) const {
    size_t i = indexOf(name);
    return given_[i] && values_[i].kind != Value::Kind::None;
  }
  const Value &operator[](const std::string &name) const {
    return values_[indexOf(name)];
  }
  SourceLoc loc(const std::string &name) const { return locs_[indexOf(name)]; }
  /// A string argument (cache_modifier="...") or "" when absent.
  std::string text(const std::string &name) const {
    if (!has(name))
      return "";
    const Value &v = (*this)[name];
    if (v.kind != Value::Kind::String)
      fail(loc(name), function_ + "(): '" + name + "' must be a string");
    return v.text;
  }

private:
  size_t indexOf(const std::string &name) const {
    for (size_t i = 0; i < params_.size(); ++i)
      if (params_[i] == name)
        return i;
    return params_.size();
  }
  const CallExpr &call_;
  std::string function_;
  std::vector<std::string> params_;
  std::vector<Value> values_;
  std::vector<SourceLoc> locs_;
  std::vector<bool> given_;
};


/// True for the tensor methods that are shape builtins (x.reshape, ...).
bool isShapeMethod(const std::string &name);

/// A dtype argument (tl.float16, ...), or a located error naming `what`.
inline DType dtypeArg(const Value &v, SourceLoc l, const std::string &what) {
  if (v.kind != Value::Kind::DType)
    fail(l, what + " must be a dtype such as tl.float32, got " + v.describe());
  return v.dtype;
}

} // namespace tilec::dsl
