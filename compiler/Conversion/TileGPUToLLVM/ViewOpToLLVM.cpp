// Ops that create tensors or change their shape without touching memory:
// make_range, splat, constants, broadcast, expand_dims, and the program
// identity and hint ops.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
template <typename Op>
struct TilePattern : OpConversionPattern<Op> {
  TilePattern(TileTypeConverter &converter, const TargetInfo &target)
      // Above the upstream arith patterns, which do not know tensors.
      : OpConversionPattern<Op>(converter, &converter.getContext(),
                                /*benefit=*/2),
        target(target) {}
  const TargetInfo &target;
};

struct MakeRangeOpLowering : TilePattern<tile::MakeRangeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    tilegpu::RegisterMap map(op.getType());
    auto coords = registerCoordinates(rewriter, loc, map, target);
    Value start = i32Constant(rewriter, loc, op.getStart());
    SmallVector<Value> values;
    for (auto &coord : coords)
      values.push_back(rewriter.create<LLVM::AddOp>(loc, start, coord[0]));
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()),
                                values));
    return success();
  }
};

struct SplatOpLowering : TilePattern<tile::SplatOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned n = tilegpu::getNumRegisters(op.getType());
    SmallVector<Value> values(n, adaptor.getSrc());
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(),
                                getTypeConverter()->convertType(op.getType()),
                                values));
    return success();
  }
};

struct ConstantOpLowering : TilePattern<arith::ConstantOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure(); // scalars: the upstream arith lowering
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(
          op, "only constant tensors with one value can be lowered");
    Value scalar = rewriter.create<LLVM::ConstantOp>(
        op.getLoc(), type.getElementType(), splat.getSplatValue<Attribute>());
    SmallVector<Value> values(tilegpu::getNumRegisters(type), scalar);
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(),
                                getTypeConverter()->convertType(type), values));
    return success();
  }
};

/// Result register r of a shape op reads the operand register whose
/// compile-time coordinate parts are `sourceParts(parts of r)`.
template <typename Op>
LogicalResult lowerRegisterShuffle(
    Op op, Value packedSrc, ConversionPatternRewriter &rewriter,
    const TypeConverter *converter,
    function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> sourceParts) {
  Location loc = op.getLoc();
  tilegpu::RegisterMap srcMap(op.getSrc().getType()), dstMap(op.getType());
  SmallVector<Value> src = unpack(rewriter, loc, packedSrc);
  SmallVector<Value> values;
  for (unsigned r = 0; r < dstMap.numRegisters(); ++r) {
    SmallVector<int64_t> parts;
    for (unsigned d = 0; d < dstMap.rank(); ++d)
      parts.push_back(dstMap.constPart(r, d));
    int source = srcMap.registerWithParts(sourceParts(parts));
    if (source < 0)
      return rewriter.notifyMatchFailure(op, "operand and result layouts do "
                                             "not correspond");
    values.push_back(src[source]);
  }
  rewriter.replaceOp(op, pack(rewriter, loc, converter->convertType(op.getType()),
                              values));
  return success();
}

struct BroadcastOpLowering : TilePattern<tile::BroadcastOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcShape = op.getSrc().getType().getShape();
    if (op.getSrc().getType().getEncoding() != op.getType().getEncoding())
      return rewriter.notifyMatchFailure(op, "broadcast changes the layout");
    return lowerRegisterShuffle(
        op, adaptor.getSrc(), rewriter, getTypeConverter(),
        [&](ArrayRef<int64_t> parts) {
          SmallVector<int64_t> source(parts);
          for (unsigned d = 0; d < source.size(); ++d)
            if (srcShape[d] == 1)
              source[d] = 0; // every copy along d is the one element
          return source;
        });
  }
};

struct ExpandDimsOpLowering : TilePattern<tile::ExpandDimsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    return lowerRegisterShuffle(op, adaptor.getSrc(), rewriter,
                                getTypeConverter(),
                                [&](ArrayRef<int64_t> parts) {
                                  SmallVector<int64_t> source(parts);
                                  source.erase(source.begin() + axis);
                                  return source;
                                });
  }
};

template <typename Op, typename X, typename Y, typename Z>
struct GridQueryLowering : TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case 0: v = rewriter.create<X>(op.getLoc(), i32); break;
    case 1: v = rewriter.create<Y>(op.getLoc(), i32); break;
    default: v = rewriter.create<Z>(op.getLoc(), i32); break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// Hints have done their work in the analysis; they lower to their operand.
template <typename Op> struct HintOpLowering : TilePattern<Op> {
  using TilePattern<Op>::TilePattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};
} // namespace

void tilec::lowering::populateViewOpToLLVMPatterns(
    TileTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<MakeRangeOpLowering, SplatOpLowering, ConstantOpLowering,
               BroadcastOpLowering, ExpandDimsOpLowering,
               GridQueryLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>,
               HintOpLowering<tile::AssumeMultipleOp>,
               HintOpLowering<tile::AssumeContiguousOp>>(converter, target);
}
