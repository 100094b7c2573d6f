#include "compiler/Analysis/RuntimeDependence.h"

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace tilec;

void RuntimeDependence::print(raw_ostream &os) const {
  if (isUninitialized()) {
    os << "<not reached>";
    return;
  }
  if (sources_ == None) {
    os << "constant";
    return;
  }
  os << (dependsOnGrid() ? "grid" : "") << (sources_ == (Grid | Runtime) ? "+" : "")
     << (dependsOnRuntime() ? "runtime" : "");
}

namespace {

/// True when `value`, computed in `body`, is `target` or depends on it
/// through ops of `body` (values a nested region uses count too: the
/// accumulator updated inside an scf.if).
bool dependsOn(Value value, llvm::function_ref<bool(Value)> target, Region &body) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (target(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || !body.isAncestor(def->getParentRegion()) || !seen.insert(def).second)
      continue;
    llvm::append_range(worklist, def->getOperands());
    def->walk([&](Operation *nested) {
      if (nested != def)
        llvm::append_range(worklist, nested->getOperands());
    });
  }
  return false;
}

/// A carried float the iterations combine with its previous value.
bool carriesAccumulation(ValueRange carried, ValueRange yielded, Region &body) {
  for (auto [arg, next] : llvm::zip(carried, yielded))
    if (isFloatLike(arg.getType()) && next != arg &&
        dependsOn(next, [arg = arg](Value v) { return v == arg; }, body))
      return true;
  return false;
}

/// A float stored where the loop loaded the value it came from.
bool accumulatesInMemory(Region &body) {
  bool found = false;
  body.walk([&](tile::StoreOp store) {
    if (found || !isFloatLike(store.getValue().getType()))
      return;
    Value ptr = store.getPtr();
    found = dependsOn(
        store.getValue(),
        [&](Value v) {
          auto load = v.getDefiningOp<tile::LoadOp>();
          return load && load.getPtr() == ptr;
        },
        body);
  });
  return found;
}

} // namespace

bool tilec::isFloatLike(Type type) {
  return isa<FloatType>(tile::getElementTypeOrSelf(type));
}

bool tilec::isIntegerLike(Type type) {
  return isa<IntegerType, IndexType>(tile::getElementTypeOrSelf(type));
}

bool tilec::accumulatesFloats(Operation *loop) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    Region &body = forOp.getRegion();
    auto yield = cast<scf::YieldOp>(body.front().getTerminator());
    return carriesAccumulation(forOp.getRegionIterArgs(), yield.getOperands(), body) ||
           accumulatesInMemory(body);
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(loop)) {
    Region &after = whileOp.getAfter();
    auto yield = cast<scf::YieldOp>(after.front().getTerminator());
    // The values the condition forwards stand for the carried ones when it
    // forwards them in order (as the front end writes loops).
    ValueRange forwarded = whileOp.getAfterArguments();
    bool carries = forwarded.size() == yield.getNumOperands() &&
                   carriesAccumulation(forwarded, yield.getOperands(), after);
    return carries || accumulatesInMemory(after) || accumulatesInMemory(whileOp.getBefore());
  }
  return false;
}

namespace {
using DependenceLattice = dataflow::Lattice<RuntimeDependence>;

class RuntimeDependenceDataFlow
    : public dataflow::SparseForwardDataFlowAnalysis<DependenceLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const DependenceLattice *> operands,
                               ArrayRef<DependenceLattice *> results) override {
    unsigned own = RuntimeDependence::None;
    if (isa<tile::NumProgramsOp>(op))
      own = RuntimeDependence::Grid;
    else if (isa<tile::LoadOp, tile::AtomicRMWOp, tile::AtomicCASOp, func::CallOp>(op))
      own = RuntimeDependence::Runtime; // whatever memory (or a callee) holds
    RuntimeDependence out = RuntimeDependence::of(own);
    for (const DependenceLattice *operand : operands) {
      if (operand->getValue().isUninitialized())
        return success(); // revisited once every operand is reached
      out = RuntimeDependence::join(out, operand->getValue());
    }
    for (DependenceLattice *lattice : results)
      propagateIfChanged(lattice, lattice->join(out));
    return success();
  }

  /// The induction variable of scf.for takes the values its lower bound
  /// and step make (its upper bound only ends the loop); stepping by the
  /// grid in a loop that accumulates nothing hands out ids of work. Other
  /// arguments the control flow does not feed could be anything.
  void visitNonControlFlowArguments(Operation *op, const RegionSuccessor &successor,
                                    ArrayRef<DependenceLattice *> argLattices,
                                    unsigned firstIndex) override {
    auto forOp = dyn_cast<scf::ForOp>(op);
    if (!forOp)
      return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
          op, successor, argLattices, firstIndex);
    ValueRange fed = successor.getSuccessorInputs();
    for (DependenceLattice *lattice : argLattices) {
      Value arg = lattice->getAnchor();
      if (llvm::is_contained(fed, arg))
        continue; // the control flow joins what flows into it
      if (arg != forOp.getInductionVar()) {
        setToEntryState(lattice);
        continue;
      }
      ProgramPoint *point = getProgramPointAfter(op);
      const DependenceLattice *lb = getLatticeElementFor(point, forOp.getLowerBound());
      const DependenceLattice *step = getLatticeElementFor(point, forOp.getStep());
      if (lb->getValue().isUninitialized() || step->getValue().isUninitialized())
        continue; // revisited once both are reached
      RuntimeDependence stepDependence = step->getValue();
      if (!accumulatesFloats(forOp))
        stepDependence =
            RuntimeDependence::of(stepDependence.sources() & ~RuntimeDependence::Grid);
      propagateIfChanged(lattice, lattice->join(RuntimeDependence::join(
                                      lb->getValue(), stepDependence)));
    }
  }

  /// A kernel's scalar arguments are runtime data; its pointer arguments
  /// are addresses, which order nothing. Any other value the analysis
  /// cannot follow may depend on anything.
  void setToEntryState(DependenceLattice *lattice) override {
    unsigned sources = RuntimeDependence::Grid | RuntimeDependence::Runtime;
    if (auto arg = dyn_cast<BlockArgument>(lattice->getAnchor()))
      if (isa<func::FuncOp>(arg.getOwner()->getParentOp()) && arg.getOwner()->isEntryBlock())
        sources = isa<tile::PointerType>(arg.getType()) ? RuntimeDependence::None
                                                        : RuntimeDependence::Runtime;
    propagateIfChanged(lattice, lattice->join(RuntimeDependence::of(sources)));
  }
};
} // namespace

RuntimeDependenceAnalysis::RuntimeDependenceAnalysis(Operation *root)
    : solver_(std::make_unique<DataFlowSolver>()) {
  dataflow::loadBaselineAnalyses(*solver_);
  solver_->load<RuntimeDependenceDataFlow>();
  // Every op has a transfer function, so the analysis cannot fail.
  [[maybe_unused]] LogicalResult result = solver_->initializeAndRun(root);
  assert(succeeded(result) && "runtime-dependence analysis failed");
}

RuntimeDependenceAnalysis::~RuntimeDependenceAnalysis() = default;

RuntimeDependence RuntimeDependenceAnalysis::lookup(Value value) const {
  if (const auto *lattice = solver_->lookupState<DependenceLattice>(value))
    if (!lattice->getValue().isUninitialized())
      return lattice->getValue();
  return RuntimeDependence::of(RuntimeDependence::Grid | RuntimeDependence::Runtime);
}
