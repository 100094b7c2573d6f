// Reading a shared buffer into registers with NVIDIA's ldmatrix, where the
// two layouts allow it (NVIDIA/LdMatrix.cpp).
#pragma once

#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

namespace tilec::lowering {

/// The registers of layout `regs` read from the buffer of layout `shared`
/// at `base` with ldmatrix.x4 (transposed where that fits), or nullopt when
/// the layouts do not line up with the instruction (then load element
/// runs with loadFromShared).
std::optional<llvm::SmallVector<mlir::Value>>
loadWithLdMatrix(mlir::OpBuilder &b, mlir::Location loc,
                 const tilegpu::LinearLayout &regs,
                 const tilegpu::LinearLayout &shared, mlir::Value base,
                 mlir::Type element, const LoweringContext &context);

} // namespace tilec::lowering
