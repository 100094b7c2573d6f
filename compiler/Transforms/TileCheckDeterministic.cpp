// tile-check-deterministic: the check of a deterministic=True compile.
// Batch invariance needs every float a kernel computes to be combined in
// an order fixed by the kernel and its constexprs alone; this pass finds
// the constructs whose order the grid or a runtime value could change
// (float atomics, accumulating loops partitioned by them) and reports each
// at the user's line. It changes no IR.
#include "compiler/Analysis/RuntimeDependence.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"

#define DEBUG_TYPE "tile-check-deterministic"

namespace tilec {
#define GEN_PASS_DEF_TILECHECKDETERMINISTIC
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

bool isFloatLike(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return isa<FloatType>(type);
}

bool isIntegerLike(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return isa<IntegerType, IndexType>(type);
}

/// True when `yielded`, computed in `body`, depends on `carried` (the
/// value the loop passes in): the iterations combine into it.
bool combinesWith(Value yielded, Value carried, Region &body) {
  SmallVector<Value> worklist{yielded};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == carried)
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !body.isAncestor(def->getParentRegion()) || !seen.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
    // Values a nested region uses from the loop body count too (the
    // accumulator updated inside an scf.if, an inner loop's init).
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (operand == carried)
          worklist.push_back(operand);
    });
  }
  return false;
}

/// The float values the loop accumulates: carried values of floating-point
/// type the iterations combine with their previous value.
bool accumulatesFloats(ValueRange carried, ValueRange yielded, Region &body) {
  for (auto [arg, next] : llvm::zip(carried, yielded))
    if (isFloatLike(arg.getType()) && next != arg && combinesWith(next, arg, body))
      return true;
  return false;
}

std::string describe(const RuntimeDependence &d) {
  if (d.dependsOnGrid() && d.dependsOnRuntime())
    return "the launch grid (tl.num_programs) and on runtime values";
  if (d.dependsOnGrid())
    return "the launch grid (tl.num_programs)";
  return "a runtime value (a scalar argument or a loaded value)";
}

struct TileCheckDeterministicPass
    : tilec::impl::TileCheckDeterministicBase<TileCheckDeterministicPass> {
  void runOnOperation() override {
    RuntimeDependenceAnalysis dependence(getOperation());
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
        failed |= checkAtomic(op);
      else if (auto loop = dyn_cast<scf::ForOp>(op))
        failed |= checkFor(loop, dependence);
      else if (auto loop = dyn_cast<scf::WhileOp>(op))
        failed |= checkWhile(loop, dependence);
    });
    if (failed)
      signalPassFailure();
  }

  static bool checkAtomic(Operation *op) {
    if (!isFloatLike(op->getResult(0).getType()))
      return false;
    std::string name = "tl.atomic_cas";
    if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
      name = "tl.atomic_" + tile::stringifyAtomicKind(rmw.getKind()).str();
    op->emitError() << name
                    << " of floating-point values is not allowed with deterministic=True: "
                       "the order in which programs' updates land decides the result's "
                       "rounding, and it changes from run to run and with the grid; write "
                       "partial results and combine them in a fixed order (in the same "
                       "program, or in a second kernel)";
    return true;
  }

  static bool checkFor(scf::ForOp loop, const RuntimeDependenceAnalysis &dependence) {
    Region &body = loop.getRegion();
    auto yield = cast<scf::YieldOp>(body.front().getTerminator());
    if (!accumulatesFloats(loop.getRegionIterArgs(), yield.getOperands(), body))
      return false;
    RuntimeDependence start = dependence.lookup(loop.getLowerBound());
    RuntimeDependence step = dependence.lookup(loop.getStep());
    bool badStart = start.sources() != RuntimeDependence::None;
    bool badStep = step.sources() != RuntimeDependence::None;
    if (!badStart && !badStep)
      return false;
    std::string what = badStart && badStep ? "its start and step depend"
                       : badStart          ? "its start depends"
                                           : "its step depends";
    RuntimeDependence why = RuntimeDependence::join(badStart ? start : step,
                                                    badStep ? step : start);
    loop.emitError() << "this loop accumulates floating-point values and " << what
                     << " on " << describe(why)
                     << "; with deterministic=True the way a float sum is split must not "
                        "change with the grid or with runtime sizes, or its rounding "
                        "would: give the loop a start made of tl.program_id and "
                        "constexprs and a constexpr step (its end may be a runtime value)";
    return true;
  }

  static bool checkWhile(scf::WhileOp loop, const RuntimeDependenceAnalysis &dependence) {
    Region &after = loop.getAfter();
    auto yield = cast<scf::YieldOp>(after.front().getTerminator());
    // The after region's arguments are what the condition forwards; the
    // before region's are what the loop carries (joined with the yields).
    ValueRange carried = loop.getBeforeArguments();
    if (carried.size() != yield.getNumOperands())
      return false;
    // A carried value the iterations combine: its yield depends on the
    // value forwarded to the after region for it, when the condition
    // forwards carried values in order (as the front end writes loops).
    ValueRange forwarded = loop.getAfterArguments();
    if (forwarded.size() != carried.size() ||
        !accumulatesFloats(forwarded, yield.getOperands(), after))
      return false;
    RuntimeDependence counters = RuntimeDependence::of(RuntimeDependence::None);
    for (Value arg : carried)
      if (isIntegerLike(arg.getType()))
        counters = RuntimeDependence::join(counters, dependence.lookup(arg));
    if (counters.sources() == RuntimeDependence::None)
      return false;
    loop.emitError() << "this while loop accumulates floating-point values and the "
                        "integers it carries depend on "
                     << describe(counters)
                     << "; with deterministic=True the way a float sum is split must not "
                        "change with the grid or with runtime sizes, or its rounding "
                        "would: count from tl.program_id and constexprs in constexpr "
                        "steps (only the condition may use runtime values)";
    return true;
  }
};

} // namespace
