// See Rematerialise.h.
#include "compiler/Transforms/Rematerialise.h"

#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;

namespace {

RankedTensorType asTensor(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}


/// Ops that are cheaper to recompute in another layout than to convert:
/// pure integer index arithmetic on tensors.
bool isRematerialisable(Operation *op) {
  if (!op || op->getNumResults() != 1 || !asTensor(op->getResult(0)) ||
      !isPure(op) || op->getNumRegions() != 0)
    return false;
  if (isa<tile::MakeRangeOp, tile::SplatOp, tile::BroadcastOp,
          tile::ExpandDimsOp, tile::TransOp, tile::ReshapeOp, tile::JoinOp,
          tile::AssumeMultipleOp, tile::AssumeContiguousOp, tile::AddPtrOp,
          arith::ConstantOp, tilegpu::ConvertLayoutOp>(op))
    return true;
  return isa<arith::ArithDialect>(op->getDialect());
}

/// Clone the rematerialisable producers of `root` before the rewriter's
/// insertion point, returning the clone of root; values from other
/// producers are shared.
Value cloneIndexChain(IRRewriter &rewriter, Value root, IRMapping &mapping,
                      unsigned &budget) {
  if (mapping.contains(root))
    return mapping.lookup(root);
  Operation *def = root.getDefiningOp();
  if (!isRematerialisable(def) || budget == 0)
    return root;
  --budget;
  for (Value operand : def->getOperands())
    cloneIndexChain(rewriter, operand, mapping, budget);
  return rewriter.clone(*def, mapping)->getResult(0);
}

} // namespace

// A cheap index value that several ops use would tie all of them to one
// layout. Copies go right after the original, so nothing moves into a loop.
void tilec::rematerialiseSharedChains(IRRewriter &rewriter, func::FuncOp func) {
  SmallVector<Operation *> shared;
  func.walk([&](Operation *op) {
    // Unused values (dead code earlier passes left) have nothing to share.
    Value v = op->getNumResults() == 1 ? op->getResult(0) : Value();
    if (isRematerialisable(op) && !v.use_empty() && !v.hasOneUse())
      shared.push_back(op);
  });
  for (Operation *def : shared) {
    Value v = def->getResult(0);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : v.getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      IRMapping mapping;
      unsigned budget = 64; // ops per chain; longer chains are shared
      rewriter.setInsertionPointAfter(def);
      Value copy = cloneIndexChain(rewriter, v, mapping, budget);
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(copy); });
    }
  }
}

namespace {

/// Recompute `v` with its tensors in `layout`, cloning its producers at
/// the rewriter's insertion point; null (with nothing created) when some
/// producer is not rematerialisable, or the chain is longer than `budget`.
class Rematerialisation {
public:
  explicit Rematerialisation(unsigned budget) : budget_(budget) {}

  /// True when `v` can be recomputed in `layout` within the budget.
  bool feasible(Value v, Attribute layout) {
    auto type = asTensor(v);
    if (!type || type.getEncoding() == layout)
      return true;
    Operation *def = v.getDefiningOp();
    if (auto convert = dyn_cast_if_present<tilegpu::ConvertLayoutOp>(def))
      return feasible(convert.getSrc(), layout);
    if (!isRematerialisable(def) || budget_ == 0)
      return false;
    --budget_;
    for (OpOperand &operand : def->getOpOperands()) {
      Attribute wanted = operandLayout(def, operand, layout);
      if (!wanted || !feasible(operand.get(), wanted))
        return false;
    }
    return true;
  }

  Value clone(IRRewriter &rewriter, Value v, Attribute layout) {
    auto type = asTensor(v);
    if (!type || type.getEncoding() == layout)
      return v;
    auto key = std::make_pair(v, layout);
    if (Value done = done_.lookup(key))
      return done;
    Operation *def = v.getDefiningOp();
    if (auto convert = dyn_cast<tilegpu::ConvertLayoutOp>(def))
      return clone(rewriter, convert.getSrc(), layout);
    IRMapping mapping;
    for (OpOperand &operand : def->getOpOperands())
      mapping.map(operand.get(),
                  clone(rewriter, operand.get(), operandLayout(def, operand, layout)));
    Operation *copy = rewriter.clone(*def, mapping);
    tilegpu::setEncoding(copy->getResult(0), layout);
    done_[key] = copy->getResult(0);
    return copy->getResult(0);
  }

private:
  /// The layout `def`'s operand needs when its result is in `layout`.
  static Attribute operandLayout(Operation *def, OpOperand &operand,
                                 Attribute layout) {
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(def))
      return tilegpu::SliceEncodingAttr::get(def->getContext(), expand.getAxis(),
                                             layout);
    if (auto rearrange = dyn_cast<tile::RearrangeLayoutOpInterface>(def))
      return rearrange.inferSourceEncoding(layout);
    return layout;
  }

  unsigned budget_;
  llvm::DenseMap<std::pair<Value, Attribute>, Value> done_;
};

} // namespace

void tilec::rematerialiseConversions(IRRewriter &rewriter, func::FuncOp func) {
  SmallVector<tilegpu::ConvertLayoutOp> conversions;
  func.walk([&](tilegpu::ConvertLayoutOp op) { conversions.push_back(op); });
  for (tilegpu::ConvertLayoutOp op : conversions) {
    Attribute layout = op.getType().getEncoding();
    if (!Rematerialisation(/*budget=*/64).feasible(op.getSrc(), layout))
      continue;
    rewriter.setInsertionPoint(op);
    Rematerialisation remat(/*budget=*/64);
    rewriter.replaceOp(op, remat.clone(rewriter, op.getSrc(), layout));
  }
}

