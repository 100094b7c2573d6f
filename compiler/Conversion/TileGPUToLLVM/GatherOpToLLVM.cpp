// tile.gather: the source is written, row-major, into the op's shared
// scratch (each element once, by its owner), a barrier publishes it, and
// every register of the result reads the element its index names: its own
// coordinates with the index in place of the axis's. An index outside the
// axis reads nothing and gives 0.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct GatherOpLowering : ContextPattern<tile::GatherOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = sharedMemoryOf(rewriter, loc, op);
    if (!base)
      return rewriter.notifyMatchFailure(op, "no scratch (reported before the conversion)");
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = getTypeConverter()->convertType(srcType.getElementType());

    // The source, row-major.
    SmallVector<unsigned> order;
    for (int64_t d = srcType.getRank() - 1; d >= 0; --d)
      order.push_back(unsigned(d));
    auto rowMajor =
        tilegpu::SwizzledSharedEncodingAttr::get(rewriter.getContext(), 1, 1, 1, order);
    auto buffer = tilegpu::MemDescType::get(rewriter.getContext(), srcType.getShape(),
                                            srcType.getElementType(), rowMajor,
                                            /*mutableMemory=*/true);
    storeToShared(rewriter, loc, tilegpu::toLinearLayout(srcType),
                  tilegpu::toLinearLayout(buffer), base, element,
                  unpack(rewriter, loc, adaptor.getSrc()), context);
    ctaBarrier(rewriter, loc, context);

    // Each register of the result: its coordinates, the axis's replaced.
    unsigned axis = op.getAxis();
    int64_t extent = srcType.getDimSize(axis);
    SmallVector<Value> indices = unpack(rewriter, loc, adaptor.getIndices());
    auto coords = registerCoordinates(rewriter, loc, tilegpu::toLinearLayout(resultType),
                                      context);
    AccessShape shape(element, 1);
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value zero = rewriter.create<LLVM::ZeroOp>(loc, element);
    Value lowest = i32Constant(rewriter, loc, 0);
    SmallVector<Value> results;
    for (auto [r, coord] : llvm::enumerate(coords)) {
      auto [index, inside] = indexWithin(rewriter, loc, indices[r], extent);
      SmallVector<Value> at(coord.begin(), coord.end());
      at[axis] = rewriter.create<LLVM::SelectOp>(loc, inside, index, lowest);
      Value offset = linearIndex(rewriter, loc, at, srcType.getShape());
      Value address = rewriter.create<LLVM::GEPOp>(loc, ptrType, shape.memoryElement,
                                                   base, ValueRange{offset});
      Value value = emitPlainLoad(rewriter, loc, shape, address).front();
      results.push_back(rewriter.create<LLVM::SelectOp>(loc, inside, value, zero));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(resultType),
                                results));
    return success();
  }
};

} // namespace

void tilec::lowering::populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                                     const LoweringContext &context,
                                                     RewritePatternSet &patterns) {
  patterns.add<GatherOpLowering>(converter, context);
}
