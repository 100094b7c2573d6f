// tile-to-tilegpu: choose a distributed layout for every tensor.
//
// Layouts are a property of groups of values, not of single ops: an
// elementwise op, a load or store, a broadcast or a loop-carried value ties
// its tensors to one layout. The pass
//   1. rematerialises cheap index chains feeding `expand_dims`, so that a
//      range used as both `offs[:, None]` and `offs[None, :]` can take two
//      slice layouts without a conversion;
//   2. groups tied values with a union-find;
//   3. gives each group a layout: the slice of its parent's layout when it
//      feeds an expand_dims, else the coalesced layout its largest memory
//      access asks for, else a row-major default;
//   4. rewrites every tensor type with its group's layout and inserts
//      tilegpu.convert_layout where an expand_dims operand disagrees.
#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tile-to-tilegpu"

namespace tilec {
#define GEN_PASS_DEF_TILETOTILEGPU
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

RankedTensorType asTensor(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}

int64_t numElements(RankedTensorType type) { return type.getNumElements(); }

//===----------------------------------------------------------------------===//
// Step 1: rematerialise index chains per expand_dims
//===----------------------------------------------------------------------===//

/// Ops that are cheaper to recompute in another layout than to convert:
/// pure integer index arithmetic on tensors.
bool isRematerialisable(Operation *op) {
  if (!op || op->getNumResults() != 1 || !asTensor(op->getResult(0)) ||
      !isPure(op) || op->getNumRegions() != 0)
    return false;
  if (isa<tile::MakeRangeOp, tile::SplatOp, tile::BroadcastOp,
          tile::ExpandDimsOp, tile::AssumeMultipleOp, tile::AssumeContiguousOp,
          arith::ConstantOp>(op))
    return true;
  return isa<arith::ArithDialect>(op->getDialect());
}

/// Clone the rematerialisable producers of `root` right before `user`,
/// returning the clone of root; values from other producers are shared.
Value cloneIndexChain(Value root, Operation *user, IRMapping &mapping,
                      unsigned &budget) {
  if (mapping.contains(root))
    return mapping.lookup(root);
  Operation *def = root.getDefiningOp();
  if (!isRematerialisable(def) || budget == 0)
    return root;
  --budget;
  for (Value operand : def->getOperands())
    cloneIndexChain(operand, user, mapping, budget);
  OpBuilder builder(user);
  Operation *clone = builder.clone(*def, mapping);
  return clone->getResult(0);
}

void rematerialiseForExpandDims(func::FuncOp func) {
  SmallVector<tile::ExpandDimsOp> expands;
  func.walk([&](tile::ExpandDimsOp op) { expands.push_back(op); });
  for (tile::ExpandDimsOp op : expands) {
    // Always clone: even a single-use operand may share producers (the
    // same tl.arange for rows and columns) with another expand_dims.
    Value src = op.getSrc();
    if (!isRematerialisable(src.getDefiningOp()))
      continue;
    IRMapping mapping;
    unsigned budget = 64; // ops per chain; longer chains are shared
    Value clone = cloneIndexChain(src, op, mapping, budget);
    op.getSrcMutable().assign(clone);
  }
}

//===----------------------------------------------------------------------===//
// Steps 2-4: layout groups
//===----------------------------------------------------------------------===//

class LayoutAssignment {
public:
  LayoutAssignment(func::FuncOp func, const AxisInfoAnalysis &axisInfo,
                   unsigned numWarps)
      : func_(func), axisInfo_(axisInfo), numWarps_(numWarps) {}

  LogicalResult run();

private:
  void tie(ValueRange values);
  void tie(Value a, Value b) { tie(ValueRange{a, b}); }
  LogicalResult collectTies();
  void chooseLayouts();
  Attribute coalescedLayout(Value ptr);
  void rewriteTypes();

  Value leader(Value v) { return groups_.getLeaderValue(v); }

