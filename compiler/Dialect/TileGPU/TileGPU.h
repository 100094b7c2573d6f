// The tilegpu dialect: layout attributes and the ops that need them.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/Dialect/TileGPU/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUAttrs.h.inc"

#define GET_OP_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUOps.h.inc"

namespace tilec::tilegpu {
/// Name of the module attribute holding the number of warps per CTA.
constexpr const char *kNumWarpsAttr = "tilegpu.num_warps";
/// Threads in a warp on every NVIDIA GPU tilec targets.
constexpr unsigned kThreadsPerWarp = 32;

/// The module's num_warps; 0 when the module has not been through
/// tile-to-tilegpu.
unsigned getNumWarps(mlir::ModuleOp module);
} // namespace tilec::tilegpu
