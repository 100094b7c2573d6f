// Kernels: func.func → llvm.func with the NVVM kernel attributes.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
struct KernelOpLowering : ContextPattern<func::FuncOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (func.getNumResults() != 0)
      return rewriter.notifyMatchFailure(func, "kernels return nothing");
    TypeConverter::SignatureConversion signature(func.getNumArguments());
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return rewriter.notifyMatchFailure(func, "argument type not lowerable");
      signature.addInputs(i, converted);
    }
    // Every block argument of the body must convert too; checked before
    // any IR is made.
    for (Block &block : func.getBody())
      for (BlockArgument arg : block.getArguments())
        if (!getTypeConverter()->convertType(arg.getType()))
          return rewriter.notifyMatchFailure(func, "block argument type not "
                                                   "lowerable");
    auto llvmType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(getContext()), signature.getConvertedTypes());
    auto kernel =
        rewriter.create<LLVM::LLVMFuncOp>(func.getLoc(), func.getName(), llvmType);
    kernel->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    // Clusters of clusterCtas programs along x (.reqnctapercluster): a
    // launch then forms them itself, and its grid must be whole clusters.
    if (context.clusterCtas > 1)
      kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                      rewriter.getDenseI32ArrayAttr({int32_t(context.clusterCtas), 1, 1}));
    kernel->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                    rewriter.getDenseI32ArrayAttr(
                        {int32_t(context.blockThreads()), 1, 1}));
    if (context.maxRegisters)
      kernel->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                      rewriter.getI32IntegerAttr(int32_t(context.maxRegisters)));
    // A TMA tensor map is passed by value (`.param .align 64 .b8 [128]`)
    // and read in place by the copies, through its generic address.
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (!isa<tile::TensorMapType>(type))
        continue;
      kernel.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            rewriter.getI8Type(), kTensorMapBytes)));
      kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        rewriter.getI64IntegerAttr(64));
      kernel.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        rewriter.getUnitAttr());
    }
    rewriter.inlineRegionBefore(func.getBody(), kernel.getBody(), kernel.end());
    [[maybe_unused]] FailureOr<Block *> converted = rewriter.convertRegionTypes(
        &kernel.getBody(), *getTypeConverter(), &signature);
    assert(succeeded(converted) && "block argument types were checked above");
    rewriter.eraseOp(func);
    return success();
  }
};

struct ReturnOpLowering : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getNumOperands() != 0)
      return rewriter.notifyMatchFailure(op, "kernels return nothing");
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};
} // namespace

void tilec::lowering::populateFuncOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<KernelOpLowering>(converter, context);
  patterns.add<ReturnOpLowering>(converter, &converter.getContext());
}
