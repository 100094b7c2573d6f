// Private to IRGen*.cpp: the generator's state and the helpers the
// statement, expression and builtin code share.
#pragma once

#include "dsl/IRGen.h"

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <deque>
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
  // Used by the builtins (BuiltinTable.h and the families' IRGen*.cpp)
  //===--------------------------------------------------------------------===//

  mlir::Location loc(SourceLoc l) const;
  mlir::OpBuilder &builder() { return b_; }
  /// Lists CUDA C++ `source` (once) in the module's tile.cuda_sources, for
  /// the tile.cuda_call ops that call its functions.
  void addCudaSource(const std::string &source);
  /// True when the module already has a symbol `name` (the kernel, a
  /// helper), which a CUDA device function may not share.
  bool hasSymbol(const std::string &name) { return module_.lookupSymbol(name) != nullptr; }
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
  /// tl.device_assert(cond, msg, mask) and a runtime `assert cond, msg`:
  /// a tile.assert when compiling with debug=True, nothing otherwise.
  void deviceAssert(const Value &cond, const std::string &message,
                    const Value *mask, SourceLoc at);
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

  /// A call of a builtin: a member of `tl` or a Python builtin, looked up
  /// in the table of builtins (BuiltinTable.cpp).
  Value callBuiltin(const std::string &name, const CallExpr &call);
  /// Elementwise minimum or maximum of numbers or tensors (tl.minimum,
  /// tl.maximum, min() and max() of runtime values), promoted and
  /// broadcast as arithmetic is. Of floats, the non-NaN operand unless
  /// `propagateNan` (tl.PropagateNan.ALL). Two compile-time numbers fold.
  /// `what` names the builtin in messages (IRGenMath.cpp).
  Value minMax(bool isMin, const Value &x, const Value &y, bool propagateNan,
               SourceLoc at, const std::string &what);
  /// tl.<name>(x) of the unary math builtins (exp, log, sqrt, cos, ...),
  /// for builtins built from them (IRGenMath.cpp).
  Value mathFunction(const std::string &name, const Value &x, SourceLoc at);
  /// |x| of a number or tensor (`x`, at `xLoc`), as IR: tl.abs, and abs()
  /// of runtime values. Signed integers negate, unsigned ones and booleans
  /// are unchanged, floats clear the sign (IRGenMath.cpp).
  Value absolute(const Value &x, SourceLoc xLoc, SourceLoc at,
                 const std::string &what);
  /// Reduce `srcs` (tensors of one shape) along `axis` with the combiner
  /// `body` builds from 2N scalar block arguments; results keep the
  /// reduced dimension as size 1 when `keepDims`.
  using CombinerBuilder =
      std::function<std::vector<Value>(const std::vector<Value> &lhs,
                                       const std::vector<Value> &rhs)>;
  std::vector<Value> reduce(const std::vector<Value> &srcs, int64_t axis,
                            bool keepDims, const CombinerBuilder &body,
                            SourceLoc at);
  /// x.trans(...), x.permute(...), x.reshape(...), x.ravel(),
  /// x.broadcast_to(...), x.expand_dims(...); null optional for other
  /// methods (IRGenShape.cpp).
  std::optional<Value> callShapeMethod(const Value &method, const CallExpr &call);
  /// `x` with its dimensions permuted (result dimension i is dimension
  /// dims[i] of x), checked as tl.permute checks them; `what` names the
  /// call in messages.
  Value permute(const Value &x, const std::vector<int64_t> &dims, SourceLoc at,
                const std::string &what);
  /// `acc + a @ b` as a tile.dot, after Triton's checks; `acc` of kind
  /// None starts from zeros (IRGenDot.cpp).
  Value dot(const Value &a, const Value &b, const Value &acc,
            tile::InputPrecision precision, DType outDtype, SourceLoc at,
            SourceLoc aLoc, SourceLoc bLoc, SourceLoc accLoc,
            const char *spelling = "tl.dot");
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
  /// desc.load, desc.store and desc.atomic_* of a tensor descriptor
  /// (IRGenBlockPtr.cpp).
  Value callDescriptorMethod(const Value &desc, const std::string &method,
                             const CallExpr &call);

  void staticPrint(const std::string &text) const;

