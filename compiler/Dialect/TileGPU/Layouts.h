// Choosing distributed layouts, and reading any tilegpu encoding as its
// linear layout (LinearLayout.h): which registers a thread holds and which
// element each one is.
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

/// The blocked layout whose linear layout is `layout` (for the shape of
/// its outputs), when there is one.
std::optional<BlockedEncodingAttr>
getBlockedLayoutFor(mlir::MLIRContext *ctx, const LinearLayout &layout);

/// The encoding of a distributed linear layout (inputs register, lane,
/// warp): a #tilegpu.blocked when one describes it, for readability,
/// else a #tilegpu.linear.
mlir::Attribute getDistributedEncoding(mlir::MLIRContext *ctx,
                                       const LinearLayout &layout);

/// The layout of tile.trans's result (result dimension i is operand
/// dimension order[i]) when its operand, of `srcShape`, has layout `src`:
/// every element stays in its register, at permuted coordinates. Null
/// when `src` is not a distributed encoding of that rank.
mlir::Attribute inferTransEncoding(mlir::Attribute src,
                                   llvm::ArrayRef<int64_t> srcShape,
                                   llvm::ArrayRef<int32_t> order);

/// The layout of tile.reshape's result, of `dstShape`, when its operand,
/// of `srcShape`, has layout `src`: every element stays in its register,
/// at its row-major coordinates in the new shape. Null when `src` is not a
/// distributed encoding of that rank.
mlir::Attribute inferReshapeEncoding(mlir::Attribute src,
                                     llvm::ArrayRef<int64_t> srcShape,
                                     llvm::ArrayRef<int64_t> dstShape);

/// The layout of tile.join's result (the operands' shape with a last
/// dimension of 2) when both operands, of `srcShape`, have layout `src`:
/// each thread keeps its registers, and next to each one the other
/// operand's element at the same coordinates (the new dimension is the
/// lowest register bit). Null when `src` is not a distributed encoding of
/// that rank.
mlir::Attribute inferJoinEncoding(mlir::Attribute src,
                                  llvm::ArrayRef<int64_t> srcShape);

/// The inverse: the operands' layout when tile.join's result, of
/// `resultShape`, has layout `result`. Null unless the result holds its
/// last dimension in one register bit of every thread (as a joined layout
/// does), so that dropping that bit leaves each operand's elements where
/// they were.
mlir::Attribute inferJoinSourceEncoding(mlir::Attribute result,
                                        llvm::ArrayRef<int64_t> resultShape);

/// True when `a` and `b` put every element of a tensor of `shape` in the
/// same register of the same thread (their linear layouts are equal), so
/// that a value of one is a value of the other: #slice and #blocked, or
/// #blocked and #linear, can describe one layout.
bool isSameLayout(mlir::Attribute a, mlir::Attribute b,
                  llvm::ArrayRef<int64_t> shape);

/// The linear layout of a tensor with a distributed encoding: inputs
/// register, lane, warp; outputs dim0, dim1, ... of the tensor's shape.
LinearLayout toLinearLayout(mlir::RankedTensorType type);
/// The linear layout of a shared buffer: input offset (in elements).
LinearLayout toLinearLayout(MemDescType type);

/// `layout` with its output dimensions renamed, in order.
LinearLayout renameOutDims(const LinearLayout &layout,
                           llvm::ArrayRef<std::string> names);

/// For each register of `dst`, the register of `src` that holds the same
/// element in the same thread; nullopt unless the lanes and warps of the
/// two layouts hold the same elements (same outputs, same lane and warp
/// images), so that only registers move.
std::optional<llvm::SmallVector<unsigned>>
registerPermutation(const LinearLayout &src, const LinearLayout &dst);

/// For a conversion whose elements move between lanes of one warp only:
/// per register of `dst`, the register of `src` that every lane sends
/// (it may not depend on the lane), and the map (register, lane) -> the
/// source lane. nullopt when warps exchange elements, or a lane would need
/// a register that depends on the lane.
struct WarpShuffle {
  llvm::SmallVector<unsigned> sourceRegister;
  LinearLayout sourceLane; ///< inputs register, lane; output lane
};
std::optional<WarpShuffle> warpShuffle(const LinearLayout &src,
                                       const LinearLayout &dst);

/// How `tilegpu.convert_layout` from `src` to `dst` moves elements.
enum class ConversionKind { Registers, WarpShuffle, SharedMemory };
ConversionKind classifyConversion(mlir::RankedTensorType src,
                                  mlir::RankedTensorType dst);

/// Gives tensor value `v` the encoding `layout` (same shape and element
/// type); the dense value of a defining arith.constant follows, since a
/// constant carries its type in its value too.
void setEncoding(mlir::Value v, mlir::Attribute layout);

/// Number of registers a thread holds for `type` (1 for a scalar).
unsigned getNumRegisters(mlir::Type type);

} // namespace tilec::tilegpu
