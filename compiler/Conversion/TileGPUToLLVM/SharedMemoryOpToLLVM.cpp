// Shared-memory buffers: local_alloc becomes the address
// tilegpu-allocate-shared gave it, local_load / local_store move registers
// through the composition of the tensor's layout with the inverse of the
// buffer's (ldmatrix / stmatrix where it fits, else as wide as both allow), memdesc_index offsets into a ring, and
// tilegpu.barrier is bar.sync 0.
#include "compiler/Conversion/TileGPUToLLVM/MatrixMoves.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {
/// The registers of `packed` (a tensor of type `tensor`) written into the
/// buffer of type `buffer` at `base`.
void storeTensor(ConversionPatternRewriter &rewriter, Location loc,
                 const TypeConverter &converter, RankedTensorType tensor,
                 Value packed, tilegpu::MemDescType buffer, Value base,
                 const LoweringContext &context) {
  LinearLayout regs = tilegpu::toLinearLayout(tensor);
  LinearLayout shared = tilegpu::toLinearLayout(buffer);
  Type element = converter.convertType(tensor.getElementType());
  SmallVector<Value> values = unpack(rewriter, loc, packed);
  if (!storeWithStMatrix(rewriter, loc, regs, shared, base, element, values, context))
    storeToShared(rewriter, loc, regs, shared, base, element, values, context);
  // wgmma reads these buffers through the async proxy.
  if (isa<tilegpu::NVMMASharedEncodingAttr>(buffer.getEncoding()))
    fenceProxyAsyncShared(rewriter, loc);
}

struct LocalAllocOpLowering : ContextPattern<tilegpu::LocalAllocOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(tilegpu::kSharedOffsetAttr))
      return rewriter.notifyMatchFailure(
          op, "has no offset: run tilegpu-allocate-shared first");
    Location loc = op.getLoc();
    Value base = sharedMemoryOf(rewriter, loc, op);
    if (Value src = op.getSrc())
      storeTensor(rewriter, loc, *getTypeConverter(),
                  cast<RankedTensorType>(src.getType()), adaptor.getSrc(),
                  op.getType(), base, context);
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalLoadOpLowering : ContextPattern<tilegpu::LocalLoadOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    LinearLayout regs = tilegpu::toLinearLayout(type);
    LinearLayout shared = tilegpu::toLinearLayout(op.getSrc().getType());
    Type element = getTypeConverter()->convertType(type.getElementType());
    std::optional<SmallVector<Value>> matrices = loadWithLdMatrix(
        rewriter, loc, regs, shared, adaptor.getSrc(), element, context);
    SmallVector<Value> values =
        matrices ? std::move(*matrices)
                 : loadFromShared(rewriter, loc, regs, shared, adaptor.getSrc(),
                                  element, context);
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type),
                                values));
    return success();
  }
};

struct LocalStoreOpLowering : ContextPattern<tilegpu::LocalStoreOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    storeTensor(rewriter, op.getLoc(), *getTypeConverter(), op.getSrc().getType(),
                adaptor.getSrc(), op.getDst().getType(), adaptor.getDst(), context);
    rewriter.eraseOp(op);
    return success();
  }
};

/// One buffer of a ring: `index` buffers' bytes past the ring's start.
struct MemDescIndexOpLowering : OpConversionPattern<tilegpu::MemDescIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tilegpu::MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value offset = rewriter.create<LLVM::MulOp>(
        loc, adaptor.getIndex(),
        i32Constant(rewriter, loc, op.getType().getSizeInBytes()));
    auto sharedPtr =
        LLVM::LLVMPointerType::get(rewriter.getContext(), kSharedAddressSpace);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(op, sharedPtr, rewriter.getI8Type(),
                                             adaptor.getSrc(), ValueRange{offset});
    return success();
  }
};

/// A transposed view: the same bytes, which its layout addresses.
struct MemDescTransOpLowering : OpConversionPattern<tilegpu::MemDescTransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tilegpu::MemDescTransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// Lifetimes are the allocator's business: nothing is left to do.
struct LocalDeallocOpLowering : OpConversionPattern<tilegpu::LocalDeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tilegpu::LocalDeallocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierOpLowering : ContextPattern<tilegpu::BarrierOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A warp-specialised kernel's consumers meet on a named barrier, their
    // threads alone (the producer warp may have left; each consumer group
    // has its own).
    if (auto threads = op->getAttrOfType<IntegerAttr>(tilegpu::kBarrierThreadsAttr)) {
      namedBarrier(rewriter, op.getLoc(), context, unsigned(threads.getInt()));
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }

private:
};
} // namespace

void tilec::lowering::populateSharedMemoryOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<LocalAllocOpLowering, LocalLoadOpLowering, LocalStoreOpLowering,
               BarrierOpLowering>(converter, context);
  patterns.add<LocalDeallocOpLowering, MemDescIndexOpLowering,
               MemDescTransOpLowering>(
      converter, &converter.getContext());
}
