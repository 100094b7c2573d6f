// Moving a tile between registers and a shared buffer in 8x8 matrices of
// 16-bit elements with NVIDIA's ldmatrix and stmatrix, where the two
// layouts allow it (NVIDIA/MatrixMoves.cpp).
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

/// Writes `values` (the registers of layout `regs`) into the buffer of
/// layout `shared` at `base` with stmatrix.x4 (sm_90+, transposed where
/// that fits) and returns true, or returns false having emitted nothing
/// when the layouts do not line up with the instruction or some element
/// is held by more than one thread (then storeToShared writes them).
bool storeWithStMatrix(mlir::OpBuilder &b, mlir::Location loc,
                       const tilegpu::LinearLayout &regs,
                       const tilegpu::LinearLayout &shared, mlir::Value base,
                       mlir::Type element, llvm::ArrayRef<mlir::Value> values,
                       const LoweringContext &context);

} // namespace tilec::lowering
