// Consumer groups of a warp-specialised loop (tl.range(...,
// num_consumer_groups=G), tilegpu-warp-specialize): G groups of num_warps
// consumer warps take turns at the loop's tiles, a tile ending where the
// dots' accumulators are reset. The producer is unchanged; the consumers'
// loop, once rebuilt around the rings, is divided here.
#pragma once

#include "compiler/Transforms/AsyncDots.h"

#include "llvm/ADT/SetVector.h"

namespace tilec {

/// What dividing the consumers' loop needs.
struct ConsumerGroups {
  unsigned groups;     ///< more than one
  unsigned warps;      ///< num_warps: each group's
  mlir::Value warp;    ///< the executing warp's tilegpu.warp_id (before the loop)
  mlir::Value tileEnd; ///< tilesToShare's condition
  mlir::Value full;    ///< the ring of the slots' full mbarriers
  mlir::Value empty;   ///< the ring of the slots' empty mbarriers
  mlir::Value order;   ///< one mbarrier per group, counting `warps` arrivals
};

/// The condition under which `loop`'s tiles end, the accumulators of
/// `dots` reset to zeros under it (`if last: <epilogue>; acc =
/// tl.zeros_like(acc)`), where groups can take turns at them: the loop
/// carries nothing but those accumulators and the iteration arguments
/// numbered `coordinates` (the blocks' coordinates, which every group
/// computes), and nothing after it reads the accumulators. Otherwise a
/// located error, and failure.
mlir::FailureOr<mlir::Value> tilesToShare(mlir::scf::ForOp loop,
                                          llvm::ArrayRef<tilegpu::WarpGroupDotOp> dots,
                                          llvm::ArrayRef<unsigned> coordinates, unsigned groups);

/// Divides `loop` (the consumers' loop: its last six iteration arguments
/// slot, phase, held, turn, starts and order phase, which start at 0, 0,
/// -1, 0, true and 0; `async` its dots left in flight, their epilogues
/// rewritten) between the groups: the turn passes at each tile's end,
/// where the tile's last slot is also freed as soon as its epilogue has
/// waited for the dots; everything but the slot, phase, turn, tile-end and
/// `coordinates` arithmetic runs under `turn == group` (group = warp /
/// warps), the rest of the iterations leaving the group's values as they
/// were.
///
/// The groups start their tiles in turn: a group waits on its mbarrier of
/// the order ring before its tile's first blocks, and arrives on the next
/// group's once its tile's last blocks have landed. Without that a group
/// could wait on a slot's full mbarrier for its own blocks while an
/// earlier fill of the slot, for another group's tile, has not completed,
/// and take that fill's completion (of the same parity) for its own.
///
/// After the loop a group still holding a slot waits for its dots and
/// frees it, and the code after the loop (from the rewriter's insertion
/// point) runs in group 0, after a barrier of every group's threads.
/// Fails with a located error where the kept arithmetic is not scalar.
mlir::LogicalResult shareTiles(mlir::RewriterBase &b, mlir::scf::ForOp loop,
                               llvm::ArrayRef<AsyncDot> async,
                               llvm::ArrayRef<unsigned> coordinates,
                               const ConsumerGroups &groups);

} // namespace tilec