  func::FuncOp func_;
  const AxisInfoAnalysis &axisInfo_;
  unsigned numWarps_;
  llvm::EquivalenceClasses<Value> groups_;
  /// Tensor values in program order (deterministic iteration).
  llvm::SetVector<Value> tensors_;
  /// Memory accesses per group leader: the pointer tensors that anchor it.
  llvm::MapVector<Value, SmallVector<Value>> anchors_;
  SmallVector<tile::ExpandDimsOp> expands_;
  SmallVector<tile::ReduceOp> reduces_;
  llvm::DenseMap<Value, Attribute> layoutOf_; // group leader → layout
};

void LayoutAssignment::tie(ValueRange values) {
  Value first;
  for (Value v : values) {
    if (!v || !asTensor(v))
      continue;
    tensors_.insert(v);
    groups_.insert(v);
    if (!first)
      first = v;
    else
      groups_.unionSets(first, v);
  }
}

LogicalResult LayoutAssignment::collectTies() {
  for (BlockArgument arg : func_.getArguments())
    if (asTensor(arg))
      return func_.emitError("kernel arguments cannot be tensors");
  WalkResult walk = func_.walk([&](Operation *op) -> WalkResult {
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
      for (unsigned i = 0; i < forOp.getNumResults(); ++i)
        tie({forOp.getInitArgs()[i], forOp.getRegionIterArgs()[i],
             yield.getOperand(i), forOp.getResult(i)});
      return WalkResult::advance();
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
        SmallVector<Value> tied{ifOp.getResult(i)};
        tied.push_back(ifOp.thenYield().getOperand(i));
        if (!ifOp.getElseRegion().empty())
          tied.push_back(ifOp.elseYield().getOperand(i));
        tie(tied);
      }
      return WalkResult::advance();
    }
    if (isa<scf::YieldOp>(op))
      return WalkResult::advance(); // tied through its parent above
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      tie(expand.getSrc(), Value());
      tie(expand.getResult(), Value());
      expands_.push_back(expand);
      return WalkResult::advance();
    }
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      // Operands share a layout; results share the slice of it without the
      // reduced axis (chosen in chooseLayouts).
      tie(reduce.getSrcs());
      tie(reduce.getResults());
      reduces_.push_back(reduce);
      return WalkResult::advance();
    }
    if (isa<tile::MakeRangeOp, tile::SplatOp, arith::ConstantOp>(op)) {
      tie(op->getResults());
      return WalkResult::advance();
    }
    // Everything else is elementwise in the layout sense: its tensor
    // operands and results share one layout, which needs them to share a
    // rank.
    SmallVector<Value> tensorValues;
    for (Value v : op->getOperands())
      if (asTensor(v))
        tensorValues.push_back(v);
    for (Value v : op->getResults())
      if (asTensor(v))
        tensorValues.push_back(v);
    if (tensorValues.empty())
      return WalkResult::advance();
    int64_t rank = asTensor(tensorValues.front()).getRank();
    for (Value v : tensorValues)
      if (asTensor(v).getRank() != rank) {
        op->emitError("tile-to-tilegpu has no layout rule for '")
            << op->getName() << "' with tensors of different ranks";
        return WalkResult::interrupt();
      }
    tie(tensorValues);
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (asTensor(load.getPtr()))
        anchors_[load.getPtr()].push_back(load.getPtr());
    if (auto store = dyn_cast<tile::StoreOp>(op))
      if (asTensor(store.getPtr()))
        anchors_[store.getPtr()].push_back(store.getPtr());
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

Attribute LayoutAssignment::coalescedLayout(Value ptr) {
  RankedTensorType type = asTensor(ptr);
  SmallVector<unsigned> order = axisInfo_.getMemoryOrder(ptr);
  unsigned vector = axisInfo_.getVectorWidth(ptr, order.front());
  // Do not ask for more elements per thread than the tensor has per thread:
  // wider vectors would only make threads hold copies.
  int64_t perThread = std::max<int64_t>(
      1, numElements(type) / (int64_t(numWarps_) * tilegpu::kThreadsPerWarp));
  SmallVector<unsigned> sizePerThread(type.getRank(), 1);
  sizePerThread[order.front()] = std::min<int64_t>(vector, perThread);
  return tilegpu::getBlockedLayout(ptr.getContext(), type.getShape(),
                                   sizePerThread, order, numWarps_);
}

