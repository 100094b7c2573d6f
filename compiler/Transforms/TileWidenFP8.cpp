// tile-widen-fp8: arithmetic on fp8 values computed in f32, so that later
// passes and the lowering meet fp8 only in loads, stores, selects, bitcasts,
// tile.dot and conversions between fp8 and other floats (the instructions
// GPUs have). It runs before the first canonicalisation, whose folds would
// otherwise compute fp8 constants with APFloat's overflow rules (NaN for
// e4m3) rather than the saturation of the hardware's conversions.
#include "compiler/Analysis/FP8.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-widen-fp8"

namespace tilec {
#define GEN_PASS_DEF_TILEWIDENFP8
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using tilec::computesOnFP8;
using tilec::isFP8;

namespace {
/// `t` (a scalar or a tensor) with f32 elements where it had fp8 ones.
Type widened(Type t) {
  if (!isFP8(t))
    return t;
  Type f32 = Float32Type::get(t.getContext());
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return tensor.clone(f32);
  return f32;
}

/// `op` rebuilt on f32: fp8 operands extended, fp8 results rounded back.
void widen(Operation *op, IRRewriter &rewriter) {
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  for (Value v : op->getOperands())
    operands.push_back(isFP8(v.getType())
                           ? Value(rewriter.create<arith::ExtFOp>(
                                 loc, widened(v.getType()), v))
                           : v);
  SmallVector<Type> resultTypes;
  for (Type t : op->getResultTypes())
    resultTypes.push_back(widened(t));
  OperationState state(loc, op->getName(), operands, resultTypes, op->getAttrs());
  Operation *wide = rewriter.create(state);
  SmallVector<Value> results;
  for (auto [original, result] : llvm::zip(op->getResults(), wide->getResults()))
    results.push_back(isFP8(original.getType())
                          ? Value(rewriter.create<arith::TruncFOp>(
                                loc, original.getType(), result))
                          : Value(result));
  rewriter.replaceOp(op, results);
}

struct TileWidenFP8Pass : tilec::impl::TileWidenFP8Base<TileWidenFP8Pass> {
  void runOnOperation() override {
    // A walk, not a greedy rewrite: no folding between the rewrites (a
    // fold of truncf(extf x) would hand back an op to widen again).
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (computesOnFP8(op) && op->getNumRegions() == 0)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : ops)
      widen(op, rewriter);
  }
};
} // namespace
