// Declarations of every tilec pass (generated from Passes.td).
#pragma once

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Target/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec {

#define GEN_PASS_DECL
#include "compiler/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Transforms/Passes.h.inc"

/// The GPU the module's `tilegpu.target` names; nullopt, after an error on
/// the module ("<pass> needs the module's tilegpu.target: ..."), when it has
/// none or names no target tilec knows.
std::optional<TargetInfo> getModuleTarget(mlir::ModuleOp module,
                                          llvm::StringRef pass);

} // namespace tilec
