// When each shared-memory buffer and scratch is alive: the allocator
// (tilegpu-allocate-shared) places buffers by these lifetimes, and the
// pipeliner and the warp specialiser size their rings by the peak they
// leave. The peak is what the allocator needs at least: placing the
// largest first at the lowest free offset can leave gaps, and then the
// allocator still reports a kernel too big, as it would without this.
//
// Lifetimes are intervals of a pre-order numbering of the ops under a root
// op: a buffer lives from its local_alloc to the end of the last op, in
// the alloc's block, that uses it (an op with regions uses it until its
// last nested op, so a buffer read inside a loop lives through the whole
// loop); a scratch (SharedScratch.h) lives during its op; uses of a view
// of a buffer (memdesc_index, memdesc_trans) are its uses.
#pragma once

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace tilec {

/// Buffers start at multiples of 16 bytes, the swizzled layouts of TMA
/// and wgmma (#tilegpu.nvmma_shared) at multiples of 1024, whose swizzle
/// the hardware computes from address bits.
constexpr int64_t kSharedAlignment = 16;
constexpr int64_t kSwizzledSharedAlignment = 1024;

struct SharedLifetime {
  mlir::Operation *owner; ///< the local_alloc, or the op using scratch
  int64_t bytes;
  int64_t start, end; ///< inclusive, in op numbers
  int64_t alignment = kSharedAlignment;
};

/// The lifetimes of the buffers (local_alloc) and scratches under `root`.
/// A buffer used by anything but the ops the allocator models (local_load,
/// local_store, local_dealloc, the views, async copies, warp_group_dot,
/// the TMA and mbarrier ops) has no lifetime this models: a yield, a
/// loop's iteration argument. Then this fails and `unmodelledUse`, when
/// given, is set to that use.
mlir::LogicalResult collectSharedLifetimes(mlir::Operation *root,
                                           llvm::SmallVectorImpl<SharedLifetime> &lifetimes,
                                           mlir::Operation **unmodelledUse = nullptr);

/// The most bytes alive at once, each buffer with the most padding its
/// alignment can leave before it.
int64_t peakSharedBytes(llvm::ArrayRef<SharedLifetime> lifetimes);

/// peakSharedBytes of the buffers and scratches under `root` that
/// `counted` (given the local_alloc or the op with scratch) accepts; where
/// a buffer has a use the lifetimes do not model, the sum of every counted
/// buffer and the largest scratch instead, which bounds any placement.
int64_t sharedBytesAtOnce(mlir::Operation *root,
                          llvm::function_ref<bool(mlir::Operation *owner)> counted);

} // namespace tilec