void LayoutAssignment::chooseLayouts() {
  // Per group: the largest memory access anchors it.
  llvm::DenseMap<Value, Value> anchorOf; // leader → ptr
  for (auto &[ptr, _] : anchors_) {
    Value l = leader(ptr);
    auto it = anchorOf.find(l);
    if (it == anchorOf.end() ||
        numElements(asTensor(ptr)) > numElements(asTensor(it->second)))
      anchorOf[l] = ptr;
  }
  // Groups feeding an expand_dims take the slice of the result's layout.
  llvm::DenseMap<Value, tile::ExpandDimsOp> derivedFrom; // leader → expand
  for (tile::ExpandDimsOp op : expands_)
    derivedFrom.try_emplace(leader(op.getSrc()), op);
  // Reduction results are the slice of their operands' layout.
  llvm::DenseMap<Value, tile::ReduceOp> reducedFrom; // leader → reduce
  for (tile::ReduceOp op : reduces_)
    if (asTensor(op.getResult(0)))
      reducedFrom.try_emplace(leader(op.getResult(0)), op);

  int64_t maxRank = 0;
  for (Value v : tensors_)
    maxRank = std::max(maxRank, asTensor(v).getRank());
  // Higher ranks first: a slice needs its parent's layout decided.
  for (int64_t rank = maxRank; rank >= 1; --rank) {
    for (Value v : tensors_) {
      if (asTensor(v).getRank() != rank)
        continue;
      Value l = leader(v);
      if (layoutOf_.count(l))
        continue;
      Attribute layout;
      if (auto it = reducedFrom.find(l); it != reducedFrom.end()) {
        tile::ReduceOp reduce = it->second;
        layout = tilegpu::SliceEncodingAttr::get(
            v.getContext(), reduce.getAxis(),
            layoutOf_.lookup(leader(reduce.getSrcs()[0])));
      } else if (auto it = derivedFrom.find(l); it != derivedFrom.end()) {
        tile::ExpandDimsOp expand = it->second;
        layout = tilegpu::SliceEncodingAttr::get(
            v.getContext(), expand.getAxis(),
            layoutOf_.lookup(leader(expand.getResult())));
      } else if (auto it = anchorOf.find(l); it != anchorOf.end()) {
        layout = coalescedLayout(it->second);
      } else {
        // The group's largest shape decides the default layout.
        RankedTensorType largest;
        for (Value member : groups_.members(l))
          if (!largest || numElements(asTensor(member)) > numElements(largest))
            largest = asTensor(member);
        layout = tilegpu::getDefaultBlockedLayout(
            v.getContext(), largest.getShape(), numWarps_);
      }
      layoutOf_[l] = layout;
    }
  }
}

RankedTensorType withLayout(RankedTensorType type, Attribute layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

void LayoutAssignment::rewriteTypes() {
  for (Value v : tensors_) {
    RankedTensorType type = withLayout(asTensor(v), layoutOf_.lookup(leader(v)));
    v.setType(type);
    // Constants carry their type in their value too.
    if (auto constant = v.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(dense.reshape(type));
  }
  // A reduction's results must be the slice of its operands' layout; where
  // their group settled on another, convert after the reduction.
  for (tile::ReduceOp op : reduces_) {
    auto srcLayout = asTensor(op.getSrcs()[0]).getEncoding();
    for (Value result : op.getResults()) {
      RankedTensorType type = asTensor(result);
      if (!type)
        continue;
      auto wanted = tilegpu::SliceEncodingAttr::get(op.getContext(),
                                                    op.getAxis(), srcLayout);
      if (type.getEncoding() == wanted)
        continue;
      result.setType(withLayout(type, wanted));
      OpBuilder builder(op);
      builder.setInsertionPointAfter(op);
      auto convert = builder.create<tilegpu::ConvertLayoutOp>(op.getLoc(), type,
                                                              result);
      result.replaceAllUsesExcept(convert, convert);
    }
  }
  for (tile::ExpandDimsOp op : expands_) {
    RankedTensorType srcType = op.getSrc().getType();
    auto wanted = tilegpu::SliceEncodingAttr::get(
        op.getContext(), op.getAxis(), op.getType().getEncoding());
    if (srcType.getEncoding() == wanted)
      continue;
    OpBuilder builder(op);
    auto convert = builder.create<tilegpu::ConvertLayoutOp>(
        op.getLoc(), withLayout(srcType, wanted), op.getSrc());
    op.getSrcMutable().assign(convert);
  }
}

LogicalResult LayoutAssignment::run() {
  if (failed(collectTies()))
    return failure();
  chooseLayouts();
  rewriteTypes();
  return success();
}

struct TileToTileGPUPass
    : tilec::impl::TileToTileGPUBase<TileToTileGPUPass> {
  using TileToTileGPUBase::TileToTileGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numWarps == 0 || !llvm::isPowerOf2_32(numWarps) || numWarps > 32) {
      module.emitError("num-warps must be a power of two between 1 and 32, "
                       "got ")
          << numWarps;
      return signalPassFailure();
    }
    bool hasCalls = false;
    module.walk([&](func::CallOp call) {
      call.emitError("tile-to-tilegpu needs calls inlined (run tile-inline)");
      hasCalls = true;
    });
    if (hasCalls)
      return signalPassFailure();

    for (auto func : module.getOps<func::FuncOp>())
      rematerialiseForExpandDims(func);
    // The analysis runs after rematerialisation so clones are covered.
    AxisInfoAnalysis axisInfo(module);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(LayoutAssignment(func, axisInfo, numWarps).run()))
        return signalPassFailure();

    // Originals of rematerialised chains are now unused; erasing a user
    // can make its producers dead in turn.
    for (bool erased = true; erased;) {
      erased = false;
      module.walk([&](Operation *op) {
        if (isa<tile::TileDialect, arith::ArithDialect>(op->getDialect()) &&
            isOpTriviallyDead(op)) {
          op->erase();
          erased = true;
        }
      });
    }

    module->setAttr(tilegpu::kNumWarpsAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     numWarps));
  }
};
} // namespace
