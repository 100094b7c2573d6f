// The ops that let a kernel overlap the one before it on the stream, on
// sm_90+:
// - tile.grid_dependency_wait and tile.launch_dependents: griddepcontrol,
//   the device side of programmatic dependent launch. Inline PTX with a
//   memory clobber, not NVVM's intrinsics: those are marked as touching no
//   memory, and the loads of the earlier kernel's results must stay after
//   the wait.
// - tile.prefetch_l2: one cp.async.bulk.prefetch.L2 by the elected thread
//   (thread 0).
// Before sm_90 no launch can overlap the one before it, so there is
// nothing to wait for and nothing to release, and the bulk prefetch does
// not exist: the ops go away.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <type_traits>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
template <typename Op>
struct GridDependencyLowering : ContextPattern<Op> {
  using ContextPattern<Op>::ContextPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (this->context.target.computeCapability >= 90)
      orderedAsm(rewriter, op.getLoc(), LLVM::LLVMVoidType::get(op.getContext()), ValueRange(),
                 ptx, "~{memory}");
    rewriter.eraseOp(op);
    return success();
  }
  static constexpr const char *ptx = std::is_same_v<Op, tile::GridDependencyWaitOp>
                                         ? "griddepcontrol.wait;"
                                         : "griddepcontrol.launch_dependents;";
};

/// The bulk prefetch takes a 16-byte-aligned address and a size in bytes,
/// a multiple of 16 that fits 32 bits. The range asked for is cut to the
/// aligned bytes inside it, so that nothing outside it is touched, and to
/// under 4 GiB.
struct PrefetchL2Lowering : ContextPattern<tile::PrefetchL2Op> {
  using ContextPattern::ContextPattern;
  LogicalResult matchAndRewrite(tile::PrefetchL2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (context.target.computeCapability < 90) {
      rewriter.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    auto &b = rewriter;
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) {
      return b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(v)).getResult();
    };
    // (One op per statement: the order of a call's arguments is the
    // compiler's, and the IR's order must not depend on it.)
    unsigned elementBytes =
        tile::getElementBytes(cast<tile::PointerType>(op.getPtr().getType()).getPointeeType());
    Value first = b.create<LLVM::PtrToIntOp>(loc, i64, adaptor.getPtr());
    Value width = constant(elementBytes);
    Value bytes = b.create<LLVM::MulOp>(loc, adaptor.getCount(), width);
    Value alignment = constant(15), aligned = constant(~int64_t(15));
    Value up = b.create<LLVM::AddOp>(loc, first, alignment);
    Value start = b.create<LLVM::AndOp>(loc, up, aligned);
    Value last = b.create<LLVM::AddOp>(loc, first, bytes);
    Value end = b.create<LLVM::AndOp>(loc, last, aligned);
    Value size = b.create<LLVM::SubOp>(loc, end, start);
    // (A count <= 0 gives end <= start; so does a range inside 16 bytes.)
    Value zero = constant(0);
    Value some = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::sgt, size, zero);
    Value cap = constant(0xFFFFFFF0);
    Value capped = b.create<LLVM::UMinOp>(loc, size, cap);
    Value size32 = b.create<LLVM::TruncOp>(loc, b.getI32Type(), capped);
    Value issue = electedThread(op, b, loc, context, some);
    orderedAsm(b, loc, LLVM::LLVMVoidType::get(op.getContext()), {issue, start, size32},
               "@$0 cp.async.bulk.prefetch.L2.global [$1], $2;", "b,l,r");
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tilec::lowering::populateOverlapOpToLLVMPatterns(TileTypeConverter &converter,
                                                      const LoweringContext &context,
                                                      RewritePatternSet &patterns) {
  patterns.add<GridDependencyLowering<tile::GridDependencyWaitOp>,
               GridDependencyLowering<tile::LaunchDependentsOp>, PrefetchL2Lowering>(converter,
                                                                                     context);
}
