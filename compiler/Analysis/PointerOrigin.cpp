#include "compiler/Analysis/PointerOrigin.h"

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tilec;

PointerOrigin PointerOrigin::join(const PointerOrigin &a, const PointerOrigin &b) {
  if (a.isUninitialized())
    return b;
  if (b.isUninitialized() || a == b)
    return a;
  return unknown();
}

void PointerOrigin::print(raw_ostream &os) const {
  switch (state_) {
  case State::Uninitialized:
    os << "<not reached>";
    return;
  case State::Unknown:
    os << "<unknown>";
    return;
  case State::Argument:
    os << "argument " << argument_.getArgNumber();
    return;
  }
}

namespace {
using PointerOriginLattice = dataflow::Lattice<PointerOrigin>;

class PointerOriginDataFlow
    : public dataflow::SparseForwardDataFlowAnalysis<PointerOriginLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const PointerOriginLattice *> operands,
                               ArrayRef<PointerOriginLattice *> results) override {
    PointerOrigin out = PointerOrigin::unknown();
    if (isa<tile::AddPtrOp, tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp,
            tile::ReshapeOp, tile::TransOp, tilegpu::ConvertLayoutOp>(op))
      out = operands[0]->getValue();
    else if (isa<arith::SelectOp>(op))
      out = PointerOrigin::join(operands[1]->getValue(), operands[2]->getValue());
    else if (isa<tile::JoinOp>(op))
      out = PointerOrigin::join(operands[0]->getValue(), operands[1]->getValue());
    if (out.isUninitialized())
      return success(); // revisited once the operands are reached
    for (PointerOriginLattice *lattice : results)
      propagateIfChanged(lattice, lattice->join(out));
    return success();
  }

  /// A kernel's pointer arguments are their own origin; any other value
  /// the control flow does not feed (an induction variable) has none.
  void setToEntryState(PointerOriginLattice *lattice) override {
    PointerOrigin origin = PointerOrigin::unknown();
    if (auto arg = dyn_cast<BlockArgument>(lattice->getAnchor()))
      if (isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
          arg.getOwner()->isEntryBlock() && isa<tile::PointerType>(arg.getType()))
        origin = PointerOrigin::of(arg);
    propagateIfChanged(lattice, lattice->join(origin));
  }
};
} // namespace

PointerOriginAnalysis::PointerOriginAnalysis(Operation *root)
    : solver_(std::make_unique<DataFlowSolver>()) {
  dataflow::loadBaselineAnalyses(*solver_);
  solver_->load<PointerOriginDataFlow>();
  // Every op has a transfer function (unmodelled ones: unknown).
  [[maybe_unused]] LogicalResult result = solver_->initializeAndRun(root);
  assert(succeeded(result) && "pointer-origin analysis failed");
}

PointerOriginAnalysis::~PointerOriginAnalysis() = default;

BlockArgument PointerOriginAnalysis::originOf(Value pointer) const {
  if (const auto *lattice = solver_->lookupState<PointerOriginLattice>(pointer))
    return lattice->getValue().argument();
  return nullptr;
}
