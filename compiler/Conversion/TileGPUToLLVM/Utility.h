// Shared pieces of the tilegpu → LLVM lowering: the type converter, packing
// of per-thread registers into LLVM structs, and the index arithmetic of
// linear layouts (which element a register of this thread holds).
#pragma once

#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Target/TargetInfo.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec::lowering {

/// What the patterns need to know about the module being lowered.
struct LoweringContext {
  TargetInfo target;
  unsigned numWarps = 4;
  /// nvvm.maxnreg of the kernel; 0: none.
  unsigned maxRegisters = 0;
  /// The kernel has warp_group_dots, whose wgmma reads shared memory
  /// through the async proxy: the writers of what it may read (cp.async
  /// waits) fence before the barrier that publishes it.
  bool asyncProxyReadsShared = false;
  /// Warps launched beside numWarps in a warp-specialised kernel (its
  /// producer warp: tilegpu.producer_warps), which no layout spans.
  unsigned producerWarps = 0;
  /// Groups of numWarps consumer warps (tilegpu.consumer_groups), each
  /// running the kernel's code as a block of its own: threads count from 0
  /// in each, barriers and shared buffers are the group's.
  unsigned consumerGroups = 1;
  /// CTAs per cluster (tilegpu.num_ctas): multicast copies and cluster
  /// arrivals address that many.
  unsigned clusterCtas = 1;
  /// The threads the layouts span (one consumer group's).
  unsigned numThreads() const { return numWarps * tilegpu::kThreadsPerWarp; }
  /// The threads of the block (nvvm.reqntid), producer warps included.
  unsigned blockThreads() const {
    return (numWarps * consumerGroups + producerWarps) * tilegpu::kThreadsPerWarp;
  }
};

/// LLVM types for tile values: `!tile.ptr<T>` → `!llvm.ptr<1>`, a tensor
/// with a layout → a literal struct of the registers one thread holds, a
/// shared buffer → `!llvm.ptr<3>` (its first element).
class TileTypeConverter : public mlir::LLVMTypeConverter {
public:
  explicit TileTypeConverter(mlir::MLIRContext *ctx);
};

/// A conversion pattern of one op that reads the module's LoweringContext
/// (the target, the warps, the cluster): the base of the lowerings whose
/// PTX depends on them.
template <typename Op>
struct ContextPattern : mlir::OpConversionPattern<Op> {
  ContextPattern(TileTypeConverter &converter, const LoweringContext &context)
      : mlir::OpConversionPattern<Op>(converter, &converter.getContext()), context(context) {}
  const LoweringContext &context;
};

/// Global address space of NVPTX.
constexpr unsigned kGlobalAddressSpace = 1;
/// Shared address space of NVPTX.
constexpr unsigned kSharedAddressSpace = 3;
/// Name of the dynamic shared memory array every kernel shares.
constexpr const char *kSharedMemorySymbol = "tilec_shared";

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Inline PTX with side effects, so that LLVM keeps it in program order
/// with the barriers and fences around it; its result, or null.
mlir::Value orderedAsm(mlir::OpBuilder &b, mlir::Location loc, mlir::Type result,
                       mlir::ValueRange operands, llvm::StringRef ptx,
                       llvm::StringRef constraints);

/// One PTX instruction without side effects as inline assembly: `ptx` reads
/// $0.. in the order of `constraints` (outputs first).
mlir::Value inlineAsm(mlir::OpBuilder &b, mlir::Location loc, mlir::Type result,
                      mlir::ValueRange operands, llvm::StringRef ptx,
                      llvm::StringRef constraints);

/// fp8 (e4m3 or e5m2, `fp8Type`; held as i8 bits) to f32, exactly, and f32
/// to fp8 rounded to nearest even with saturation to the largest finite
/// value (cvt.rn.satfinite), NaN kept. sm_89 and newer.
mlir::Value fp8ToF32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bits,
                     mlir::Type fp8Type);
mlir::Value f32ToFP8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Type fp8Type);
/// The same between fp8 and any float type `to` / of `x` (through f32).
mlir::Value fromFP8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value bits,
                    mlir::Type fp8Type, mlir::Type to);
mlir::Value toFP8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Type fp8Type);
/// An fp8 constant's value as the i8 attribute of its bits.
mlir::IntegerAttr fp8Bits(mlir::Builder &b, mlir::FloatAttr value);

