#include "compiler/Pipeline.h"

#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/RenderLocation.h"
#include "compiler/Target/NVRTC.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tilec {

void registerTilecDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, tilegpu::TileGPUDialect, func::FuncDialect,
                  arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                  cf::ControlFlowDialect, LLVM::LLVMDialect, NVVM::NVVMDialect>();
  func::registerInlinerExtension(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void buildTileOptimizationPipeline(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(createTileInline());
  pm.addPass(createTileWidenFP8());
  TileLowerDescriptorsOptions descriptors;
  // (TMA pays where its copies land in the buffers wgmma reads.)
  descriptors.tensorMaps = options.tensorMaps && !options.debug &&
                           options.ptx.target.hasWgmma();
  descriptors.numWarps = options.numWarps;
  pm.addPass(createTileLowerDescriptors(descriptors));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After inlining (helpers' loops are checked in their callers) and
  // folding (a bound computed from constants is a constant).
  if (options.deterministic)
    pm.addPass(createTileCheckDeterministic());
}

void buildTileGPUPipeline(OpPassManager &pm, const PipelineOptions &options) {
  TileToTileGPUOptions layout;
  layout.numWarps = options.numWarps;
  layout.target = options.ptx.target.chip;
  TilePrefetchLoadsOptions prefetch;
  prefetch.numStages = options.numStages;
  prefetch.asyncCopy = options.ptx.target.hasAsyncCopy();
  if (options.debug)
    pm.addPass(createTileCheckBounds());
  pm.addPass(createTilePrefetchLoads(prefetch));
  pm.addPass(createTileToTileGPU(layout));
  pm.addPass(createTileGPUCoalesce());
  pm.addPass(createTileGPUAccelerateMatmul());
  pm.addPass(createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTileGPUDecomposeConversions());
  pm.addPass(createTileGPULowerTensorMapStores());
  TileGPUWarpSpecializeOptions specialize;
  specialize.numStages = options.numStages;
  pm.addPass(createTileGPUWarpSpecialize(specialize));
  TileGPUPipelineLoadsOptions pipeline;
  pipeline.numStages = options.numStages;
  pm.addPass(createTileGPUPipelineLoads(pipeline));
  pm.addPass(createTileGPULowerTensorMapLoads());
  pm.addPass(createTileGPUStrengthReduceDivisions());
  pm.addPass(createTileGPUAllocateShared());
  pm.addPass(createTileGPUInsertBarriers());
}

void buildLLVMDialectPipeline(OpPassManager &pm, const PipelineOptions &options) {
  TileGPUToLLVMOptions lowering;
  lowering.maxRegisters = options.maxRegisters;
  pm.addPass(createTileGPUToLLVM(lowering));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.lineInfo)
    pm.addPass(createTilecAttachLineInfo());
}

namespace {
struct PipelineCLOptions : PassPipelineOptions<PipelineCLOptions> {
  Option<unsigned> numWarps{*this, "num-warps", llvm::cl::init(4)};
  Option<unsigned> numStages{*this, "num-stages", llvm::cl::init(3)};
  Option<unsigned> maxRegisters{*this, "max-registers", llvm::cl::init(0)};
  Option<std::string> target{*this, "target", llvm::cl::init("sm_90a")};
  Option<bool> debug{*this, "debug", llvm::cl::init(false)};
  Option<bool> deterministic{*this, "deterministic", llvm::cl::init(false)};
  Option<bool> lineInfo{*this, "line-info", llvm::cl::init(true)};
  /// Options for the pipeline; an unknown target is reported by the passes.
  PipelineOptions get() const {
    PipelineOptions o;
    o.numWarps = numWarps;
    o.numStages = numStages;
    o.maxRegisters = maxRegisters;
    o.debug = debug;
    o.deterministic = deterministic;
    o.lineInfo = lineInfo;
    std::string error;
    if (std::optional<TargetInfo> known = TargetInfo::parse(target, error))
      o.ptx.target = *known;
    else
      o.ptx.target.chip = target;
    return o;
  }
};
} // namespace

void registerTilecPassesAndPipelines() {
  registerTilecPasses();
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-optimize-tile",
      "inline, canonicalize and CSE tile IR (and check it with deterministic=true)",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildTileOptimizationPipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-to-tilegpu", "assign layouts and simplify",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildTileGPUPipeline(pm, o.get());
      });
  PassPipelineRegistration<PipelineCLOptions>(
      "tilec-to-llvm", "the whole pipeline from tile IR to the LLVM dialect",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        buildTileOptimizationPipeline(pm, o.get());
        buildTileGPUPipeline(pm, o.get());
        buildLLVMDialectPipeline(pm, o.get());
      });
}

