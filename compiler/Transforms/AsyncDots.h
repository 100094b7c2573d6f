// warp_group_dots left in flight across the iterations of a loop
// (pending = 1): a dot waits for the previous iteration's instructions,
// not its own, so the tensor cores multiply while the warps issue the
// next iteration. Both schedules that feed wgmma from rings of buffers
// use it: tilegpu-pipeline-loads (the CTA's own copies) and
// tilegpu-warp-specialize (a producer warpgroup's).
#pragma once

#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tilec {

/// A warp_group_dot left in flight across iterations, and the epilogue
/// that reads its result in some iterations (a persistent matmul's tile
/// store): an scf.if after it, and the select that resets the
/// accumulator when that if runs.
struct AsyncDot {
  tilegpu::WarpGroupDotOp dot;
  mlir::scf::IfOp epilogue;    ///< null: only the next iteration reads the result
  mlir::arith::SelectOp reset; ///< null: the epilogue leaves the accumulator as it is
};

/// Which of `dots` (the warp_group_dots of `loop` reading its rings) may
/// leave their instructions in flight across iterations: each reads only
/// buffers `isRingBuffer` accepts (a ring slot, refilled only once the
/// dot's instructions are known done) or buffers written before the loop
/// (a buffer written in the body would be overwritten while the tensor
/// cores still read it), accumulates into an iteration argument used by
/// nothing else, and yields its result back to that argument, used by
/// nothing else but an epilogue (an scf.if after it, without results or
/// else, the accumulator reset under its condition or not). Empty unless
/// every one of `dots` qualifies: a ring some reader still needs at the
/// end of its iteration keeps the synchronous schedule.
llvm::SmallVector<AsyncDot>
asynchronousDots(mlir::scf::ForOp loop, llvm::ArrayRef<tilegpu::WarpGroupDotOp> dots,
                 llvm::function_ref<bool(mlir::Value)> isRingBuffer);

/// Gives each of `async` (from asynchronousDots; `loop` may have been
/// rebuilt around the same body since) pending = 1, rewrites its epilogue
/// to wait for it inside (only the iterations that run the epilogue wait;
/// the others leave it in flight into the next iteration's dot), and ends
/// the last one's instructions with a warp_group_dot_wait {pending = 0}
/// after the loop, before anything reads the accumulator. The waits go at
/// the rewriter's insertion point, or right after `loop` where an epilogue
/// was rewritten; the insertion point is left after the last wait. Without
/// `waitAfter` the caller ends the last instructions itself.
void leaveDotsInFlight(mlir::RewriterBase &rewriter, mlir::scf::ForOp loop,
                       llvm::ArrayRef<AsyncDot> async, bool waitAfter = true);

} // namespace tilec