/// The registers of a converted tensor value (or the value itself for a
/// scalar) and back.
llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value packed);
mlir::Value pack(mlir::OpBuilder &b, mlir::Location loc, mlir::Type packedType,
                 mlir::ValueRange registers);

/// A barrier of the threads the layouts span: bar.sync 0, or in a
/// warp-specialised kernel (whose producer warpgroup never reaches the
/// consumers' code) a named barrier of the num_warps consumers' threads:
/// 1, or 1 + g for consumer group g.
void ctaBarrier(mlir::OpBuilder &b, mlir::Location loc, const LoweringContext &context);
/// The same barrier for `threads` threads (a tilegpu.barrier's
/// tilegpu.barrier_threads); with G consumer groups, G times a group's
/// threads meet on barrier 1 + G.
void namedBarrier(mlir::OpBuilder &b, mlir::Location loc, const LoweringContext &context,
                  unsigned threads);

/// This thread's index among the threads the layouts span (i32): its
/// index in the CTA, or with consumer groups in its group.
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc,
                     const LoweringContext &context);
/// This thread's index in the CTA (i32), consumer groups or not.
mlir::Value blockThreadId(mlir::OpBuilder &b, mlir::Location loc,
                          const LoweringContext &context);
/// The consumer group of this thread (i32; 0 without groups).
mlir::Value consumerGroup(mlir::OpBuilder &b, mlir::Location loc,
                          const LoweringContext &context);

/// True (i1) on lane 0 of the executing warp.
mlir::Value laneZero(mlir::OpBuilder &b, mlir::Location loc, const LoweringContext &context);

/// True on the one thread that issues `op` for its program: thread 0 of
/// the CTA (with consumer groups: of its group, unless `op` works on a
/// shared object of which the CTA has one copy), or for an op marked
/// tilegpu.lane_zero (a producer warp's, which thread 0 never reaches)
/// lane 0 of its warp; and where `pred` holds, when given.
mlir::Value electedThread(mlir::Operation *op, mlir::OpBuilder &b, mlir::Location loc,
                          const LoweringContext &context, mlir::Value pred = mlir::Value());

/// This thread's lane and warp (i32).
struct ThreadIndex {
  mlir::Value lane, warp;
};
ThreadIndex threadIndex(mlir::OpBuilder &b, mlir::Location loc,
                        const LoweringContext &context);

/// The value of `bits` of `id` packed together (bit bits[0] of id becomes
/// bit 0, ...): the position of a thread among those that differ in them.
mlir::Value extractBits(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                        int32_t mask);

/// The hardware index of one thread, as the layout's inputs other than
/// "register": lane and warp for distributed layouts.
struct HardwareIndex {
  llvm::SmallVector<std::pair<std::string, mlir::Value>> inputs;
  static HardwareIndex ofThread(const ThreadIndex &t);
};

/// Per output dimension of `layout`, the part of every register's
/// coordinate that the thread contributes: the XOR of the images of its set
/// input bits (i32).
llvm::SmallVector<mlir::Value> threadOffsets(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             const tilegpu::LinearLayout &layout,
                                             const HardwareIndex &index);

/// The coordinates of register `r`: its constant image combined with the
/// thread's offsets (an add where the bits cannot overlap, so that address
/// arithmetic folds, else an xor).
llvm::SmallVector<mlir::Value>
registerCoordinate(mlir::OpBuilder &b, mlir::Location loc,
                   const tilegpu::LinearLayout &layout, unsigned r,
                   llvm::ArrayRef<mlir::Value> offsets);

/// Coordinates of every register: result[r][d] is an i32.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
registerCoordinates(mlir::OpBuilder &b, mlir::Location loc,
                    const tilegpu::LinearLayout &layout,
                    const LoweringContext &context);

/// The row-major i32 index of `coord` in `shape`, with dimension `skip`
/// left out when given: where a reduction or scan keeps the line through a
/// coordinate.
mlir::Value linearIndex(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> coord,
                        llvm::ArrayRef<int64_t> shape,
                        std::optional<unsigned> skip = std::nullopt);

/// `index` (an integer register of any width, read as signed) as i32, and
/// an i1 that is true when it lies in [0, extent): compared in its own
/// width, so that a 64-bit index past 2^31 is not taken for a small one.
std::pair<mlir::Value, mlir::Value> indexWithin(mlir::OpBuilder &b, mlir::Location loc,
                                                mlir::Value index, int64_t extent);

