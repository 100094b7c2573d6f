// The tilegpu dialect: layout attributes, shared-memory buffers and the ops
// that need them.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/LinearLayout.h"
#include "compiler/TensorMap.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/Dialect/TileGPU/TileGPUDialect.h.inc"
#include "compiler/Dialect/TileGPU/TileGPUInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUTypes.h.inc"

namespace tilec::tilegpu {
/// The CTA's shared memory, as a resource of memory effects.
struct SharedMemory : public mlir::SideEffects::Resource::Base<SharedMemory> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace tilec::tilegpu

#define GET_OP_CLASSES
#include "compiler/Dialect/TileGPU/TileGPUOps.h.inc"

namespace tilec::tilegpu {
/// Module attribute: warps per CTA.
constexpr const char *kNumWarpsAttr = "tilegpu.num_warps";
/// Module attribute: the GPU target ("sm_90a"), see TargetInfo.
constexpr const char *kTargetAttr = "tilegpu.target";
/// Module attribute: bytes of shared memory the kernel needs (set by
/// tilegpu-allocate-shared, also when the need exceeds the target's limit
/// and the pass fails).
constexpr const char *kSharedBytesAttr = "tilegpu.shared_bytes";
/// Module attribute: warps a warp-specialised kernel launches beside its
/// num_warps (tilegpu-warp-specialize's producer warpgroup); the block is
/// num_warps + producer_warps warps. Absent: none.
constexpr const char *kProducerWarpsAttr = "tilegpu.producer_warps";
/// Module attribute: groups of num_warps consumer warps in a
/// warp-specialised kernel (tl.range(..., num_consumer_groups=N)), which
/// take turns at the loop's tiles; the block is N * num_warps +
/// producer_warps warps, and each group's layouts, barriers and shared
/// buffers are its own (its threads count from 0). Absent: one.
constexpr const char *kConsumerGroupsAttr = "tilegpu.consumer_groups";
/// Module attribute (tilegpu-warp-specialize, tl.range(..., num_ctas=N)):
/// the kernel is launched in clusters of N programs along axis 0
/// (.reqnctapercluster). Absent: one.
constexpr const char *kClusterCtasAttr = "tilegpu.num_ctas";
/// async_tma_copy_global_to_local attribute (with tilegpu.num_ctas = N):
/// every CTA of the cluster copies the same block, so each issues its
/// share of the block's columns (column j from CTA j mod N), multicast to
/// all N, and each CTA's barrier counts the whole block's bytes.
constexpr const char *kMulticastAttr = "tilegpu.multicast";
/// arrive_barrier attribute (with tilegpu.num_ctas = N): the warp arrives
/// on the same mbarrier in every CTA of the cluster (a slot that peers
/// multicast into is free once the consumers of all N have read it).
constexpr const char *kClusterArriveAttr = "tilegpu.cluster_arrive";
/// Op attribute (tilegpu-allocate-shared, with consumer groups): the op's
/// buffer or scratch is one copy per consumer group, group g's at
/// shared_offset + g * this many bytes.
constexpr const char *kGroupSharedStrideAttr = "tilegpu.group_shared_stride";
/// The registers each thread of a warp-specialised kernel's block of
/// `threads` is launched with (its .maxnreg): the whole register file,
/// which the warpgroups then split with setmaxnreg (producer 40).
inline unsigned warpSpecializedRegisters(unsigned threads) {
  unsigned share = 65536 / threads / 8 * 8;
  return share < 248 ? share : 248;
}
/// The registers a warp-specialised kernel's producer warpgroup keeps.
constexpr unsigned kProducerRegisters = 40;
/// scf.if attribute (tilegpu-warp-specialize): its then-region is the
/// producer warpgroup's code (four warps, whose first issues the TMA
/// copies from lane 0, ordered by mbarriers alone) and its else-region the
/// consumers' (num_warps warps, whose CTA barriers become named barriers
/// of those warps alone).
constexpr const char *kWarpRolesAttr = "tilegpu.warp_roles";
/// barrier_expect / async_tma_copy_global_to_local attribute: issued by
/// lane 0 of the warp that reaches it (the producer's), not by thread 0.
constexpr const char *kLaneZeroAttr = "tilegpu.lane_zero";
/// tilegpu.barrier attribute: only N threads synchronise, on a named
/// barrier: a warp-specialised kernel's consumers, barrier 1 (with consumer
/// groups, group g's on barrier 1 + g).
constexpr const char *kBarrierThreadsAttr = "tilegpu.barrier_threads";
/// Op attribute: byte offset of the op's buffer or scratch in the kernel's
/// shared memory (set by tilegpu-allocate-shared).
constexpr const char *kSharedOffsetAttr = "tilegpu.shared_offset";
/// Threads in a warp on every NVIDIA GPU tilec targets.
constexpr unsigned kThreadsPerWarp = 32;

/// The module's num_warps; 0 when the module has not been through
/// tile-to-tilegpu.
unsigned getNumWarps(mlir::ModuleOp module);
/// The module's consumer groups (tilegpu.consumer_groups; 1 when absent).
unsigned getConsumerGroups(mlir::ModuleOp module);
/// The module's target chip; empty when it has none.
std::string getTarget(mlir::ModuleOp module);

/// The K of Hopper's wgmma (m64nNkK) multiplying `a` by `b` elements into
/// `acc`: 16 for f16 or bf16 (one type) into f32; 32 for fp8 (e4m3, e5m2,
/// in any pairing) into f32 and for i8 into i32; 8 for f32, read as tf32,
/// into f32. nullopt for any other combination.
std::optional<unsigned> wgmmaInstructionK(mlir::Type a, mlir::Type b, mlir::Type acc);
/// Whether wgmma reads operands of `element` from M- or N-major buffers
/// (transposing them as it reads) and takes A from registers: for 16-bit
/// elements only. Every other type needs both operands K-major in buffers.
bool wgmmaTakesAnyMajor(mlir::Type element);

/// How TMA lays out a block of `shape` (2-D) and `element`s
/// (tmaBlockLayout); nullopt for a block TMA cannot copy.
std::optional<TMABlockLayout> getTMABlockLayout(llvm::ArrayRef<int64_t> shape,
                                                mlir::Type element);
/// The layout of the shared buffer TMA fills with a block of `element`s
/// laid out as `layout` says: #tilegpu.nvmma_shared with its swizzle (rows
/// contiguous, columns one after the other, as wgmma reads them), or plain
/// rows when unswizzled.
mlir::Attribute getTMABufferEncoding(mlir::MLIRContext *ctx, const TMABlockLayout &layout,
                                     mlir::Type element);
/// The type of an mbarrier (one mutable i64 in shared memory), or with
/// `ringSize` a ring of that many.
MemDescType getBarrierType(mlir::MLIRContext *ctx, unsigned ringSize = 0);
/// `buffer` replaced by `replacement` everywhere, the transposed views of
/// it (memdesc_trans, which take their source's mutability) retyped.
void replaceBuffer(mlir::Value buffer, mlir::Value replacement);
/// The buffer (or ring of buffers) `memdesc` is a view of: `memdesc` with
/// its memdesc_index and memdesc_trans views stripped.
mlir::Value viewedBuffer(mlir::Value memdesc);

namespace detail {
/// The check every distributed encoding makes of a tensor's shape: the
/// encoding's rank, dimensions powers of two.
mlir::LogicalResult
verifyEncodingShape(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                    llvm::ArrayRef<int64_t> shape, unsigned rank,
                    llvm::StringRef what);
/// A distributed layout whose CTA tile is `tile` (outputs dim0, dim1, ...
/// in any order) stretched over a tensor of `shape`: along each dimension
/// in `order` (the order in which repetitions take register bits) it
/// repeats in more registers when the tensor is larger, and wraps (the
/// bits past its edge become free: copies) when smaller. Outputs come back
/// in dimension order.
LinearLayout fitToShape(LinearLayout tile, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<unsigned> order);
} // namespace detail
} // namespace tilec::tilegpu
