// convert_layout through shared memory: each thread writes the elements it
// holds at their row-major index, a barrier, each thread reads the elements
// the new layout gives it, and a barrier before the buffer is reused.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                  ArrayRef<int64_t> shape) {
  Value index = i32Constant(b, loc, 0);
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    Value term = b.create<LLVM::MulOp>(loc, coord[d], i32Constant(b, loc, stride));
    index = b.create<LLVM::AddOp>(loc, index, term);
    stride *= shape[d];
  }
  return index;
}

struct ConvertLayoutOpLowering : OpConversionPattern<tilegpu::ConvertLayoutOp> {
  ConvertLayoutOpLowering(TileTypeConverter &converter, const TargetInfo &target)
      : OpConversionPattern(converter, &converter.getContext()), target(target) {}

  LogicalResult
  matchAndRewrite(tilegpu::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType srcType = op.getSrc().getType(), dstType = op.getType();
    // Registers hold the converted element type (pointers are !llvm.ptr).
    Type element = getTypeConverter()->convertType(srcType.getElementType());
    Type memoryElement = element.isInteger(1) ? rewriter.getI8Type() : element;
    auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);
    Value base = sharedMemoryBase(rewriter, loc, op);
    requireSharedBytes(op, srcType.getNumElements() *
                               tile::getElementBytes(srcType.getElementType()));

    tilegpu::RegisterMap srcMap(srcType), dstMap(dstType);
    auto srcCoords = registerCoordinates(rewriter, loc, srcMap, target);
    SmallVector<Value> srcValues = unpack(rewriter, loc, adaptor.getSrc());
    auto address = [&](ArrayRef<Value> coord) -> Value {
      Value index = linearIndex(rewriter, loc, coord, srcType.getShape());
      return rewriter.create<LLVM::GEPOp>(loc, sharedPtr, memoryElement, base,
                                          ValueRange{index});
    };
    for (unsigned r = 0; r < srcMap.numRegisters(); ++r) {
      if (isRepeatedRegister(srcMap, r))
        continue;
      Value v = srcValues[r];
      if (memoryElement != element)
        v = rewriter.create<LLVM::ZExtOp>(loc, memoryElement, v);
      rewriter.create<LLVM::StoreOp>(loc, v, address(srcCoords[r]));
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    auto dstCoords = registerCoordinates(rewriter, loc, dstMap, target);
    SmallVector<Value> dstValues;
    for (unsigned r = 0; r < dstMap.numRegisters(); ++r) {
      Value v = rewriter.create<LLVM::LoadOp>(loc, memoryElement,
                                              address(dstCoords[r]));
      if (memoryElement != element)
        v = rewriter.create<LLVM::TruncOp>(loc, element, v);
      dstValues.push_back(v);
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(dstType),
                                dstValues));
    return success();
  }

  const TargetInfo &target;
};
} // namespace

void tilec::lowering::populateConvertLayoutOpToLLVMPatterns(
    TileTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpLowering>(converter, target);
}