namespace {
std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false);
  op->print(os, flags);
  return text;
}

/// Compiles the CUDA sources of the module's tile.cuda_call ops with NVRTC
/// into `functions` and checks every call against the function it names
/// (compiler/Target/NVRTC.h says what is checked); each problem is an
/// error at its call. `callees` gets the names called, `at` the first
/// call's location (for errors found after the calls are lowered).
bool compileCudaCalls(ModuleOp module, const TargetInfo &target,
                      std::vector<std::string> &callees, std::string &functions,
                      std::optional<Location> &at) {
  SmallVector<tile::CudaCallOp> ops;
  module.walk([&](tile::CudaCallOp call) {
    ops.push_back(call);
    std::string name = call.getCallee().str();
    if (llvm::find(callees, name) == callees.end())
      callees.push_back(name);
  });
  if (ops.empty())
    return true;
  at = ops.front().getLoc();
  // A value as both compilers pass it: 16-bit floats as 2 bytes, narrower
  // integers promoted to 4.
  auto valueOf = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    CudaValue v;
    if (isa<Float16Type>(element))
      v.kind = CudaValue::Kind::Half;
    else if (isa<BFloat16Type>(element))
      v.kind = CudaValue::Kind::BFloat16;
    else if (isa<IntegerType>(element))
      v.kind = CudaValue::Kind::Integer;
    v.bytes = isa<Float16Type, BFloat16Type>(element)
                  ? 2
                  : std::max(4u, element.getIntOrFloatBitWidth() / 8);
    llvm::raw_string_ostream(v.name) << "'" << element << "'"; // as diagnostics quote types
    return v;
  };
  std::vector<CudaCall> calls;
  for (tile::CudaCallOp op : ops) {
    CudaCall call;
    call.callee = op.getCallee().str();
    for (Value arg : op.getArgs())
      call.args.push_back(valueOf(arg.getType()));
    call.result = valueOf(op.getType());
    calls.push_back(std::move(call));
  }
  std::vector<std::string> sources;
  for (Attribute source : module->getAttrOfType<ArrayAttr>(tile::kCudaSourcesAttr))
    sources.push_back(cast<StringAttr>(source).str());
  std::vector<CudaCallProblem> problems;
  std::string error;
  if (!tilec::compileCudaCalls(sources, calls, target, functions, problems, error)) {
    ops.front().emitError(error);
    return false;
  }
  for (const CudaCallProblem &problem : problems)
    ops[problem.call].emitError(problem.message);
  return problems.empty();
}

/// The specs of the kernel's tensor-map arguments (tile-lower-descriptors
/// appended them, after every other argument), in order, for the launcher.
/// A map whose reads the simplifications removed is dropped: the launcher
/// would encode, and could refuse, what nothing reads.
bool collectTensorMaps(ModuleOp module, std::vector<TensorMapSpec> &maps) {
  for (auto kernel : module.getOps<func::FuncOp>()) {
    if (kernel.isPrivate())
      continue;
    llvm::BitVector unused(kernel.getNumArguments());
    for (BlockArgument arg : kernel.getArguments())
      if (isa<tile::TensorMapType>(arg.getType()) && arg.use_empty())
        unused.set(arg.getArgNumber());
    (void)kernel.eraseArguments(unused);
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
      if (!isa<tile::TensorMapType>(kernel.getArgument(i).getType()))
        continue;
      auto text = kernel.getArgAttrOfType<StringAttr>(i, tile::kTensorMapAttr);
      TensorMapSpec spec;
      if (!text || !TensorMapSpec::parse(text.str(), spec)) {
        kernel.emitError("tensor-map argument ") << i << " has no valid '"
                                                 << tile::kTensorMapAttr << "' attribute";
        return false;
      }
      maps.push_back(spec);
    }
  }
  return true;
}

} // namespace

