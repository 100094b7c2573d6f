// LLVM IR → PTX through LLVM's NVPTX back end, with libdevice linked in
// when the kernel calls its math functions.
#pragma once

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace tilec {

/// A GPU target tilec can compile for.
struct GPUTarget {
  std::string chip;              ///< "sm_90a"
  unsigned computeCapability;    ///< 90
  /// Parse "sm_80", "sm_86", "sm_89", "sm_90" or "sm_90a"; false (and
  /// `error` set) for anything else.
  static bool parse(const std::string &name, GPUTarget &target,
                    std::string &error);
};

struct PTXOptions {
  GPUTarget target{"sm_90a", 90};
  /// PTX ISA version, as LLVM's feature: 86 → "+ptx86" (CUDA 12.6). Every
  /// instruction tilec emits exists in 8.6, and CUDA 13's ptxas takes it.
  unsigned ptxVersion = 86;
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
