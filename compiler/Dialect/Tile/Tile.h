// The tile dialect: declarations generated from TileDialect.td / TileOps.td.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/Dialect/Tile/TileDialect.h.inc"

namespace tilec::tile {
/// What tile.print and tile.assert write: the program's output (the CUDA
/// runtime's printf buffer), not memory any load reads, so they do not stop
/// loads from being moved past them.
struct DebugOutput : public mlir::SideEffects::Resource::Base<DebugOutput> {
  llvm::StringRef getName() final { return "<DebugOutput>"; }
};
/// What tile.prefetch_l2 writes: the L2's contents, which no load sees (its
/// values do not change), so loads and stores move past it freely.
struct CacheHint : public mlir::SideEffects::Resource::Base<CacheHint> {
  llvm::StringRef getName() final { return "<CacheHint>"; }
};
} // namespace tilec::tile
#include "compiler/Dialect/Tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/Dialect/Tile/TileTypes.h.inc"

namespace tilec::tile {
/// Argument attribute: the argument (an integer, or a pointer's address in
/// bytes) is a multiple of this value; `:16` in a signature.
constexpr const char *kDivisibilityAttr = "tile.divisibility";
/// On an scf.for: how many stages deep to software-pipeline its loads
/// (`tl.range(..., num_stages=N)`), overriding the compilation's default.
constexpr const char *kNumStagesAttr = "tile.num_stages";
/// scf.for attribute: tl.range(..., warp_specialize=True), a producer warp
/// issuing the loop's TMA loads ahead of the warps that compute
/// (tilegpu-warp-specialize; ignored where it does not apply).
constexpr const char *kWarpSpecializeAttr = "tile.warp_specialize";
/// scf.for attribute beside tile.warp_specialize:
/// tl.range(..., num_consumer_groups=N), N > 1 groups of num_warps warps
/// that take turns at the loop's accumulations (ping-pong: one group's
/// epilogue runs while the next group multiplies).
constexpr const char *kNumConsumerGroupsAttr = "tile.num_consumer_groups";
/// tl.range(..., num_ctas=N) on a warp-specialised loop: the kernel's
/// programs are launched in clusters of N consecutive programs along axis
/// 0, which share the blocks the loop reads at the same coordinates in
/// every one of them (tilegpu-warp-specialize).
constexpr const char *kNumCtasAttr = "tile.num_ctas";
/// Argument attribute of a debug compile: the parameter's name in the
/// source, for the messages of its bounds checks.
constexpr const char *kArgNameAttr = "tile.arg_name";
/// On the module: the CUDA C++ sources (an array of strings) whose
/// `extern "C" __device__` functions tile.cuda_call ops call.
constexpr const char *kCudaSourcesAttr = "tile.cuda_sources";
/// Argument attribute: this i64 argument, added by tile-check-bounds, holds
/// the bytes that may be accessed from the pointer argument it names (its
/// index), counted from that pointer.
constexpr const char *kExtentOfAttr = "tile.extent_of";
/// Argument attribute of a `!tile.tensormap` argument (tile-lower-
/// descriptors): how the launcher encodes it, TensorMapSpec::str()'s text
/// (compiler/TensorMap.h).
constexpr const char *kTensorMapAttr = "tile.tensormap";

/// For `!tile.ptr<T>` → T; for `tensor<SHAPE x !tile.ptr<T>>` → tensor<SHAPE x T>
/// (keeping the encoding).
mlir::Type getPointeeTypeLike(mlir::Type ptrLike);
/// i1, or a tensor of i1 with the shape and encoding of `type`.
mlir::Type getI1TypeLike(mlir::Type type);
/// The element type of a tensor, or the type itself for a scalar.
mlir::Type getElementTypeOrSelf(mlir::Type type);
/// Same shape (and encoding) as `like`, with element type `element`;
/// `element` itself when `like` is a scalar.
mlir::Type getTypeLike(mlir::Type like, mlir::Type element);
/// Bytes of one element in memory (i1 is stored as a byte, pointers as 8).
unsigned getElementBytes(mlir::Type scalar);
/// f8E4M3FN or f8E5M2, or a tensor of them.
bool isFP8(mlir::Type type);

/// Whether tile.atomic_rmw of `kind` takes elements of type `element`:
/// 32- and 64-bit integers for every kind; fp16, bf16, fp32 and fp64 for
/// add, max, min and xchg.
bool atomicSupports(AtomicKind kind, mlir::Type element);
/// Whether tile.atomic_cas takes `element`: 16-, 32- and 64-bit integers
/// and floats.
bool atomicCASSupports(mlir::Type element);

/// Implemented by the dialect whose attributes are the layouts of tile
/// tensors (tilegpu): how a layout follows the ops that rearrange elements
/// without moving them (RearrangeLayoutOpInterface). The tile dialect
/// knows no layout, so it asks the encoding's dialect.
class DialectInferLayoutInterface
    : public mlir::DialectInterface::Base<DialectInferLayoutInterface> {
public:
  explicit DialectInferLayoutInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// The layout of tile.trans's result (dimension i is operand dimension
  /// order[i]) for an operand of `srcShape` laid out as `src`; null when
  /// there is none.
  virtual mlir::Attribute inferTransEncoding(mlir::Attribute src,
                                             llvm::ArrayRef<int64_t> srcShape,
                                             llvm::ArrayRef<int32_t> order) const = 0;
  /// The layout of tile.reshape's result, of `dstShape`, for an operand of
  /// `srcShape` laid out as `src`; null when there is none.
  virtual mlir::Attribute inferReshapeEncoding(mlir::Attribute src,
                                               llvm::ArrayRef<int64_t> srcShape,
                                               llvm::ArrayRef<int64_t> dstShape) const = 0;
  /// The layout of tile.join's result for operands of `srcShape` laid out
  /// as `src`; null when there is none.
  virtual mlir::Attribute inferJoinEncoding(mlir::Attribute src,
                                            llvm::ArrayRef<int64_t> srcShape) const = 0;
  /// The operands' layout of a tile.join whose result, of `resultShape`,
  /// is laid out as `result`; null when no operand layout joins to it.
  virtual mlir::Attribute
  inferJoinSourceEncoding(mlir::Attribute result,
                          llvm::ArrayRef<int64_t> resultShape) const = 0;
  /// True when `a` and `b` place every element of a tensor of `shape` in
  /// the same place (two spellings of one layout).
  virtual bool isSameLayout(mlir::Attribute a, mlir::Attribute b,
                            llvm::ArrayRef<int64_t> shape) const = 0;
};

/// The layout rules of `encoding`'s dialect; null for a null encoding or a
/// dialect without them.
const DialectInferLayoutInterface *getInferLayoutInterface(mlir::Attribute encoding);

namespace impl {
mlir::LogicalResult verifySameOperandsAndResultEncoding(mlir::Operation *op);
} // namespace impl

/// Every tensor operand and result of the op has the same encoding.
template <typename ConcreteType>
class SameOperandsAndResultEncoding
    : public mlir::OpTrait::TraitBase<ConcreteType,
                                      SameOperandsAndResultEncoding> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return impl::verifySameOperandsAndResultEncoding(op);
  }
};
} // namespace tilec::tile

#include "compiler/Dialect/Tile/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "compiler/Dialect/Tile/TileOps.h.inc"
