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

struct GatherOpLowering : OpConversionPattern<tile::GatherOp> {
  GatherOpLowering(TileTypeConverter &converter, const LoweringContext &context)
      : OpConversionPattern(converter, &converter.getContext()), context(context) {}

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
    rewriter.create<NVVM::Barrier0Op>(loc);

    // Each register of the result: its coordinates, the axis's replaced.
    unsigned axis = op.getAxis();
    int64_t extent = srcType.getDimSize(axis);
    SmallVector<Value> indices = unpack(rewriter, loc, adaptor.getIndices());
    auto coords = registerCoordinates(rewriter, loc, tilegpu::toLinearLayout(resultType),
                                      context);
    Type i32 = rewriter.getI32Type();
    AccessShape shape(element, 1);
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    Value zero = rewriter.create<LLVM::ZeroOp>(loc, element);
    Value limit = i32Constant(rewriter, loc, extent);
    Value lowest = i32Constant(rewriter, loc, 0);
    SmallVector<Value> results;
    for (auto [r, coord] : llvm::enumerate(coords)) {
      Value index = indices[r];
      unsigned bits = index.getType().getIntOrFloatBitWidth();
      // Compared in the index's own width, so that a 64-bit index past
      // 2^31 is not taken for a small one.
      Value inside;
      if (bits > 32) {
        Value wideLimit = rewriter.create<LLVM::ConstantOp>(
            loc, index.getType(), rewriter.getIntegerAttr(index.getType(), extent));
        inside = rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, index,
                                               wideLimit);
        index = rewriter.create<LLVM::TruncOp>(loc, i32, index);
      } else {
        if (bits < 32)
          index = rewriter.create<LLVM::SExtOp>(loc, i32, index);
        inside = rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, index, limit);
      }
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

  const LoweringContext &context;
};

} // namespace

void tilec::lowering::populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                                     const LoweringContext &context,
                                                     RewritePatternSet &patterns) {
  patterns.add<GatherOpLowering>(converter, context);
}
