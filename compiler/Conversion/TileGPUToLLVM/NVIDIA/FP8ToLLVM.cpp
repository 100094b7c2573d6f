// fp8 values on NVIDIA GPUs: LLVM has no fp8 type, so the type converter
// holds them as i8 bits, and the only arithmetic the front end leaves on
// them is conversion to and from f32 (tilegpu-widen-fp8 moves everything else
// to f32). Conversions use the cvt forms sm_89 added: e4m3x2/e5m2x2 to
// f16x2 (exact, and f16 to f32 is exact too), and f32 pairs to e4m3x2 or
// e5m2x2 with .satfinite, which PTX requires for these destinations.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

bool tilec::lowering::isFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

namespace {
const char *ptxName(Type fp8Type) {
  return isa<Float8E4M3FNType>(fp8Type) ? "e4m3x2" : "e5m2x2";
}
} // namespace

Value tilec::lowering::fp8ToF32(OpBuilder &b, Location loc, Value bits,
                                Type fp8Type) {
  // The byte in the low half of a b16 pair (the high one is zero, which
  // converts to +0 and is dropped).
  Value pair = b.create<LLVM::ZExtOp>(loc, b.getI16Type(), bits);
  std::string ptx = std::string("cvt.rn.f16x2.") + ptxName(fp8Type) + " $0, $1;";
  Value halves = inlineAsm(b, loc, b.getI32Type(), pair, ptx, "=r,h");
  Value low = b.create<LLVM::TruncOp>(loc, b.getI16Type(), halves);
  Value half = b.create<LLVM::BitcastOp>(loc, b.getF16Type(), low);
  return b.create<LLVM::FPExtOp>(loc, b.getF32Type(), half);
}

Value tilec::lowering::f32ToFP8(OpBuilder &b, Location loc, Value x,
                                Type fp8Type) {
  // cvt packs its first source into the high byte, the second into the low.
  Value zero = b.create<LLVM::ConstantOp>(loc, b.getF32Type(), b.getF32FloatAttr(0));
  std::string ptx =
      std::string("cvt.rn.satfinite.") + ptxName(fp8Type) + ".f32 $0, $1, $2;";
  Value pair = inlineAsm(b, loc, b.getI16Type(), ValueRange{zero, x}, ptx, "=h,f,f");
  return b.create<LLVM::TruncOp>(loc, b.getI8Type(), pair);
}

mlir::LogicalResult tilec::lowering::checkFP8Lowerable(ModuleOp module,
                                                      const TargetInfo &target) {
  WalkResult walk = module.walk([&](Operation *op) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
      return WalkResult::advance();
    auto fp8 = [](Type t) { return isFP8(getElementTypeOrSelf(t)); };
    bool touches = llvm::any_of(op->getOperandTypes(), fp8) ||
                   llvm::any_of(op->getResultTypes(), fp8);
    if (!touches || isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
      return WalkResult::advance();
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      Type in = getElementTypeOrSelf(op->getOperand(0).getType());
      Type out = getElementTypeOrSelf(op->getResult(0).getType());
      bool supported = (fp8(in) && (out.isF32() || out.isF64())) ||
                       (in.isF32() && fp8(out));
      if (supported && target.computeCapability >= 89)
        return WalkResult::advance();
      if (supported)
        op->emitError("converting fp8 values needs sm_89 or newer (the target is ")
            << target.chip << ")";
      else
        op->emitError("converts between fp8 and ")
            << (fp8(in) ? out : in) << "; only f32 converts to and from fp8";
      return WalkResult::interrupt();
    }
    op->emitError("computes on fp8 values, which GPUs cannot: run "
                  "tilegpu-widen-fp8 first");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
/// arith.extf from fp8: f32 exactly, then on to f64 where asked.
struct ExtFFromFP8Lowering : OpConversionPattern<arith::ExtFOp> {
  ExtFFromFP8Lowering(TileTypeConverter &converter)
      // Above the upstream arith pattern, which would extend the i8 bits.
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!isFP8(from))
      return failure();
    Value x = fp8ToF32(rewriter, op.getLoc(), adaptor.getIn(), from);
    if (!op.getType().isF32())
      x = rewriter.create<LLVM::FPExtOp>(op.getLoc(), op.getType(), x);
    rewriter.replaceOp(op, x);
    return success();
  }
};

/// arith.truncf to fp8 from f32 (the front end converts every other float
/// to f32 first).
struct TruncFToFP8Lowering : OpConversionPattern<arith::TruncFOp> {
  TruncFToFP8Lowering(TileTypeConverter &converter)
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType();
    if (!isFP8(to) || !op.getIn().getType().isF32())
      return failure(); // checkFP8Lowerable has reported it
    rewriter.replaceOp(op, f32ToFP8(rewriter, op.getLoc(), adaptor.getIn(), to));
    return success();
  }
};

/// A scalar fp8 constant: its bits as an i8.
struct FP8ConstantLowering : OpConversionPattern<arith::ConstantOp> {
  FP8ConstantLowering(TileTypeConverter &converter)
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !isFP8(value.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(
        op, rewriter.getI8Type(),
        rewriter.getIntegerAttr(rewriter.getI8Type(),
                                value.getValue().bitcastToAPInt()));
    return success();
  }
};
} // namespace

void tilec::lowering::populateFP8ToLLVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ExtFFromFP8Lowering, TruncFToFP8Lowering, FP8ConstantLowering>(
      converter);
}
