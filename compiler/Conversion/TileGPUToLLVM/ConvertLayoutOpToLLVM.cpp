// tilegpu.convert_layout inside a warp: a register permutation when the
// lanes and warps of the two layouts hold the same elements, shfl.sync.idx
// when elements move between lanes of one warp (classifyConversion in
// Layouts.h decides). Conversions that move elements between warps go
// through shared memory: tilegpu-decompose-conversions turns them into
// local_alloc + local_load before this lowering.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {
struct ConvertLayoutOpLowering : ContextPattern<tilegpu::ConvertLayoutOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LinearLayout src = tilegpu::toLinearLayout(op.getSrc().getType());
    LinearLayout dst = tilegpu::toLinearLayout(op.getType());
    Type packedType = getTypeConverter()->convertType(op.getType());

    if (std::optional<SmallVector<unsigned>> sources =
            tilegpu::registerPermutation(src, dst)) {
      SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc()), values;
      for (unsigned source : *sources)
        values.push_back(regs[source]);
      rewriter.replaceOp(op, pack(rewriter, loc, packedType, values));
      return success();
    }

    std::optional<tilegpu::WarpShuffle> shuffles = tilegpu::warpShuffle(src, dst);
    if (!shuffles)
      return rewriter.notifyMatchFailure(
          op, "moves elements between warps: run tilegpu-decompose-conversions "
              "first");
    // Register r of every lane comes from register sourceRegister[r] of
    // lane sourceLane(r, lane); all lanes send the same register, so one
    // shfl.sync.idx per destination register does it.
    SmallVector<Value> regs = unpack(rewriter, loc, adaptor.getSrc()), values;
    ThreadIndex thread = threadIndex(rewriter, loc, context);
    SmallVector<Value> laneOffset = threadOffsets(
        rewriter, loc, shuffles->sourceLane, {{{tilegpu::kLane, thread.lane}}});
    for (int32_t r = 0; r < dst.getInDimSize(tilegpu::kRegister); ++r) {
      Value lane =
          registerCoordinate(rewriter, loc, shuffles->sourceLane, r, laneOffset)[0];
      values.push_back(shuffle(rewriter, loc, regs[shuffles->sourceRegister[r]],
                               NVVM::ShflKind::idx, lane));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, values));
    return success();
  }
};
} // namespace

void tilec::lowering::populateConvertLayoutOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpLowering>(converter, context);
}
