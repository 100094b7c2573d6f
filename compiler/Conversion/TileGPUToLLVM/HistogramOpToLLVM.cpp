// tile.histogram: the bins live in the op's shared-memory scratch, i32
// each. The threads zero them (thread t the bins t, t + threads, ...), a
// barrier, each element's owner adds 1 to its bin with a shared-memory
// atomic (an element outside the bins, or masked off, adds 0 to bin 0), a
// barrier, and every register of the result reads its bin.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct HistogramOpLowering : ContextPattern<tile::HistogramOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::HistogramOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = sharedMemoryOf(rewriter, loc, op);
    if (!base)
      return rewriter.notifyMatchFailure(op, "no scratch (reported before the conversion)");
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t bins = resultType.getDimSize(0);
    Type i32 = rewriter.getI32Type();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    auto binAddress = [&](Value bin) {
      return rewriter.create<LLVM::GEPOp>(loc, ptrType, i32, base, ValueRange{bin});
    };

    // Zero the bins: thread t takes t, t + threads, ...
    ThreadIndex thread = threadIndex(rewriter, loc, context);
    int64_t threads = context.numThreads();
    Value tid = rewriter.create<LLVM::AddOp>(
        loc, rewriter.create<LLVM::MulOp>(loc, thread.warp, i32Constant(rewriter, loc, 32)),
        thread.lane);
    Value zero = i32Constant(rewriter, loc, 0);
    for (int64_t first = 0; first < bins; first += threads) {
      Value bin = rewriter.create<LLVM::AddOp>(loc, tid, i32Constant(rewriter, loc, first));
      if (first + threads <= bins) {
        rewriter.create<LLVM::StoreOp>(loc, zero, binAddress(bin));
        continue;
      }
      // The last round: only threads with a bin left store.
      Value inside = rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, bin,
                                                   i32Constant(rewriter, loc, bins));
      Value clamped = rewriter.create<LLVM::SelectOp>(loc, inside, bin, zero);
      emitPredicatedStore(rewriter, loc, AccessShape(i32, 1), binAddress(clamped), inside,
                          {zero}, "st.shared");
    }
    ctaBarrier(rewriter, loc, context);

    // Count: each element once, by its owner.
    tilegpu::LinearLayout layout = tilegpu::toLinearLayout(inputType);
    Value owner = ownsElements(rewriter, loc, layout, thread);
    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getInput());
    SmallVector<Value> masks;
    if (op.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    Value one = i32Constant(rewriter, loc, 1);
    for (auto [r, value] : llvm::enumerate(values)) {
      if (isRepeatedRegister(layout, unsigned(r)))
        continue;
      auto [v, inside] = indexWithin(rewriter, loc, value, bins);
      if (!masks.empty())
        inside = rewriter.create<LLVM::AndOp>(loc, inside, masks[r]);
      if (owner)
        inside = rewriter.create<LLVM::AndOp>(loc, inside, owner);
      Value bin = rewriter.create<LLVM::SelectOp>(loc, inside, v, zero);
      Value count = rewriter.create<LLVM::SelectOp>(loc, inside, one, zero);
      rewriter.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add, binAddress(bin), count,
                                         LLVM::AtomicOrdering::monotonic);
    }
    ctaBarrier(rewriter, loc, context);

    // Each register of the result: its bin.
    SmallVector<Value> results;
    for (auto &coord : registerCoordinates(rewriter, loc, tilegpu::toLinearLayout(resultType),
                                           context))
      results.push_back(rewriter.create<LLVM::LoadOp>(loc, i32, binAddress(coord[0])));
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(resultType),
                                results));
    return success();
  }
};

} // namespace

void tilec::lowering::populateHistogramOpToLLVMPatterns(TileTypeConverter &converter,
                                                        const LoweringContext &context,
                                                        RewritePatternSet &patterns) {
  patterns.add<HistogramOpLowering>(converter, context);
}
