// tilegpu-coalesce: give every global load, store and atomic the layout
// that reads or writes memory in the widest, best-coalesced accesses.
//
// From the axis info of the pointer tensor: the dimension with the longest
// runs of consecutive addresses is the fastest, and a thread holds as many
// consecutive elements along it as contiguity and alignment allow (16
// bytes at most, and no more than the tensor has per thread). The op is
// rebuilt in that layout, with conversions from and to the layouts around
// it; tilegpu-remove-layout-conversions then spreads the layout to its
// neighbours where that removes them. An atomic holds no more consecutive
// elements per thread than one atomic instruction takes.
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tilegpu-coalesce"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUCOALESCE
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// The pointer tensor that decides a memory op's layout, or null.
Value accessedPointers(Operation *op) {
  Value ptr;
  if (auto load = dyn_cast<tile::LoadOp>(op))
    ptr = load.getPtr();
  else if (auto store = dyn_cast<tile::StoreOp>(op))
    ptr = store.getPtr();
  else if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
    ptr = rmw.getPtr();
  else if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
    ptr = cas.getPtr();
  return ptr && isa<RankedTensorType>(ptr.getType()) ? ptr : Value();
}

Attribute coalescedLayout(Value ptr, const AxisInfoAnalysis &axisInfo,
                          unsigned numWarps, unsigned maxVector) {
  auto type = cast<RankedTensorType>(ptr.getType());
  SmallVector<unsigned> order = axisInfo.getMemoryOrder(ptr);
  unsigned vector = std::min(maxVector, axisInfo.getVectorWidth(ptr, order.front()));
  // More elements per thread than the tensor has per thread would only
  // make threads hold copies.
  int64_t perThread = std::max<int64_t>(
      1, type.getNumElements() / (int64_t(numWarps) * tilegpu::kThreadsPerWarp));
  SmallVector<unsigned> sizePerThread(type.getRank(), 1);
  sizePerThread[order.front()] = std::min<int64_t>(vector, perThread);
  return tilegpu::getBlockedLayout(ptr.getContext(), type.getShape(),
                                   sizePerThread, order, numWarps);
}

/// `op` rebuilt with every tensor in `layout`.
void relayout(IRRewriter &rewriter, Operation *op, Attribute layout) {
  rewriter.setInsertionPoint(op);
  IRMapping mapping;
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<RankedTensorType>(operand.getType()))
      mapping.map(operand, rewriter.create<tilegpu::ConvertLayoutOp>(
                               op->getLoc(), type.cloneWithEncoding(layout), operand));
  Operation *clone = rewriter.clone(*op, mapping);
  SmallVector<Value> results;
  rewriter.setInsertionPointAfter(clone);
  for (auto [old, fresh] : llvm::zip(op->getResults(), clone->getResults())) {
    if (!isa<RankedTensorType>(old.getType())) {
      results.push_back(fresh);
      continue;
    }
    rewriter.modifyOpInPlace(clone, [&] {
      fresh.setType(cast<RankedTensorType>(old.getType()).cloneWithEncoding(layout));
    });
    results.push_back(rewriter.create<tilegpu::ConvertLayoutOp>(
        op->getLoc(), old.getType(), fresh));
  }
  rewriter.replaceOp(op, results);
}

struct TileGPUCoalescePass
    : tilec::impl::TileGPUCoalesceBase<TileGPUCoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned numWarps = tilegpu::getNumWarps(module);
    if (!numWarps) {
      module.emitError("tilegpu-coalesce needs a module that went through "
                       "tile-to-tilegpu (no tilegpu.num_warps attribute)");
      return signalPassFailure();
    }
    // Without a target (a hand-written test module), no vector atomics.
    std::string ignored;
    std::optional<TargetInfo> target = TargetInfo::parse(tilegpu::getTarget(module), ignored);
    unsigned computeCapability = target ? target->computeCapability : 0;
    // Decide every layout from the analysis before changing anything.
    SmallVector<std::pair<Operation *, Attribute>> work;
    {
      AxisInfoAnalysis axisInfo(module);
      module.walk([&](Operation *op) {
        Value ptr = accessedPointers(op);
        if (!ptr)
          return;
        // An atomic's elements go one per instruction unless a vector
        // atomic exists: more per thread would only spread a warp's
        // accesses over more memory.
        unsigned maxVector = isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op)
                                 ? atomicVectorLimit(op, computeCapability)
                                 : ~0u;
        Attribute layout = coalescedLayout(ptr, axisInfo, numWarps, maxVector);
        if (cast<RankedTensorType>(ptr.getType()).getEncoding() != layout)
          work.push_back({op, layout});
      });
    }
    IRRewriter rewriter(&getContext());
    for (auto [op, layout] : work)
      relayout(rewriter, op, layout);
  }
};
} // namespace