private:
  struct Function {
    const JitFunction *fn = nullptr;
    std::map<std::string, Value> env;
    /// Why a name is not visible here although the function assigns it.
    std::map<std::string, std::string> hidden;
    bool isKernel = false;
    unsigned runtimeDepth = 0; ///< nesting of runtime if/for/while
    bool returned = false;
    Value returnValue; ///< None until a `return` gives a value
    SourceLoc returnLoc;
  };

  // Statements (IRGen.cpp).
  void genBody(const StmtList &body);
  void genStmt(const Stmt &stmt);
  void genAssign(const Expr &target, const Value &value);
  void genIf(const IfStmt &stmt);
  void genRuntimeIf(const IfStmt &stmt, const Value &cond);
  /// The values a runtime `if`'s branches (`t`, `e`, a tuple or block
  /// pointer) give `what`, paired where they differ: their IR values (a
  /// number made IR in its branch's block) appended to the leaves, to
  /// become the scf.if's results; returns the merged structure, whose
  /// places that agree keep their value. A located error unless the two
  /// have one structure and one type at each place.
  Value pairBranchValues(const Value &t, const Value &e, const std::string &what,
                         SourceLoc at, mlir::Block *thenBlock, mlir::Block *elseBlock,
                         std::vector<Value> &thenLeaves, std::vector<Value> &elseLeaves);
  void genReturn(const ReturnStmt &stmt);
  // Loops (IRGenLoops.cpp).
  void genFor(const ForStmt &stmt);
  void genWhile(const WhileStmt &stmt);
  /// The names a runtime loop's body assigns that exist before it, with
  /// their values (numbers made IR): the values the loop carries. A tuple
  /// or a block pointer is carried as its IR values (flattenIR), and
  /// rebuilt around the loop's arguments and results (rebuildIR).
  struct LoopCarried {
    std::set<std::string> assigned; ///< every name the body assigns
    std::vector<std::string> names;
    std::vector<Value> inits;
    std::vector<mlir::Value> initValues() const;
    std::vector<mlir::Type> types() const;
    /// The carried names bound to `irs` (the loop's arguments or results).
    void bind(std::map<std::string, Value> &env, mlir::ValueRange irs) const;
  };
  /// `v` with every number inside it (itself, or in a tuple) made IR.
  Value materialiseNumbers(const Value &v, SourceLoc at);
  /// The IR values inside `v` (itself, or the elements of a tuple or a
  /// block pointer, nested), appended in order.
  static void flattenIR(const Value &v, std::vector<mlir::Value> &leaves);
  /// `like`'s structure with its IR values replaced, in order, by
  /// irs[next...].
  static Value rebuildIR(const Value &like, mlir::ValueRange irs, size_t &next);
  /// A key for `v` with the structure `like` has: its IR values by type,
  /// the rest by value.
  static std::string structureKey(const Value &v);
  /// `v`'s IR values when it has `like`'s structure and types (numbers
  /// converted to the type `like` has there); a located error about
  /// `what` (a loop-carried variable) otherwise.
  void flattenLike(const Value &like, const Value &v, SourceLoc at,
                   const std::string &what, std::vector<mlir::Value> &leaves);
  LoopCarried loopCarried(const StmtList &body, SourceLoc at,
                          const std::string &exclude = "");
  /// The carried values at the end of the body, each of its type before
  /// the loop (a located error otherwise).
  std::vector<mlir::Value> carriedYields(const LoopCarried &carried, SourceLoc at);
  /// After a loop's body: its first assignments stay inside it.
  void hideLoopLocals(const LoopCarried &carried,
                      const std::map<std::string, Value> &before, SourceLoc at);

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
    /// What the helper returns: its IR values are the call's results, in
    /// order (flattenIR), rebuilt into this structure (rebuildIR).
    Value returned;
  };

  /// The scope free names resolve in: the current function's.
  const Scope &scope() const;

  /// Levels of gen, genStmt and callJit on the C++ stack. DepthGuard stops
  /// the generation with an error before the stack overflows.
  unsigned depth_ = 0;
  struct DepthGuard {
    DepthGuard(Generator &g, SourceLoc at);
    ~DepthGuard() { --g.depth_; }
    Generator &g;
  };

  /// Runtime ifs and loops open around the code being generated, counted
  /// across @jit calls (helpers are inlined, so their regions nest in the
  /// caller's). RuntimeNesting bounds it.
  unsigned runtimeNesting_ = 0;
  struct RuntimeNesting {
    RuntimeNesting(Generator &g, SourceLoc at);
    ~RuntimeNesting() { --g.runtimeNesting_; }
    Generator &g;
  };

  /// Compiled with debug=True: tl.device_assert and runtime `assert`
  /// statements generate checks (without it they generate nothing).
  bool debug_ = false;
  /// The operands (converted and broadcast) of every runtime comparison
  /// generated under debug_, by its i1 result: what a failed assertion of
  /// `a < b` reports besides the index.
  llvm::DenseMap<mlir::Value, std::pair<Value, Value>> comparisons_;

  mlir::MLIRContext &ctx_;
  mlir::ModuleOp module_;
  mlir::OpBuilder b_;
  StaticPrintSink print_;
  /// The functions being generated, innermost last. A deque, so that a
  /// reference to a frame (`Function &f = stack_.back()`) stays valid while
  /// a nested call pushes and pops frames of its own.
  std::deque<Function> stack_;
  const Scope *constantScope_ = nullptr; ///< for evaluate()
  std::map<std::string, Specialized> specializations_;
  std::set<std::string> inProgress_;
  unsigned nextHelperId_ = 0;
};

/// True for the tensor methods that are shape builtins (x.reshape, ...).
bool isShapeMethod(const std::string &name);
/// True for the other tl functions that are also tensor methods, as in
/// Triton (x.sum(axis), x.exp(), ptr.store(v)); IRGenBuiltins.cpp.
bool isMemberFunction(const std::string &name);

} // namespace tilec::dsl
