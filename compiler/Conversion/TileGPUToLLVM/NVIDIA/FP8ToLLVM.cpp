// fp8 values on NVIDIA GPUs: LLVM has no fp8 type, so the type converter
// holds them as i8 bits, and the only arithmetic left on them is conversion
// to and from other floats (tile-widen-fp8 moves everything else to f32).
// Conversions go through f32 with the cvt forms sm_89 added: e4m3x2/e5m2x2
// to f16x2 (exact, and f16 to f32 is exact too), and f32 pairs to e4m3x2 or
// e5m2x2 with .satfinite, which PTX requires for these destinations.
#include "compiler/Analysis/FP8.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

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

Value tilec::lowering::fromFP8(OpBuilder &b, Location loc, Value bits,
                               Type fp8Type, Type to) {
  // Through f32, exactly: every fp8 value is an f16, bf16 and f32 value.
  Value x = fp8ToF32(b, loc, bits, fp8Type);
  if (to.getIntOrFloatBitWidth() > 32)
    return b.create<LLVM::FPExtOp>(loc, to, x);
  if (to.getIntOrFloatBitWidth() < 32)
    return b.create<LLVM::FPTruncOp>(loc, to, x);
  return x;
}

Value tilec::lowering::toFP8(OpBuilder &b, Location loc, Value x, Type fp8Type) {
  // f16 and bf16 widen to f32 exactly; f64 rounds to f32 first (the front
  // end emits that step itself, and so does the interpreter run it).
  Type f32 = b.getF32Type();
  if (x.getType().getIntOrFloatBitWidth() < 32)
    x = b.create<LLVM::FPExtOp>(loc, f32, x);
  else if (x.getType().getIntOrFloatBitWidth() > 32)
    x = b.create<LLVM::FPTruncOp>(loc, f32, x);
  return f32ToFP8(b, loc, x, fp8Type);
}

IntegerAttr tilec::lowering::fp8Bits(Builder &b, FloatAttr value) {
  return b.getIntegerAttr(b.getI8Type(), value.getValue().bitcastToAPInt());
}

mlir::LogicalResult tilec::lowering::checkFP8Lowerable(ModuleOp module,
                                                      const TargetInfo &target) {
  WalkResult walk = module.walk([&](Operation *op) {
    if (convertsFP8(op) && target.computeCapability < 89) {
      op->emitError("converting fp8 values needs sm_89 or newer (the target is ")
          << target.chip << ")";
      return WalkResult::interrupt();
    }
    if (computesOnFP8(op)) {
      op->emitError("computes on fp8 values, which GPUs cannot: run "
                    "tile-widen-fp8 first");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {
/// arith.extf from fp8, to any wider float.
struct ExtFFromFP8Lowering : OpConversionPattern<arith::ExtFOp> {
  ExtFFromFP8Lowering(TileTypeConverter &converter)
      // Above the upstream arith pattern, which would extend the i8 bits.
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::ExtFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type from = op.getIn().getType();
    if (!isFP8(from) || isa<RankedTensorType>(from)) // tensors: elementwise lowering
      return failure();
    rewriter.replaceOp(op, fromFP8(rewriter, op.getLoc(), adaptor.getIn(), from,
                                   op.getType()));
    return success();
  }
};

/// arith.truncf to fp8 from any wider float (canonicalisation turns the
/// front end's f16 -> f32 -> fp8 into f16 -> fp8).
struct TruncFToFP8Lowering : OpConversionPattern<arith::TruncFOp> {
  TruncFToFP8Lowering(TileTypeConverter &converter)
      : OpConversionPattern(converter, &converter.getContext(), /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType();
    if (!isFP8(to) || isa<RankedTensorType>(to)) // tensors: elementwise lowering
      return failure();
    rewriter.replaceOp(op, toFP8(rewriter, op.getLoc(), adaptor.getIn(), to));
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
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(op, rewriter.getI8Type(),
                                                  fp8Bits(rewriter, value));
    return success();
  }
};
} // namespace

void tilec::lowering::populateFP8ToLLVMPatterns(TileTypeConverter &converter,
                                                RewritePatternSet &patterns) {
  patterns.add<ExtFFromFP8Lowering, TruncFToFP8Lowering, FP8ConstantLowering>(
      converter);
}
