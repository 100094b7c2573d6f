// The shared memory an op needs only while it runs (its scratch): the
// partials a reduction or scan exchanges between warps. The allocator
// reserves it and the lowering uses it, both through these functions, so
// the two always agree on its size and arrangement.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/LinearLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec {

/// Which input bits of a distributed layout reach one tensor dimension.
/// Only exists when every image that touches the dimension touches nothing
/// else (true of blocked and slice layouts and of mma accumulators).
struct AxisBits {
  int32_t registers = 0, lanes = 0, warps = 0;
  static std::optional<AxisBits> of(const tilegpu::LinearLayout &layout,
                                    unsigned axis);
};

/// How a scan's operand layout runs along its axis, lowest coordinate bits
/// first: `lowRegisterBits` register bits (a thread's own run), then
/// `laneBits` consecutive lane bits from lane bit `firstLaneBit`, then
/// `warpBits` consecutive warp bits from `firstWarpBit`, then the
/// remaining register bits (repetitions).
struct ScanAxis {
  unsigned lowRegisterBits = 0;
  unsigned firstLaneBit = 0, laneBits = 0;
  unsigned firstWarpBit = 0, warpBits = 0;
  unsigned repetitionBits = 0;
  static std::optional<ScanAxis> of(const tilegpu::LinearLayout &layout,
                                    unsigned axis);
};

/// Partials exchanged between warps: `slots` values per operand, operand k
/// at byte `operandOffsets[k]` of the scratch.
struct CrossWarpScratch {
  int64_t slots = 0;
  llvm::SmallVector<int64_t> operandOffsets;
  int64_t bytes = 0;
};

/// A reduction's scratch: one slot per (warp along the axis, result
/// element); empty when one warp holds the whole axis.
CrossWarpScratch getReduceScratch(tile::ReduceOp op);
/// A scan's scratch: one slot per (repetition, warp along the axis, line).
CrossWarpScratch getScanScratch(tile::ScanOp op);

/// An atomic's scratch (tile.atomic_rmw, tile.atomic_cas): when its result
/// is used and threads hold copies of its elements, the one thread that
/// performs each element's atomic publishes the old value there for the
/// others, one slot per element in row-major order; else empty.
int64_t getAtomicScratchBytes(mlir::Operation *atomic);

/// A gather's scratch (tile.gather): its whole source, row-major.
int64_t getGatherScratchBytes(tile::GatherOp op);

/// A histogram's scratch (tile.histogram): its bins, as i32.
int64_t getHistogramScratchBytes(tile::HistogramOp op);

/// Bytes of scratch `op` needs while it runs; 0 for ops that need none.
int64_t getScratchBytes(mlir::Operation *op);

} // namespace tilec
