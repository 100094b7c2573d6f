// tilegpu-widen-fp8: arithmetic on fp8 values computed in f32, so that the
// lowering meets fp8 only in loads, stores, selects, tile.dot and the
// f32 <-> fp8 conversions the hardware has (sm_89+, checked here).
#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tilegpu-widen-fp8"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUWIDENFP8
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {
bool isFP8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t));
}

/// `t` (a scalar or a tensor) with f32 elements where it had fp8 ones.
Type widened(Type t) {
  if (!isFP8(t))
    return t;
  Type f32 = Float32Type::get(t.getContext());
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return tensor.clone(f32);
  return f32;
}

/// Ops that need no fp8 arithmetic: they move or reinterpret bits, or are
/// the conversions between fp8 and f32 themselves.
bool movesBitsOnly(Operation *op) {
  if (isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
    return true;
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    Type in = getElementTypeOrSelf(op->getOperand(0).getType());
    Type out = getElementTypeOrSelf(op->getResult(0).getType());
    return (isFP8(in) && out.isF32()) || (in.isF32() && isFP8(out)) ||
           (isFP8(in) && out.isF64()); // f32 first, exactly, then f64
  }
  return false;
}

struct WidenFP8Arithmetic : RewritePattern {
  WidenFP8Arithmetic(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumRegions() != 0 || movesBitsOnly(op))
      return failure();
    bool touchesFP8 = llvm::any_of(op->getOperandTypes(), isFP8) ||
                      llvm::any_of(op->getResultTypes(), isFP8);
    if (!touchesFP8)
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(isFP8(v.getType())
                             ? rewriter.create<arith::ExtFOp>(
                                   loc, widened(v.getType()), v)
                             : v);
    SmallVector<Type> resultTypes;
    for (Type t : op->getResultTypes())
      resultTypes.push_back(widened(t));
    SmallVector<Value> wide;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      // A conversion between fp8 and another float than f32 goes through
      // f32, which may leave nothing, a widening or a narrowing to do.
      Value in = operands[0];
      Type out = resultTypes[0];
      unsigned inBits = getElementTypeOrSelf(in).getIntOrFloatBitWidth();
      unsigned outBits = getElementTypeOrSelf(out).getIntOrFloatBitWidth();
      if (inBits < outBits)
        in = rewriter.create<arith::ExtFOp>(loc, out, in);
      else if (inBits > outBits)
        in = rewriter.create<arith::TruncFOp>(loc, out, in);
      wide.push_back(in);
    } else {
      OperationState state(loc, op->getName(), operands, resultTypes,
                           op->getAttrs());
      llvm::append_range(wide, rewriter.create(state)->getResults());
    }
    SmallVector<Value> results;
    for (auto [original, result] : llvm::zip(op->getResults(), wide))
      results.push_back(isFP8(original.getType())
                            ? rewriter.create<arith::TruncFOp>(
                                  loc, original.getType(), result)
                            : result);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Whether `op` converts fp8 values or multiplies them (what needs sm_89).
bool needsFP8Instructions(Operation *op) {
  if (auto dot = dyn_cast<tilec::tile::DotOp>(op))
    return isFP8(dot.getA().getType()) || isFP8(dot.getB().getType());
  if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
    return false;
  return isFP8(op->getOperand(0).getType()) || isFP8(op->getResult(0).getType());
}

struct TileGPUWidenFP8Pass
    : tilec::impl::TileGPUWidenFP8Base<TileGPUWidenFP8Pass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<tilec::TargetInfo> target = tilec::getModuleTarget(module, "tilegpu-widen-fp8");
    if (!target)
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenFP8Arithmetic>(&getContext());
    // Every rewrite removes an fp8 op the pattern matches and creates only
    // ops it does not, so the driver terminates.
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
    if (target->computeCapability >= 89)
      return;
    WalkResult walk = module.walk([&](Operation *op) {
      if (!needsFP8Instructions(op))
        return WalkResult::advance();
      op->emitError(isa<tilec::tile::DotOp>(op) ? "tl.dot of fp8 operands"
                                         : "converting fp8 values")
          << " needs sm_89 or newer (the target is " << target->chip << ")";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
