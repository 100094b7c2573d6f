// tilegpu-to-llvm: the pass. It only assembles the conversion; each op
// family's lowering lives in its own *OpToLLVM.cpp.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "tilegpu-to-llvm"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUTOLLVM
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {
struct TileGPUToLLVMPass : tilec::impl::TileGPUToLLVMBase<TileGPUToLLVMPass> {
  using TileGPUToLLVMBase::TileGPUToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    LoweringContext context;
    context.numWarps = tilegpu::getNumWarps(module);
    context.maxRegisters = maxRegisters;
    context.consumerGroups = tilegpu::getConsumerGroups(module);
    if (auto ctas = module->getAttrOfType<IntegerAttr>(tilegpu::kClusterCtasAttr))
      context.clusterCtas = unsigned(ctas.getInt());
    if (auto producers = module->getAttrOfType<IntegerAttr>(tilegpu::kProducerWarpsAttr)) {
      context.producerWarps = unsigned(producers.getInt());
      // Launched with the whole register file, which setmaxnreg splits
      // between the producer and the consumers (a maxnreg of the
      // launch would not leave the consumers theirs).
      context.maxRegisters = tilegpu::warpSpecializedRegisters(context.blockThreads());
    }
    if (context.numWarps == 0) {
      module.emitError("tilegpu-to-llvm needs a module that went through "
                       "tile-to-tilegpu (no tilegpu.num_warps attribute)");
      return signalPassFailure();
    }
    std::optional<TargetInfo> target = getModuleTarget(module, "tilegpu-to-llvm");
    if (!target)
      return signalPassFailure();
    context.target = *target;
    context.asyncProxyReadsShared =
        module.walk([](tilegpu::WarpGroupDotOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    // Shared memory must have been planned: say what is missing at the op,
    // rather than leaving it unlowered.
    WalkResult planned = module.walk([&](Operation *op) -> WalkResult {
      if (auto convert = dyn_cast<tilegpu::ConvertLayoutOp>(op))
        if (tilegpu::classifyConversion(convert.getSrc().getType(),
                                        convert.getType()) ==
            tilegpu::ConversionKind::SharedMemory) {
          op->emitError("moves elements between warps: run "
                        "tilegpu-decompose-conversions first");
          return WalkResult::interrupt();
        }
      bool needsOffset =
          isa<tilegpu::LocalAllocOp>(op) || getScratchBytes(op) > 0;
      if (needsOffset && !op->hasAttr(tilegpu::kSharedOffsetAttr)) {
        op->emitError("needs shared memory: run tilegpu-allocate-shared first");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (planned.wasInterrupted() || failed(checkFP8Lowerable(module, *target)))
      return signalPassFailure();
    // The analysis reads the tilegpu IR, so it runs before anything moves.
    AxisInfoAnalysis axisInfo(module);

    // Structured control flow first becomes blocks and branches, whose
    // block arguments the main conversion then retypes.
    {
      RewritePatternSet patterns(ctx);
      populateSCFToControlFlowConversionPatterns(patterns);
      ConversionTarget scfTarget(*ctx);
      scfTarget.addIllegalDialect<scf::SCFDialect>();
      scfTarget.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, scfTarget, std::move(patterns))))
        return signalPassFailure();
    }

    TileTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    populateFuncOpToLLVMPatterns(converter, context, patterns);
    populateElementwiseOpToLLVMPatterns(converter, context, patterns);
    populateViewOpToLLVMPatterns(converter, context, patterns);
    populateLoadStoreOpToLLVMPatterns(converter, context, axisInfo, patterns);
    populateAtomicOpToLLVMPatterns(converter, context, axisInfo, patterns);
    populateReduceOpToLLVMPatterns(converter, context, patterns);
    populateScanOpToLLVMPatterns(converter, context, patterns);
    populateGatherOpToLLVMPatterns(converter, context, patterns);
    populateHistogramOpToLLVMPatterns(converter, context, patterns);
    populateConvertLayoutOpToLLVMPatterns(converter, context, patterns);
    populateSharedMemoryOpToLLVMPatterns(converter, context, patterns);
    populateAsyncCopyOpToLLVMPatterns(converter, context, axisInfo, patterns);
    populateTMAToLLVMPatterns(converter, context, patterns);
    populateClusterToLLVMPatterns(converter, context, patterns);
    populateDotOpToLLVMPatterns(converter, context, patterns);
    populateWarpGroupDotOpToLLVMPatterns(converter, context, patterns);
    populateDebugOpToLLVMPatterns(converter, context, patterns);
    populateOverlapOpToLLVMPatterns(converter, context, patterns);
    populateFP8ToLLVMPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    // Math functions are libdevice calls (linked when the PTX is made);
    // they win over the LLVM intrinsics NVPTX cannot select.
    populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    ConversionTarget llvmTarget(*ctx);
    llvmTarget.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    llvmTarget.addLegalOp<ModuleOp>();
    llvmTarget.addIllegalDialect<tile::TileDialect, tilegpu::TileGPUDialect,
                                 arith::ArithDialect, math::MathDialect,
                                 cf::ControlFlowDialect, func::FuncDialect>();
    if (failed(applyPartialConversion(module, llvmTarget, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
