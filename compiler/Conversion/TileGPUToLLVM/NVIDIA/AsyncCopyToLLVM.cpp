// Asynchronous copies from global to shared memory on sm_80+ (cp.async):
// tilegpu.async_copy_global_to_local becomes one `cp.async` per vector of a
// thread's elements, async_commit_group `cp.async.commit_group` and
// async_wait `cp.async.wait_group N`.
//
// A masked-off vector is still issued, with a source size of 0: cp.async
// then reads nothing and fills the destination with zeros, so the buffer
// holds exactly what a load with `other = 0` would have given. Vectors of
// 16 bytes bypass L1 (`.cg`, the only size it allows); narrower ones go
// through it (`.ca`).
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {

/// `@pred cp.async.{ca,cg}.shared.global [dst], [src], bytes, srcBytes;`
void emitAsyncCopy(OpBuilder &b, Location loc, Value pred, Value dst, Value src,
                   unsigned bytes, Value srcBytes) {
  std::string ptx = llvm::formatv(
      "@$0 cp.async.{0}.shared.global [ $1 + 0 ], [ $2 + 0 ], {1}, $3;",
      bytes == 16 ? "cg" : "ca", bytes);
  Value dst32 = b.create<LLVM::PtrToIntOp>(loc, b.getI32Type(), dst);
  b.create<LLVM::InlineAsmOp>(loc, TypeRange(), ValueRange{pred, dst32, src, srcBytes},
                              ptx, "b,r,l,r", /*has_side_effects=*/true,
                              /*is_align_stack=*/false,
                              LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
}

struct AsyncCopyOpLowering
    : OpConversionPattern<tilegpu::AsyncCopyGlobalToLocalOp> {
  AsyncCopyOpLowering(TileTypeConverter &converter, const LoweringContext &context,
                      const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, &converter.getContext()), context(context),
        axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(tilegpu::AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!context.target.hasAsyncCopy())
      return op.emitOpError() << "needs cp.async, which " << context.target.chip
                              << " does not have (sm_80+)";
    tilegpu::MemDescType buffer = op.getDst().getType();
    unsigned vector = asyncCopyWidth(op.getPtr(), op.getMask(), buffer, axisInfo);
    if (!vector)
      return op.emitOpError("copies vectors under the 4 bytes cp.async needs");
    Location loc = op.getLoc();
    LinearLayout regs = tilegpu::toLinearLayout(op.getPtr().getType());
    std::optional<LinearLayout> toOffset =
        tilegpu::toLinearLayout(buffer).invertAndCompose(regs);
    assert(toOffset && "a shared layout covers its buffer");
    Type element = buffer.getElementType();
    unsigned bytes = vector * tile::getElementBytes(element);

    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks;
    if (op.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    ThreadIndex thread = threadIndex(rewriter, loc, context);
    SmallVector<Value> offsets =
        threadOffsets(rewriter, loc, *toOffset, HardwareIndex::ofThread(thread));
    // Threads holding copies of the same elements would copy them again.
    Value owner = ownsElements(rewriter, loc, regs, thread);
    Value always = rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI1Type(),
                                                     rewriter.getBoolAttr(true));
    Value full = i32Constant(rewriter, loc, bytes);
    Value none = i32Constant(rewriter, loc, 0);
    Type memoryElement = getTypeConverter()->convertType(element);
    for (unsigned r = 0; r < ptrs.size(); r += vector) {
      if (isRepeatedRegister(regs, r))
        continue;
      Value dst = sharedAddress(rewriter, loc, *toOffset, r, offsets,
                                adaptor.getDst(), memoryElement);
      Value srcBytes = masks.empty()
                           ? full
                           : rewriter.create<LLVM::SelectOp>(loc, masks[r], full, none)
                                 .getResult();
      emitAsyncCopy(rewriter, loc, owner ? owner : always, dst, ptrs[r], bytes,
                    srcBytes);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const LoweringContext &context;
  const AxisInfoAnalysis &axisInfo;
};

struct AsyncCommitGroupOpLowering
    : OpConversionPattern<tilegpu::AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tilegpu::AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitOpLowering : ContextPattern<tilegpu::AsyncWaitOp> {
  using ContextPattern::ContextPattern;
  LogicalResult
  matchAndRewrite(tilegpu::AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.create<NVVM::CpAsyncWaitGroupOp>(loc, op.getPending());
    // What landed may be read by wgmma, through the async proxy.
    if (context.asyncProxyReadsShared)
      fenceProxyAsyncShared(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tilec::lowering::populateAsyncCopyOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    const AxisInfoAnalysis &axisInfo, RewritePatternSet &patterns) {
  patterns.add<AsyncCopyOpLowering>(converter, context, axisInfo);
  patterns.add<AsyncWaitOpLowering>(converter, context);
  patterns.add<AsyncCommitGroupOpLowering>(converter, &converter.getContext());
}