/// An i1 that is true in exactly one thread among those holding copies of
/// the same elements (the one whose free lane and warp bits are clear);
/// null when no thread holds copies.
mlir::Value ownsElements(mlir::OpBuilder &b, mlir::Location loc,
                         const tilegpu::LinearLayout &layout,
                         const ThreadIndex &thread);

/// The one thread that performs a memory access of each element of a value
/// of `type`: ownsElements of a tensor's layout, thread 0 for a scalar
/// (which every thread holds); null when each thread owns its elements.
mlir::Value accessOwner(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                        const LoweringContext &context);
/// `owner` and `mask`, either of which may be null, as one i1 (true when
/// both are).
mlir::Value accessPredicate(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value owner, mlir::Value mask);

/// True when register r repeats an element an earlier register of the same
/// thread holds (one of its free register bits is set).
inline bool isRepeatedRegister(const tilegpu::LinearLayout &layout, unsigned r) {
  return r & layout.getFreeVariableMask(tilegpu::kRegister);
}

/// shfl.sync of any scalar or pointer of up to 64 bits (64-bit ones as two words):
/// `lane` is the lane mask (bfly), delta (up, down) or source lane (idx).
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::NVVM::ShflKind kind, mlir::Value lane);
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::NVVM::ShflKind kind, unsigned lane);

/// One application of a reduce/scan combiner block (2N arguments, N
/// results) to two partials of N values: its ops cloned at `b`.
llvm::SmallVector<mlir::Value> applyCombiner(mlir::OpBuilder &b,
                                             mlir::Block &combiner,
                                             llvm::ArrayRef<mlir::Value> lhs,
                                             llvm::ArrayRef<mlir::Value> rhs);

/// Pointer to the kernel's dynamic shared memory (address space 3).
mlir::Value sharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Operation *anchor);
/// Pointer to the shared memory `tilegpu-allocate-shared` gave `op` (its
/// `tilegpu.shared_offset`, and with consumer groups its group's copy);
/// null when it has none.
mlir::Value sharedMemoryOf(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op);

/// The element type registers hold (converted) and the one memory holds
/// (i1 as i8; fp8, converted or not, as its i8 bits).
mlir::Type memoryElementType(mlir::Type registerElement);

/// The shared-memory address of register `r` of this thread, given `map`
/// (register, lane, warp -> offset, from `invertAndCompose`) and the
/// thread's part of it (`threadOffsets` of the map).
mlir::Value sharedAddress(mlir::OpBuilder &b, mlir::Location loc,
                          const tilegpu::LinearLayout &map, unsigned r,
                          llvm::ArrayRef<mlir::Value> threadOffset,
                          mlir::Value base, mlir::Type memoryElement);

/// Per register of a tensor of layout `regs`, moved to or from shared
/// memory laid out as `shared` (input "offset") at `base`: as wide as both
/// layouts allow (16 bytes at most), each element once.
void storeToShared(mlir::OpBuilder &b, mlir::Location loc,
                   const tilegpu::LinearLayout &regs,
                   const tilegpu::LinearLayout &shared, mlir::Value base,
                   mlir::Type element, llvm::ArrayRef<mlir::Value> values,
                   const LoweringContext &context);
llvm::SmallVector<mlir::Value>
loadFromShared(mlir::OpBuilder &b, mlir::Location loc,
               const tilegpu::LinearLayout &regs,
               const tilegpu::LinearLayout &shared, mlir::Value base,
               mlir::Type element, const LoweringContext &context);

void populateFuncOpToLLVMPatterns(TileTypeConverter &converter,
                                  const LoweringContext &context,
                                  mlir::RewritePatternSet &patterns);
void populateElementwiseOpToLLVMPatterns(TileTypeConverter &converter,
                                         const LoweringContext &context,
                                         mlir::RewritePatternSet &patterns);
void populateViewOpToLLVMPatterns(TileTypeConverter &converter,
                                  const LoweringContext &context,
                                  mlir::RewritePatternSet &patterns);
void populateLoadStoreOpToLLVMPatterns(TileTypeConverter &converter,
                                       const LoweringContext &context,
                                       const AxisInfoAnalysis &axisInfo,
                                       mlir::RewritePatternSet &patterns);
