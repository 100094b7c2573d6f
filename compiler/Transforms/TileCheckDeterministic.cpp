// tile-check-deterministic: the check of a deterministic=True compile.
// Batch invariance needs every float a kernel computes to be combined in
// an order fixed by the kernel and its constexprs alone; this pass finds
// the constructs whose order the grid or a runtime value could change
// (float atomics, accumulating loops partitioned by them) and reports each
// at the user's line. It changes no IR.
#include "compiler/Analysis/RuntimeDependence.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"

#define DEBUG_TYPE "tile-check-deterministic"

namespace tilec {
#define GEN_PASS_DEF_TILECHECKDETERMINISTIC
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// What the non-float values `carried` depend on, joined.
RuntimeDependence carriedDependence(ValueRange carried,
                                    const RuntimeDependenceAnalysis &dependence,
                                    bool integersOnly) {
  RuntimeDependence d = RuntimeDependence::of(RuntimeDependence::None);
  for (Value v : carried)
    if (!isFloatLike(v.getType()) && (!integersOnly || isIntegerLike(v.getType())))
      d = RuntimeDependence::join(d, dependence.lookup(v));
  return d;
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
    std::string why = "which program's value lands last is a matter of timing";
    if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op)) {
      tile::AtomicKind kind = rmw.getKind();
      name = "tl.atomic_" + tile::stringifyAtomicKind(kind).str();
      if (kind == tile::AtomicKind::add)
        why = "the order in which programs' additions land decides the rounding";
      else if (kind != tile::AtomicKind::xchg)
        why = "which of two values that compare equal lands (+0.0 or -0.0, one NaN or "
              "another) is a matter of timing";
    }
    op->emitError() << name
                    << " of floating-point values is not allowed with deterministic=True: "
                    << why
                    << ", so the result can change from run to run and with the grid; write "
                       "partial results and combine them in a fixed order (in the same "
                       "program, or in a second kernel)";
    return true;
  }

  static bool checkFor(scf::ForOp loop, const RuntimeDependenceAnalysis &dependence) {
    if (!accumulatesFloats(loop))
      return false;
    RuntimeDependence start = dependence.lookup(loop.getLowerBound());
    RuntimeDependence step = dependence.lookup(loop.getStep());
    RuntimeDependence end = dependence.lookup(loop.getUpperBound());
    RuntimeDependence carried =
        carriedDependence(loop.getRegionIterArgs(), dependence, /*integersOnly=*/false);
    // The start and step split the sum; the end may be a runtime size (it
    // only ends the loop) but not a share of the grid; what the loop
    // carries besides its floats (offsets, pointers) may follow runtime
    // strides but not the grid.
    SmallVector<std::string> parts;
    RuntimeDependence why = RuntimeDependence::of(RuntimeDependence::None);
    auto note = [&](const char *part, RuntimeDependence d, unsigned refused) {
      if (!(d.sources() & refused))
        return;
      parts.push_back(part);
      why = RuntimeDependence::join(why, RuntimeDependence::of(d.sources() & refused));
    };
    unsigned any = RuntimeDependence::Grid | RuntimeDependence::Runtime;
    note("its start", start, any);
    note("its step", step, any);
    note("its end", end, RuntimeDependence::Grid);
    note("the offsets it carries", carried, RuntimeDependence::Grid);
    if (parts.empty())
      return false;
    bool plural = parts.size() > 1 || parts[0] == std::string("the offsets it carries");
    std::string what = parts[0];
    for (size_t i = 1; i < parts.size(); ++i)
      what += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
    loop.emitError() << "this loop accumulates floating-point values and " << what
                     << (plural ? " depend" : " depends") << " on "
                     << describe(why)
                     << "; with deterministic=True the way a float sum is split must not "
                        "change with the grid or with runtime sizes, or its rounding "
                        "would: give the loop a start made of tl.program_id and "
                        "constexprs and a constexpr step (its end may be a runtime value)";
    return true;
  }

  static bool checkWhile(scf::WhileOp loop, const RuntimeDependenceAnalysis &dependence) {
    if (!accumulatesFloats(loop))
      return false;
    // The before region's arguments are what the loop carries (joined
    // with the yields): its integers are its counters.
    ValueRange carried = loop.getBeforeArguments();
    RuntimeDependence counters = carriedDependence(carried, dependence, /*integersOnly=*/true);
    RuntimeDependence others = carriedDependence(carried, dependence, /*integersOnly=*/false);
    RuntimeDependence condition =
        dependence.lookup(loop.getConditionOp().getCondition());
    RuntimeDependence why = counters;
    if (others.dependsOnGrid() || condition.dependsOnGrid())
      why = RuntimeDependence::join(why, RuntimeDependence::of(RuntimeDependence::Grid));
    if (why.sources() == RuntimeDependence::None)
      return false;
    loop.emitError() << "this while loop accumulates floating-point values and "
                     << (counters.sources() == why.sources()
                             ? "the integers it carries depend on "
                             : "what it carries or tests depends on ")
                     << describe(why)
                     << "; with deterministic=True the way a float sum is split must not "
                        "change with the grid or with runtime sizes, or its rounding "
                        "would: count from tl.program_id and constexprs in constexpr "
                        "steps (the condition may test runtime sizes, not the grid)";
    return true;
  }
};

} // namespace
