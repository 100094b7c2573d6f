#include "compiler/Target/PTXEmitter.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace tilec {

std::string defaultLibdevicePath() {
  if (const char *env = std::getenv("TILEC_LIBDEVICE"))
    return env;
#ifdef TILEC_DEFAULT_LIBDEVICE
  return TILEC_DEFAULT_LIBDEVICE;
#else
  return "";
#endif
}

namespace {
const char *kTriple = "nvptx64-nvidia-cuda";

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<TargetMachine> createTargetMachine(const PTXOptions &options,
                                                   std::string &error) {
  initializeNVPTX();
  Triple triple(kTriple);
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  TargetOptions targetOptions;
  std::string features = "+ptx" + std::to_string(options.target.ptxVersion);
  auto level = options.optLevel >= 3   ? CodeGenOptLevel::Aggressive
               : options.optLevel == 0 ? CodeGenOptLevel::None
                                       : CodeGenOptLevel::Default;
  std::unique_ptr<TargetMachine> machine(target->createTargetMachine(
      triple, options.target.chip, features, targetOptions, std::nullopt,
      std::nullopt, level));
  if (!machine)
    error = "cannot create the NVPTX target machine for " + options.target.chip;
  return machine;
}

bool callsLibdevice(const Module &module) {
  for (const Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      return true;
  return false;
}

bool linkLibdevice(Module &module, const PTXOptions &options,
                   std::string &error) {
  std::string path = options.libdevicePath.empty() ? defaultLibdevicePath()
                                                   : options.libdevicePath;
  if (path.empty()) {
    error = "the kernel calls libdevice math functions but no libdevice is "
            "known (set TILEC_LIBDEVICE)";
    return false;
  }
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read libdevice at '" + path + "': " +
            buffer.getError().message();
    return false;
  }
  auto libdevice = parseBitcodeFile(**buffer, module.getContext());
  if (!libdevice) {
    error = "cannot parse libdevice at '" + path + "': " +
            toString(libdevice.takeError());
    return false;
  }
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*libdevice),
                          Linker::Flags::LinkOnlyNeeded)) {
    error = "linking libdevice failed";
    return false;
  }
  // libdevice asks __nvvm_reflect whether to flush denormals: no.
  module.addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return true;
}
} // namespace

bool optimizeForGPU(Module &module, const PTXOptions &options,
                    std::string &error) {
  auto machine = createTargetMachine(options, error);
  if (!machine)
    return false;
  module.setTargetTriple(Triple(kTriple));
  module.setDataLayout(machine->createDataLayout());
  if (callsLibdevice(module) && !linkLibdevice(module, options, error))
    return false;

  // Only the kernels are entry points: everything else (libdevice) may be
  // inlined and dropped.
  for (Function &f : module)
    if (!f.isDeclaration() && f.getCallingConv() != CallingConv::PTX_Kernel)
      f.setLinkage(GlobalValue::InternalLinkage);

  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = options.optLevel >= 3   ? OptimizationLevel::O3
                            : options.optLevel == 2 ? OptimizationLevel::O2
                            : options.optLevel == 1 ? OptimizationLevel::O1
                                                    : OptimizationLevel::O0;
  ModulePassManager passes = level == OptimizationLevel::O0
                                 ? builder.buildO0DefaultPipeline(level)
                                 : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);

  std::string message;
  raw_string_ostream os(message);
  if (verifyModule(module, &os)) {
    error = "LLVM IR verification failed: " + message;
    return false;
  }
  return true;
}

bool emitPTX(Module &module, const PTXOptions &options, std::string &ptx,
             std::string &error) {
  auto machine = createTargetMachine(options, error);
  if (!machine)
    return false;
  SmallString<0> text;
  raw_svector_ostream os(text);
  legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, os, nullptr,
                                   CodeGenFileType::AssemblyFile)) {
    error = "the NVPTX back end cannot emit assembly";
    return false;
  }
  passes.run(module);
  ptx = std::string(text.str());
  return true;
}

} // namespace tilec