void populateAtomicOpToLLVMPatterns(TileTypeConverter &converter,
                                    const LoweringContext &context,
                                    const AxisInfoAnalysis &axisInfo,
                                    mlir::RewritePatternSet &patterns);
void populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                    const LoweringContext &context,
                                    mlir::RewritePatternSet &patterns);
void populateGatherOpToLLVMPatterns(TileTypeConverter &converter,
                                    const LoweringContext &context,
                                    mlir::RewritePatternSet &patterns);
void populateHistogramOpToLLVMPatterns(TileTypeConverter &converter,
                                       const LoweringContext &context,
                                       mlir::RewritePatternSet &patterns);
void populateScanOpToLLVMPatterns(TileTypeConverter &converter,
                                  const LoweringContext &context,
                                  mlir::RewritePatternSet &patterns);
void populateConvertLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                           const LoweringContext &context,
                                           mlir::RewritePatternSet &patterns);
void populateDotOpToLLVMPatterns(TileTypeConverter &converter,
                                 const LoweringContext &context,
                                 mlir::RewritePatternSet &patterns);
void populateSharedMemoryOpToLLVMPatterns(TileTypeConverter &converter,
                                          const LoweringContext &context,
                                          mlir::RewritePatternSet &patterns);
/// Conversions between fp8 and f32 (NVIDIA/FP8ToLLVM.cpp).
void populateFP8ToLLVMPatterns(TileTypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
/// Reports, at the op, fp8 values the patterns cannot lower: arithmetic
/// (tile-widen-fp8 moves it to f32) and any conversion below sm_89. Run before
/// the conversion, which would otherwise leave invalid LLVM ops.
mlir::LogicalResult checkFP8Lowerable(mlir::ModuleOp module,
                                      const TargetInfo &target);
/// tile.print, tile.assert and tile.debug_barrier: vprintf, __assertfail and
/// bar.sync (NVIDIA/DebugOpToLLVM.cpp).
void populateDebugOpToLLVMPatterns(TileTypeConverter &converter,
                                   const LoweringContext &context,
                                   mlir::RewritePatternSet &patterns);
/// tile.grid_dependency_wait, tile.launch_dependents and tile.prefetch_l2:
/// griddepcontrol and cp.async.bulk.prefetch.L2 on sm_90+, nothing before
/// (NVIDIA/OverlapToLLVM.cpp).
void populateOverlapOpToLLVMPatterns(TileTypeConverter &converter,
                                     const LoweringContext &context,
                                     mlir::RewritePatternSet &patterns);
/// fence.proxy.async.shared::cta: this thread's shared-memory writes so
/// far become visible to the async proxy (wgmma, TMA), for the threads a
/// later barrier synchronises with (NVIDIA/WgmmaToLLVM.cpp).
void fenceProxyAsyncShared(mlir::OpBuilder &b, mlir::Location loc);
/// tilegpu.warp_group_dot as wgmma (NVIDIA/WgmmaToLLVM.cpp).
void populateWarpGroupDotOpToLLVMPatterns(TileTypeConverter &converter,
                                          const LoweringContext &context,
                                          mlir::RewritePatternSet &patterns);
/// Clusters (NVIDIA/ClusterToLLVM.cpp): tile.cluster_id, cluster_cta_rank,
/// cluster_size, tilegpu.cluster_barrier.
void populateClusterToLLVMPatterns(TileTypeConverter &converter, const LoweringContext &context,
                                   mlir::RewritePatternSet &patterns);
/// %cluster_ctarank (sm_90): this CTA's place in its cluster.
mlir::Value clusterCtaRank(mlir::OpBuilder &b, mlir::Location loc);
/// mbarriers and TMA copies (sm_90, NVIDIA/TMAToLLVM.cpp): init_barrier,
/// inval_barrier, barrier_expect, wait_barrier, arrive_barrier,
/// async_tma_copy_global_to_local, tma_store.
void populateTMAToLLVMPatterns(TileTypeConverter &converter, const LoweringContext &context,
                               mlir::RewritePatternSet &patterns);
/// cp.async copies, commits and waits (NVIDIA/AsyncCopyToLLVM.cpp).
void populateAsyncCopyOpToLLVMPatterns(TileTypeConverter &converter,
                                       const LoweringContext &context,
                                       const AxisInfoAnalysis &axisInfo,
                                       mlir::RewritePatternSet &patterns);

} // namespace tilec::lowering
