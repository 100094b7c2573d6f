// Ops that create tensors or change their shape without touching memory:
// make_range, splat, constants, broadcast, expand_dims, trans, reshape,
// join, and the program identity and hint ops.
#include "compiler/Analysis/FP8.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
template <typename Op>
struct TilePattern : OpConversionPattern<Op> {
  TilePattern(TileTypeConverter &converter, const LoweringContext &context)
      // Above the upstream arith patterns, which do not know tensors.
      : OpConversionPattern<Op>(converter, &converter.getContext(),
                                /*benefit=*/2),
        context(context) {}
  const LoweringContext &context;
};

struct MakeRangeOpLowering : TilePattern<tile::MakeRangeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto coords = registerCoordinates(
        rewriter, loc, tilegpu::toLinearLayout(op.getType()), context);
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
    Attribute element = splat.getSplatValue<Attribute>();
    Type elementType = type.getElementType();
    if (isFP8(elementType)) { // held as its bits
      elementType = rewriter.getI8Type();
      element = fp8Bits(rewriter, cast<FloatAttr>(element));
    }
    Value scalar = rewriter.create<LLVM::ConstantOp>(op.getLoc(), elementType, element);
    SmallVector<Value> values(tilegpu::getNumRegisters(type), scalar);
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(),
                                getTypeConverter()->convertType(type), values));
    return success();
  }
};

/// A shape op that moves no data between threads: result register r is
/// operand register `sources[r]`. `project` maps the result's layout onto
/// the operand's coordinates; the match fails (before any IR is made) when
/// the two layouts would need elements to move between threads.
template <typename Op>
LogicalResult lowerRegisterPermutation(
    Op op, Value packedSrc, ConversionPatternRewriter &rewriter,
    const TypeConverter *converter,
    function_ref<tilegpu::LinearLayout(const tilegpu::LinearLayout &)> project) {
  tilegpu::LinearLayout src = tilegpu::toLinearLayout(op.getSrc().getType());
  tilegpu::LinearLayout dst = project(tilegpu::toLinearLayout(op.getType()));
  std::optional<SmallVector<unsigned>> sources =
      tilegpu::registerPermutation(src, dst);
  if (!sources)
    return rewriter.notifyMatchFailure(op, "operand and result layouts do "
                                           "not correspond");
  Location loc = op.getLoc();
  SmallVector<Value> regs = unpack(rewriter, loc, packedSrc), values;
  for (unsigned source : *sources)
    values.push_back(regs[source]);
  rewriter.replaceOp(op, pack(rewriter, loc, converter->convertType(op.getType()),
                              values));
  return success();
}

struct BroadcastOpLowering : TilePattern<tile::BroadcastOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    // Every copy along a stretched dimension is the operand's one element.
    return lowerRegisterPermutation(
        op, adaptor.getSrc(), rewriter, getTypeConverter(),
        [&](const tilegpu::LinearLayout &l) {
          tilegpu::LinearLayout projected = l;
          for (unsigned d = 0; d < srcShape.size(); ++d)
            if (srcShape[d] == 1)
              projected = projected.resizeOutDim(tilegpu::outDimName(d), 1);
          return projected;
        });
  }
};

struct ExpandDimsOpLowering : TilePattern<tile::ExpandDimsOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned axis = op.getAxis();
    unsigned rank = op.getSrc().getType().getRank();
    return lowerRegisterPermutation(
        op, adaptor.getSrc(), rewriter, getTypeConverter(),
        [&](const tilegpu::LinearLayout &l) {
          return tilegpu::renameOutDims(
              l.dropOutDim(tilegpu::outDimName(axis)), tilegpu::outDimNames(rank));
        });
  }
};

/// trans and reshape: each element is in the same register of the same
/// thread on both sides (the result's layout is the operand's rearranged,
/// which the verifier checks up to spelling). Projecting the result's
/// layout back onto the operand's coordinates finds, per register, where
/// its element is; for the inferred layouts that is the same register.
struct TransOpLowering : TilePattern<tile::TransOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Result dimension i is operand dimension order[i].
    SmallVector<std::string> names;
    for (int32_t d : op.getOrder())
      names.push_back(tilegpu::outDimName(d));
    unsigned rank = op.getOrder().size();
    return lowerRegisterPermutation(
        op, adaptor.getSrc(), rewriter, getTypeConverter(),
        [&](const tilegpu::LinearLayout &l) {
          return tilegpu::renameOutDims(l, names)
              .transposeOuts(tilegpu::outDimNames(rank));
        });
  }
};

struct ReshapeOpLowering : TilePattern<tile::ReshapeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<int64_t> srcShape = op.getSrc().getType().getShape();
    return lowerRegisterPermutation(
        op, adaptor.getSrc(), rewriter, getTypeConverter(),
        [&](const tilegpu::LinearLayout &l) { return l.reshapeOuts(srcShape); });
  }
};

/// join: each result register holds, at its coordinates without the last,
/// the element of the operand that its last coordinate names, which the
/// thread already has (the result's layout is the operands' with one more
/// register bit, which the verifier checks up to spelling).
struct JoinOpLowering : TilePattern<tile::JoinOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(tile::JoinOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    tilegpu::LinearLayout src = tilegpu::toLinearLayout(op.getLhs().getType());
    tilegpu::LinearLayout dst = tilegpu::toLinearLayout(op.getType());
    unsigned last = op.getType().getRank() - 1;
    std::optional<SmallVector<unsigned>> sources = tilegpu::registerPermutation(
        src, dst.dropOutDim(tilegpu::outDimName(last)));
    if (!sources)
      return rewriter.notifyMatchFailure(op, "operand and result layouts do "
                                             "not correspond");
    Location loc = op.getLoc();
    SmallVector<Value> operands[2] = {unpack(rewriter, loc, adaptor.getLhs()),
                                      unpack(rewriter, loc, adaptor.getRhs())};
    SmallVector<Value> values;
    for (auto [r, source] : llvm::enumerate(*sources)) {
      int32_t which = dst.applyOne(tilegpu::kRegister, int32_t(r))[last];
      values.push_back(operands[which][source]);
    }
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()), values));
    return success();
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
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<MakeRangeOpLowering, SplatOpLowering, ConstantOpLowering,
               BroadcastOpLowering, ExpandDimsOpLowering, TransOpLowering,
               ReshapeOpLowering, JoinOpLowering,
               GridQueryLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>,
               HintOpLowering<tile::AssumeMultipleOp>,
               HintOpLowering<tile::AssumeContiguousOp>>(converter, context);
}
