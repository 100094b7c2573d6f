// Clusters on sm_90, as inline PTX:
//
//   tile.cluster_id         %clusterid.x (before sm_90: the program id)
//   tile.cluster_cta_rank   %cluster_ctarank (before sm_90: 0)
//   tile.cluster_size       %cluster_nctarank (before sm_90: 1)
//   cluster_barrier         every thread: barrier.cluster.arrive.release,
//                           then barrier.cluster.wait.acquire
//
// A kernel without .reqnctapercluster runs in clusters of one CTA, where
// these read what the program id alone says. (The multicast copies and
// the cluster arrivals are the TMA lowering's: TMAToLLVM.cpp.)
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

Value tilec::lowering::clusterCtaRank(OpBuilder &b, Location loc) {
  return inlineAsm(b, loc, b.getI32Type(), {}, "mov.u32 $0, %cluster_ctarank;", "=r");
}

namespace {

/// A cluster special register, or what it reads in a cluster of one CTA
/// before sm_90 (where the registers do not exist).
template <typename Op>
struct ClusterQueryLowering : ContextPattern<Op> {
  using ContextPattern<Op>::ContextPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    bool hopper = this->context.target.computeCapability >= 90;
    Value v;
    if (isa<tile::ClusterIdOp>(op.getOperation()))
      v = hopper ? inlineAsm(rewriter, loc, i32, {}, "mov.u32 $0, %clusterid.x;", "=r")
                 : rewriter.create<NVVM::BlockIdXOp>(loc, i32).getResult();
    else if (isa<tile::ClusterCtaRankOp>(op.getOperation()))
      v = hopper ? clusterCtaRank(rewriter, loc) : i32Constant(rewriter, loc, 0);
    else
      v = hopper ? inlineAsm(rewriter, loc, i32, {}, "mov.u32 $0, %cluster_nctarank;", "=r")
                 : i32Constant(rewriter, loc, 1);
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct ClusterBarrierLowering : ContextPattern<tilegpu::ClusterBarrierOp> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tilegpu::ClusterBarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (context.target.computeCapability < 90)
      return op.emitOpError() << "needs sm_90 or newer (clusters), not " << context.target.chip;
    orderedAsm(rewriter, op.getLoc(), LLVM::LLVMVoidType::get(rewriter.getContext()), {},
               "barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;",
               "");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilec::lowering::populateClusterToLLVMPatterns(TileTypeConverter &converter,
                                                    const LoweringContext &context,
                                                    RewritePatternSet &patterns) {
  patterns.add<ClusterQueryLowering<tile::ClusterIdOp>,
               ClusterQueryLowering<tile::ClusterCtaRankOp>,
               ClusterQueryLowering<tile::ClusterSizeOp>, ClusterBarrierLowering>(converter,
                                                                                   context);
}