bool compileToPTX(ModuleOp module, const PipelineOptions &options,
                  CompiledStages &stages, std::vector<std::string> &errors) {
  MLIRContext *ctx = module.getContext();
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    errors.push_back(renderLocation(diag.getLocation()) +
                     ": error: " + diag.str());
    return success();
  });
  auto run = [&](auto build) {
    PassManager pm(ctx);
    build(pm);
    return succeeded(pm.run(module));
  };
  if (!run([&](PassManager &pm) { buildTileOptimizationPipeline(pm, options); }))
    return false;
  stages.tile = print(module);
  if (!collectTensorMaps(module, stages.tensorMaps))
    return false;
  if (!run([&](PassManager &pm) { buildTileGPUPipeline(pm, options); })) {
    // tilegpu-allocate-shared leaves a refused kernel's need on the module.
    auto shared = module->getAttrOfType<IntegerAttr>(tilegpu::kSharedBytesAttr);
    if (shared && shared.getInt() > options.ptx.target.maxSharedBytesPerBlock) {
      stages.sharedBytes = unsigned(shared.getInt());
      stages.sharedBytesExceeded = true;
    }
    return false;
  }
  stages.tilegpu = print(module);
  // (A warp-specialised kernel launches its producer warp beside them,
  // and each of its consumer groups is num_warps warps.)
  stages.numWarps = options.numWarps * tilegpu::getConsumerGroups(module);
  if (auto producers = module->getAttrOfType<IntegerAttr>(tilegpu::kProducerWarpsAttr))
    stages.numWarps += unsigned(producers.getInt());
  if (auto ctas = module->getAttrOfType<IntegerAttr>(tilegpu::kClusterCtasAttr))
    stages.clusterCtas = unsigned(ctas.getInt());
  std::vector<std::string> cudaCallees;
  std::string cudaFunctions;
  std::optional<Location> firstCudaCall;
  if (!compileCudaCalls(module, options.ptx.target, cudaCallees, cudaFunctions, firstCudaCall))
    return false;
  if (!run([&](PassManager &pm) { buildLLVMDialectPipeline(pm, options); }))
    return false;
  if (auto shared = module->getAttrOfType<IntegerAttr>(tilegpu::kSharedBytesAttr))
    stages.sharedBytes = shared.getInt();

  llvm::LLVMContext llvmContext;
  auto llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    if (errors.empty())
      errors.push_back("error: translation to LLVM IR failed");
    return false;
  }
  std::string error;
  if (!optimizeForGPU(*llvmModule, options.ptx, error)) {
    errors.push_back("error: " + error);
    return false;
  }
  llvm::raw_string_ostream os(stages.llir);
  llvmModule->print(os, nullptr);
  if (!emitPTX(*llvmModule, options.ptx, stages.ptx, error)) {
    errors.push_back("error: " + error);
    return false;
  }
  if (!cudaCallees.empty()) {
    // A function of the CUDA sources that the kernel also defines (one the
    // kernel does not call, say): ptxas would refuse the two definitions.
    std::vector<std::string> clashes = resolveClashingSymbols(stages.ptx, cudaFunctions);
    if (!clashes.empty()) {
      errors.push_back(renderLocation(*firstCudaCall) + ": error: the CUDA sources define '" +
                       clashes.front() +
                       "', a name the kernel's PTX defines too; rename the CUDA function");
      return false;
    }
    mergeDeviceFunctions(stages.ptx, cudaFunctions, cudaCallees);
  }
  return true;
}

} // namespace tilec
