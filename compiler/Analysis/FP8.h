// fp8 in tile and tilegpu IR: which types are fp8, and which ops compute on
// fp8 values rather than move or convert them. tile-widen-fp8, the
// elementwise lowering and its pre-check ask the same questions here.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/IR/Operation.h"

namespace tilec {

/// f8E4M3FN or f8E5M2, or a tensor of them (the Tile dialect's, which its
/// verifiers ask too).
using tile::isFP8;

/// An arith.extf or arith.truncf with an fp8 side.
bool convertsFP8(mlir::Operation *op);

/// An arith or math op with fp8 operands or results other than a constant,
/// a select, a bitcast or a conversion: arithmetic GPUs have no fp8 form
/// of (tile-widen-fp8 rebuilds it on f32).
bool computesOnFP8(mlir::Operation *op);

} // namespace tilec
