// LLVM IR → PTX through LLVM's NVPTX back end, with libdevice linked in
// when the kernel calls its math functions.
#pragma once

#include "compiler/Target/TargetInfo.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace tilec {

struct PTXOptions {
  /// The chip and the PTX ISA version (TargetInfo::ptxVersion) to emit.
  TargetInfo target;
  /// libdevice bitcode; empty to use the build's default.
  std::string libdevicePath;
  unsigned optLevel = 3;
};

/// Set the NVPTX triple and data layout, link libdevice if needed, and run
/// the optimisation pipeline. Returns false with `error` set on failure.
bool optimizeForGPU(llvm::Module &module, const PTXOptions &options,
                    std::string &error);

/// Emit PTX text for an optimised module.
bool emitPTX(llvm::Module &module, const PTXOptions &options, std::string &ptx,
             std::string &error);

/// The libdevice path used when PTXOptions::libdevicePath is empty:
/// $TILEC_LIBDEVICE, else the CUDA toolkit's found at build time.
std::string defaultLibdevicePath();

} // namespace tilec
