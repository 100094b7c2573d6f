// Compile-time arithmetic of distributed layouts: which registers a thread
// holds for a tensor type, and which element each register is.
//
// A register's coordinate along tensor dimension d is
//     (constPart(r, d) + threadOffset(d)) mod shape[d]
// where constPart is known at compile time and threadOffset depends only on
// the thread's lane and warp (see BlockedEncodingAttr's description). Slice
// layouts are described through their root blocked layout.
#pragma once

#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "llvm/ADT/SmallVector.h"

namespace tilec::tilegpu {

/// A blocked layout for `shape` with `numWarps` warps: `sizePerThread`
/// elements per thread along each dimension (clamped to the shape), lanes
/// and then warps spread along `order` (fastest first) until the shape is
/// covered; what is left over goes to the slowest dimension.
BlockedEncodingAttr getBlockedLayout(mlir::MLIRContext *ctx,
                                     llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<unsigned> sizePerThread,
                                     llvm::ArrayRef<unsigned> order,
                                     unsigned numWarps);

/// Row-major blocked layout with one element per thread.
BlockedEncodingAttr getDefaultBlockedLayout(mlir::MLIRContext *ctx,
                                            llvm::ArrayRef<int64_t> shape,
                                            unsigned numWarps);

/// The registers of one thread for a tensor type with a tilegpu encoding.
class RegisterMap {
public:
  explicit RegisterMap(mlir::RankedTensorType type);

  unsigned numRegisters() const { return numRegs_; }
  unsigned rank() const { return shape_.size(); }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  BlockedEncodingAttr root() const { return root_; }
  /// The root blocked dimension that tensor dimension `d` is.
  unsigned rootDim(unsigned d) const { return rootDimOf_[d]; }

  /// Compile-time part of register r's coordinate along tensor dim d.
  int64_t constPart(unsigned r, unsigned d) const {
    return constParts_[r * rank() + d];
  }
  /// True when constPart + threadOffset can reach past shape[d], so the
  /// coordinate needs the `mod shape[d]` (threads wrap and hold copies).
  bool wraps(unsigned d) const { return wraps_[d]; }

  /// The tensor dimensions in the order registers run through them,
  /// fastest first.
  llvm::ArrayRef<unsigned> order() const { return order_; }
  /// How many consecutive registers hold consecutive elements along
  /// order()[0]: the widest vector a thread can load or store.
  unsigned contiguousRegisters() const { return contiguous_; }

  /// Register holding the element whose per-dimension compile-time parts are
  /// `parts` (one per tensor dimension); -1 when no register does.
  int registerWithParts(llvm::ArrayRef<int64_t> parts) const;

  /// Total elements of the tensor each CTA-wide copy covers: copies exist
  /// when the CTA tile is larger than the tensor.
  int64_t numElements() const;

private:
  llvm::SmallVector<int64_t> shape_;
  BlockedEncodingAttr root_;
  llvm::SmallVector<unsigned> rootDimOf_;
  llvm::SmallVector<unsigned> order_;
  llvm::SmallVector<int64_t> constParts_;
  llvm::SmallVector<bool> wraps_;
  unsigned numRegs_ = 0;
  unsigned contiguous_ = 1;
};

/// Number of registers a thread holds for `type` (1 for a scalar).
unsigned getNumRegisters(mlir::Type type);

} // namespace tilec::tilegpu
