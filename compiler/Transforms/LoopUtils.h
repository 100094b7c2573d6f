// Questions the loop transformations (tile-prefetch-loads,
// tilegpu-pipeline-loads) ask of an scf.for before moving loads ahead.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace tilec {

/// True when something in the loop may write memory other than the CTA's
/// shared memory (a store, an atomic, an op whose effects are unknown): a
/// load moved ahead of it could read what it has not written yet.
bool mayWriteGlobalMemory(mlir::scf::ForOp loop);

/// True when moving `loads` (tile.loads) ahead in `loop` could change what
/// they read: a global write may touch it, or an acquiring atomic or a
/// volatile load may order it. False only when no volatile load is in the
/// loop and every global write is a tile.store, or an atomic that does not
/// acquire, whose pointer derives from one kernel argument (a TMA store: its
/// map's base)
/// (PointerOriginAnalysis) from which no load's pointer derives: a write
/// through one argument is taken not to overlap what the loads read
/// through another, the promise a loop makes when it asks for its own
/// stages (docs/language.md, tl.range).
bool mayWriteWhatLoadsRead(mlir::scf::ForOp loop, llvm::ArrayRef<mlir::Operation *> loads);

/// The stages to software-pipeline `loop` with: its `tile.num_stages`
/// attribute, else `defaultStages`.
unsigned getNumStages(mlir::scf::ForOp loop, unsigned defaultStages);

/// Side-effect-free scalar arithmetic without regions: what a
/// warp-specialised kernel's producer warpgroup (and each consumer group)
/// can repeat, and what may move ahead of the warps' split. (A tensor op's
/// lowering may need the consumers' own barriers.)
bool isScalarArithmetic(mlir::Operation *op);

/// True when the `other` of a load is zero in every element (a zero
/// constant, or a splat of one): what cp.async fills masked elements with.
bool isZeroFill(mlir::Value other);

/// The value `v` is a layout conversion of, through any chain of
/// tilegpu.convert_layout: the same tile, in the layout it was produced in.
mlir::Value throughConversions(mlir::Value v);

/// True when what `load` reads could be moved by cp.async, as far as the
/// load alone tells: a tensor load, not volatile, with a zero (or no)
/// `other`, of integers or floats other than i1. (Vector widths and the
/// tile's uses are the caller's to check.)
bool isAsyncCopyable(tile::LoadOp load);

/// True when a loop that gives its own stages (tl.range(num_stages=...))
/// may pipeline `load` though no dot reads it: isAsyncCopyable, and no
/// cache or eviction hint (cp.async would drop it, and a load given one
/// was tuned as it is). Vector widths are the caller's to check.
bool isPlainPipelineCandidate(tile::LoadOp load);


/// The values a pipelined load's address is computed from: a tile.load's
/// pointers and mask, a tile.tensormap_load's offsets.
llvm::SmallVector<mlir::Value> addressOperands(mlir::Operation *load);
/// The first stage of a software-pipelined loop: the ops that compute the
/// given loads' addresses (addressOperands), and the iteration arguments they read
/// (with the ops that compute their next values). Both pipelines run it
/// ahead of the rest of the body; tile-prefetch-loads asks it which loads
/// tilegpu-pipeline-loads will take.
struct LoadAddressStage {
  llvm::SetVector<mlir::Operation *> ops;
  llvm::SmallSetVector<unsigned, 4> carried; ///< iteration-argument numbers

  /// Collects the stage from the loads' operands; false when some value
  /// cannot be computed ahead (an op with effects or regions, a value from
  /// a nested block).
  bool collect(mlir::scf::ForOp loop, llvm::ArrayRef<mlir::Operation *> loads);

  /// True when the values that will run ahead (the carried arguments and
  /// what the stage computes from them) are used by nothing but the stage,
  /// the loads and their own yields, and no carried result is used after
  /// the loop.
  bool isSelfContained(mlir::scf::ForOp loop,
                       llvm::ArrayRef<mlir::Operation *> loads) const;

  /// Erases the stage's ops in `body` that nothing reads any more (once
  /// their clones computing ahead have taken over), last first.
  void eraseUnused(mlir::Block *body) const;

  /// Clones the stage at the builder, with `mapping` giving the induction
  /// variable and iteration arguments of the iteration it computes.
  void clone(mlir::OpBuilder &b, mlir::scf::ForOp loop,
             mlir::IRMapping &mapping) const;
};

/// The loads a software pipeline of `loop` takes, and (in `stage`) their
/// address stage: `required` (a dot's operands) all together or none of
/// them, then each of `optional` (plain loads, in order) that still lets
/// the stage run ahead on its own. Both pipelines ask this, so that
/// tile-prefetch-loads leaves to tilegpu-pipeline-loads what it will take.
llvm::SmallVector<mlir::Operation *>
selectPipelinedLoads(mlir::scf::ForOp loop, llvm::ArrayRef<mlir::Operation *> required,
                     llvm::ArrayRef<mlir::Operation *> optional, LoadAddressStage &stage);


} // namespace tilec
