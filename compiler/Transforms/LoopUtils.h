// Questions the loop transformations (tile-prefetch-loads,
// tilegpu-pipeline-loads) ask of an scf.for before moving loads ahead.
#pragma once

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec {

/// True when something in the loop may write memory other than the CTA's
/// shared memory (a store, an atomic, an op whose effects are unknown): a
/// load moved ahead of it could read what it has not written yet.
bool mayWriteGlobalMemory(mlir::scf::ForOp loop);

/// The stages to software-pipeline `loop` with: its `tile.num_stages`
/// attribute, else `defaultStages`.
unsigned getNumStages(mlir::scf::ForOp loop, unsigned defaultStages);

/// True when the `other` of a load is zero in every element (a zero
/// constant, or a splat of one): what cp.async fills masked elements with.
bool isZeroFill(mlir::Value other);

} // namespace tilec
