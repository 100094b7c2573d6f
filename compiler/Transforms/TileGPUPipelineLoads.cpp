// tilegpu-pipeline-loads: software pipelining of the global loads that
// feed a tile.dot, through a ring of shared-memory buffers filled by
// asynchronous copies (cp.async), `num_stages` deep.
//
// Before (after tilegpu-decompose-conversions), each iteration loads its
// operand tiles into registers, writes them to a shared buffer and reads
// them back in the dot's operand layout:
//
//   scf.for %i ... iter_args(%ptrs = ...) {
//     %a = tile.load %ptrs, %mask(%i), %zero
//     %buf = tilegpu.local_alloc %a
//     %x = tilegpu.local_load %buf      // feeds tile.dot
//     yield advance(%ptrs)
//   }
//
// After, with S stages (D = S - 1 iterations in flight):
//
//   %ring = tilegpu.local_alloc : memdesc<S x ...>
//   for k in 0..D-1:  copy iteration k's tile into %ring[k]; commit
//   scf.for %i ... iter_args(%ptrs = <iteration D's>, %slot = 0) {
//     tilegpu.async_wait {pending = D - 1}   // iteration i's group landed
//     copy iteration i+D's tile into %ring[(slot + D) % S]; commit
//     %x = tilegpu.local_load %ring[%slot]
//     yield advance(%ptrs), (slot + 1) % S
//   }
//   tilegpu.async_wait {pending = 0}
//
// tilegpu-insert-barriers then places one barrier per iteration between the
// wait and the copies: it publishes iteration i's tile to every thread and
// ends every thread's reads of the buffer the copies refill, which iteration
// i-1 read. Copies of iterations past the end are masked off (they write
// zeros, read nothing).
//
// warp_group_dots (wgmma) read the ring's buffer itself. Where every
// reader of the rings is such a dot that may stay in flight across
// iterations (asynchronousDots below), the rings get R = S + 1 buffers
// instead of S, the copies of iteration i+D go to %ring[(slot + D) % R],
// the buffer iteration i-2 read, and the dots get pending = 1: a dot
// waits for the previous iteration's instructions, not its own, so every
// warpgroup has finished reading iteration i-2's buffer before iteration
// i's barrier, after which the copies refill it. A
// tilegpu.warp_group_dot_wait {pending = 0} after the loop ends the last
// dot's instructions. A dot whose result an scf.if of the body also reads
// (an epilogue, with the accumulator reset under the same condition or
// not) stays in flight too: the if is rewritten to wait for it inside and
// to yield what the next iteration accumulates into (waitInEpilogue).
//
// TMA reads (tile.tensormap_load, tile-lower-descriptors' reads of dot
// operands on sm_90) join the dots' loads: their local_alloc has the
// layout TMA writes, so the copies (async_tma_copy_global_to_local, one
// thread) fill the ring's buffers as they are. Each slot gets an mbarrier,
// initialised before the loop and ended after it; the copies of a slot
// follow one barrier_expect of all their bytes on its barrier, and each
// iteration waits on its slot's barrier (wait_barrier) with the parity of
// the slot's phase, which the loop carries and flips at each wrap of the
// ring. Copies past the end are not issued at all (their predicate is
// off), so none is in flight after the loop. The barrier per iteration is
// still needed: it ends every read of the buffer being refilled.
//
// The ops computing a load's pointer and mask form the loop's first stage:
// they run D iterations ahead. That is sound when their iteration arguments
// (the pointers being advanced) feed nothing else — no later-stage op and
// no result used after the loop — and when no write of the loop may touch
// what the moved loads read (a load moved ahead of a store could miss
// what it writes): a loop whose stages are its own (tl.range(num_stages=
// ...)) may store through pointers derived from kernel arguments its
// pipelined loads do not read through, distinct arguments taken not to
// overlap (mayWriteWhatLoadsRead); any other loop must write no global
// memory. A load
// qualifies when its only use is a local_alloc read only by local_loads that
// feed a dot or by warp_group_dots (directly, or through a memdesc_trans
// view, whose type follows the ring buffer's), its `other` is absent or
// zero (cp.async fills with zeros), and
// each thread's elements come in vectors of at least 4 bytes in both
// memories. Loops that do not qualify are left alone.
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Analysis/SharedLifetimes.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/AsyncDots.h"
#include "compiler/Transforms/LoopUtils.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tilegpu-pipeline-loads"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUPIPELINELOADS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// A load whose tile goes through shared memory into a dot, or (`buffer`
/// null) a load the loop asked to pipeline whose tile is used in registers.
/// `load` is a tile.load (copied by cp.async) or a tile.tensormap_load
/// (copied by TMA).
struct PipelinedLoad {
  Operation *load;
  tilegpu::LocalAllocOp buffer; ///< the dot's buffer; null for a plain load
  tilegpu::MemDescType bufferType; ///< of each buffer of the ring
  Value ring; ///< set when the loop is rewritten

  bool isPlain() const { return !buffer; }
  bool isTMA() const { return isa<tile::TensorMapLoadOp>(load); }
  tile::LoadOp pointerLoad() const { return cast<tile::LoadOp>(load); }
};

/// The warp_group_dots reading `buffer` directly or through a transposed
/// view; nullopt when something else reads it.
std::optional<SmallVector<tilegpu::WarpGroupDotOp>>
readingDots(tilegpu::LocalAllocOp buffer) {
  SmallVector<tilegpu::WarpGroupDotOp> dots;
  for (Operation *user : buffer->getUsers()) {
    if (auto view = dyn_cast<tilegpu::MemDescTransOp>(user)) {
      for (Operation *reader : view->getUsers()) {
        auto dot = dyn_cast<tilegpu::WarpGroupDotOp>(reader);
        if (!dot)
          return std::nullopt;
        dots.push_back(dot);
      }
      continue;
    }
    auto dot = dyn_cast<tilegpu::WarpGroupDotOp>(user);
    if (!dot)
      return std::nullopt;
    dots.push_back(dot);
  }
  return dots;
}

/// The local_loads reading `buffer`, directly or through one transposed
/// view (the view's with it); nullopt when anything else reads it.
std::optional<SmallVector<std::pair<tilegpu::LocalLoadOp, tilegpu::MemDescTransOp>>>
readingLoads(tilegpu::LocalAllocOp buffer) {
  SmallVector<std::pair<tilegpu::LocalLoadOp, tilegpu::MemDescTransOp>> reads;
  for (Operation *user : buffer->getUsers()) {
    auto view = dyn_cast<tilegpu::MemDescTransOp>(user);
    for (Operation *reader :
         view ? SmallVector<Operation *>(view->getUsers()) : SmallVector<Operation *>{user}) {
      auto read = dyn_cast<tilegpu::LocalLoadOp>(reader);
      if (!read)
        return std::nullopt;
      reads.push_back({read, view});
    }
  }
  return reads;
}

/// True when every reader of `buffer` is a warp_group_dot (directly or
/// through a transposed view), or a local_load (directly or through a
/// transposed view) whose tile feeds a dot.
bool feedsDotOnly(tilegpu::LocalAllocOp buffer) {
  if (buffer->use_empty())
    return false;
  if (std::optional<SmallVector<tilegpu::WarpGroupDotOp>> dots = readingDots(buffer))
    return !dots->empty();
  auto reads = readingLoads(buffer);
  return reads && llvm::all_of(*reads, [](auto read) {
           return llvm::any_of(read.first->getUsers(),
                               [](Operation *op) { return isa<tile::DotOp>(op); });
         });
}

/// A buffer for `load`'s tile: 16-byte vectors along the pointers' most
/// contiguous dimension, rows (of that dimension) XOR-swizzled per 128
/// bytes.
tilegpu::MemDescType ldmatrixFriendlyBuffer(tile::LoadOp load,
                                            const AxisInfoAnalysis &axisInfo) {
  auto type = cast<RankedTensorType>(load.getType());
  unsigned bytes = tile::getElementBytes(type.getElementType());
  SmallVector<unsigned> order = axisInfo.getMemoryOrder(load.getPtr());
  unsigned vec = std::max(1u, 16 / bytes);
  unsigned rowBytes = unsigned(type.getShape()[order[0]]) * bytes;
  unsigned perPhase = std::max(1u, 128 / std::max(1u, rowBytes));
  unsigned maxPhase = std::max(1u, std::min(8u, rowBytes / 16));
  auto encoding = tilegpu::SwizzledSharedEncodingAttr::get(
      load.getContext(), vec, perPhase, maxPhase, order);
  return tilegpu::MemDescType::get(load.getContext(), type.getShape(),
                                   type.getElementType(), encoding,
                                   /*mutableMemory=*/false);
}

std::optional<PipelinedLoad> asPipelinedLoad(tile::LoadOp load,
                                             const AxisInfoAnalysis &axisInfo) {
  if (!isAsyncCopyable(load) || !load->hasOneUse())
    return std::nullopt;
  auto type = cast<RankedTensorType>(load.getType());
  Type element = type.getElementType();
  auto buffer = dyn_cast<tilegpu::LocalAllocOp>(*load->getUsers().begin());
  if (!buffer || buffer->getBlock() != load->getBlock() || !feedsDotOnly(buffer))
    return std::nullopt;
  // 16-bit operands, which ldmatrix reads, get the classic swizzle for
  // 16-byte vectors along the global memory's contiguous dimension: a
  // row's 16-byte chunk index is XORed with the row (per 128 bytes), so
  // that cp.async's 16-byte writes and ldmatrix's eight 16-byte rows (plain
  // or .trans) each fill distinct banks. (The layout chosen for a copy
  // through registers models register reads, which is what the other
  // types still do.)
  tilegpu::MemDescType bufferType = buffer.getType();
  // wgmma reads its operands in the layout tilegpu-accelerate-matmul
  // chose, which the copies must then fill as it is.
  if (isa<tilegpu::NVMMASharedEncodingAttr>(bufferType.getEncoding())) {
    if (!asyncCopyWidth(load.getPtr(), load.getMask(), bufferType, axisInfo))
      return std::nullopt;
    return PipelinedLoad{load, buffer, bufferType, Value()};
  }
  if (tile::getElementBytes(element) == 2) {
    tilegpu::MemDescType swizzled = ldmatrixFriendlyBuffer(load, axisInfo);
    if (asyncCopyWidth(load.getPtr(), load.getMask(), swizzled, axisInfo))
      bufferType = swizzled;
  }
  if (!asyncCopyWidth(load.getPtr(), load.getMask(), bufferType, axisInfo)) {
    // The layout chosen for a copy through registers may split the global
    // vector (B of a matmul is kept K-major for ldmatrix): lay the buffer
    // out around the copy's vector instead (ldmatrix.trans reads it).
    // (A read through a transposed view, in the loaded tile's coordinates.)
    auto [read, view] = readingLoads(buffer)->front();
    tilegpu::LinearLayout readLayout = tilegpu::toLinearLayout(read.getType());
    if (view)
      readLayout = tilegpu::renameOutDims(
          readLayout.transposeOuts({tilegpu::outDimName(1), tilegpu::outDimName(0)}),
          tilegpu::outDimNames(2));
    tilegpu::LinearLayout shared = tilegpu::conflictFreeSharedLayout(
        tilegpu::toLinearLayout(type), readLayout,
        tile::getElementBytes(element), /*keepSourceVector=*/true);
    bufferType = tilegpu::MemDescType::get(
        load.getContext(), type.getShape(), element,
        tilegpu::SharedLinearEncodingAttr::get(load.getContext(), shared),
        /*mutableMemory=*/false);
    if (!asyncCopyWidth(load.getPtr(), load.getMask(), bufferType, axisInfo))
      return std::nullopt;
  }
  return PipelinedLoad{load, buffer, bufferType, Value()};
}

/// A TMA read of a dot operand: its tile's only use is the dot's buffer,
/// which tilegpu-accelerate-matmul laid out as TMA writes it (the copies
/// then fill the very buffer the tensor cores read).
std::optional<PipelinedLoad> asTMAPipelinedLoad(tile::TensorMapLoadOp load) {
  if (!load->hasOneUse())
    return std::nullopt;
  auto buffer = dyn_cast<tilegpu::LocalAllocOp>(*load->getUsers().begin());
  if (!buffer || buffer->getBlock() != load->getBlock() || !feedsDotOnly(buffer))
    return std::nullopt;
  RankedTensorType type = load.getResult().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  if (!layout || buffer.getType().getEncoding() !=
                     tilegpu::getTMABufferEncoding(load.getContext(), *layout, element))
    return std::nullopt;
  return PipelinedLoad{load, buffer, buffer.getType(), Value()};
}

/// A load of a loop given its stages (tl.range(num_stages=...)) whose
/// tile is used in registers: its copies land in a ring laid out around its
/// own layout (each thread's vector contiguous, rows swizzled off each
/// other's banks), which the iteration reads back in that layout. None when
/// a thread's vectors would be under cp.async's 4 bytes.
std::optional<PipelinedLoad> asPlainPipelinedLoad(tile::LoadOp load,
                                                  const AxisInfoAnalysis &axisInfo) {
  if (!isPlainPipelineCandidate(load))
    return std::nullopt;
  auto type = cast<RankedTensorType>(load.getType());
  if (!type.getEncoding())
    return std::nullopt;
  Type element = type.getElementType();
  tilegpu::LinearLayout regs = tilegpu::toLinearLayout(type);
  tilegpu::LinearLayout shared = tilegpu::conflictFreeSharedLayout(
      regs, regs, tile::getElementBytes(element), /*keepSourceVector=*/true);
  auto bufferType = tilegpu::MemDescType::get(
      load.getContext(), type.getShape(), element,
      tilegpu::SharedLinearEncodingAttr::get(load.getContext(), shared),
      /*mutableMemory=*/false);
  if (!asyncCopyWidth(load.getPtr(), load.getMask(), bufferType, axisInfo))
    return std::nullopt;
  return PipelinedLoad{load, tilegpu::LocalAllocOp(), bufferType, Value()};
}

/// The dots reading `loads`' rings that may stay in flight across
/// iterations (asynchronousDots): every reader of a ring must qualify.
SmallVector<AsyncDot> asynchronousDots(scf::ForOp loop, ArrayRef<PipelinedLoad> loads) {
  SmallVector<tilegpu::WarpGroupDotOp> dots;
  for (const PipelinedLoad &p : loads) {
    // (A plain load's buffer is read back into registers in its own
    // iteration: the refill two iterations on is as safe as one on.)
    if (p.isPlain())
      continue;
    std::optional<SmallVector<tilegpu::WarpGroupDotOp>> readers = readingDots(p.buffer);
    if (!readers)
      return {};
    for (tilegpu::WarpGroupDotOp dot : *readers)
      if (!llvm::is_contained(dots, dot))
        dots.push_back(dot);
  }
  return tilec::asynchronousDots(loop, dots, [&](Value buffer) {
    return llvm::any_of(loads, [&](PipelinedLoad p) {
      return !p.isPlain() && buffer.getDefiningOp() == p.buffer.getOperation();
    });
  });
}

class LoopPipeliner {
public:
  /// `asyncDots` (from asynchronousDots) get pending = 1, and then each
  /// ring a spare buffer beyond `numStages`.
  LoopPipeliner(scf::ForOp loop, SmallVector<PipelinedLoad> loads,
                LoadAddressStage stage, unsigned numStages, SmallVector<AsyncDot> asyncDots)
      : loop_(loop), loads_(std::move(loads)), stage_(std::move(stage)),
        numStages_(numStages), ringSize_(numStages + (asyncDots.empty() ? 0 : 1)),
        asyncDots_(std::move(asyncDots)),
        // (Asked before the loads are erased, which rewriting them does.)
        hasAsyncCopies_(llvm::any_of(loads_, [](const PipelinedLoad &p) { return !p.isTMA(); })),
        hasTMACopies_(llvm::any_of(loads_, [](const PipelinedLoad &p) { return p.isTMA(); })) {}

  void run(IRRewriter &rewriter) {
    Location loc = loop_.getLoc();
    rewriter.setInsertionPoint(loop_);
    allocateRings(rewriter, loc);
    issuePrologue(rewriter, loc);

    // The ring slot of the iteration, and (with TMA) the parity of the
    // phase its slot's barrier is in.
    Value zero = rewriter.create<arith::ConstantIntOp>(loc, rewriter.getI32Type(), 0);
    SmallVector<Value> added{zero};
    if (barriers_)
      added.push_back(zero);
    auto rewriteBody = [&](OpBuilder &b, Location,
                           ArrayRef<BlockArgument> args) -> SmallVector<Value> {
      return rewriteIteration(b, loc, args[0], barriers_ ? Value(args[1]) : Value());
    };
    FailureOr<LoopLikeOpInterface> rebuilt =
        cast<LoopLikeOpInterface>(loop_.getOperation())
            .replaceWithAdditionalYields(rewriter, added,
                                         /*replaceInitOperandUsesInLoop=*/false,
                                         rewriteBody);
    assert(succeeded(rebuilt) && "scf.for takes additional iteration arguments");
    // Copies of iterations past the end (masked off, writing zeros) must
    // land before the buffers are reused. (TMA issues none past the end.)
    rewriter.setInsertionPointAfter(rebuilt->getOperation());
    if (hasAsyncCopies())
      rewriter.create<tilegpu::AsyncWaitOp>(loc, 0);
    // The last asynchronous dots' instructions end here, before anything
    // reads their accumulators or reuses the rings.
    leaveDotsInFlight(rewriter, cast<scf::ForOp>(rebuilt->getOperation()), asyncDots_);
    // After every thread's last wait (tilegpu-insert-barriers orders it).
    if (barriers_)
      for (unsigned r = 0; r < ringSize_; ++r)
        rewriter.create<tilegpu::InvalBarrierOp>(loc, barrierOf(rewriter, loc, r));
  }

private:
  unsigned distance() const { return numStages_ - 1; }

  bool hasAsyncCopies() const { return hasAsyncCopies_; }

  /// Slot `slot`'s mbarrier: its TMA copies complete on it.
  Value barrierOf(OpBuilder &b, Location loc, Value slot) {
    return ringSlot(b, loc, barriers_, slot);
  }
  Value barrierOf(OpBuilder &b, Location loc, unsigned slot) {
    return barrierOf(b, loc, i32Value(b, loc, slot));
  }

  void allocateRings(OpBuilder &b, Location loc) {
    for (PipelinedLoad &p : loads_) {
      tilegpu::MemDescType one = p.bufferType;
      SmallVector<int64_t> shape{int64_t(ringSize_)};
      llvm::append_range(shape, one.getShape());
      auto ring = tilegpu::MemDescType::get(b.getContext(), shape,
                                            one.getElementType(), one.getEncoding(),
                                            /*mutableMemory=*/true);
      p.ring = b.create<tilegpu::LocalAllocOp>(loc, ring, Value());
    }
    if (!hasTMACopies_)
      return;
    // One mbarrier per slot, which all the slot's TMA copies complete on.
    barriers_ = b.create<tilegpu::LocalAllocOp>(
        loc, tilegpu::getBarrierType(b.getContext(), ringSize_), Value());
    for (unsigned r = 0; r < ringSize_; ++r)
      b.create<tilegpu::InitBarrierOp>(loc, barrierOf(b, loc, r), 1);
  }

  /// Buffer `slot` of `ring`.
  static Value bufferOf(OpBuilder &b, Location loc, Value ring, Value slot) {
    return ringSlot(b, loc, ring, slot);
  }

  /// Starts the copies of the iteration whose values `mapping` gives, into
  /// buffer `slot` of each ring, masked off unless `runs`: the TMA copies
  /// on the slot's mbarrier, the cp.async ones as one group.
  void issueCopies(OpBuilder &b, Location loc, IRMapping &mapping, Value slot,
                   Value runs) {
    if (barriers_) {
      // The TMA copies: one thread announces all their bytes on the slot's
      // barrier, then issues them; none past the end.
      int64_t bytes = 0;
      for (PipelinedLoad &p : loads_)
        if (p.isTMA())
          bytes += p.bufferType.getSizeInBytes();
      Value barrier = barrierOf(b, loc, slot);
      b.create<tilegpu::BarrierExpectOp>(loc, barrier, int32_t(bytes), runs);
      for (PipelinedLoad &p : loads_) {
        if (!p.isTMA())
          continue;
        auto tma = cast<tile::TensorMapLoadOp>(p.load);
        SmallVector<Value> offsets;
        for (Value offset : tma.getOffsets())
          offsets.push_back(mapping.lookupOrDefault(offset));
        b.create<tilegpu::AsyncTMACopyGlobalToLocalOp>(
            loc, tma.getMap(), offsets, bufferOf(b, loc, p.ring, slot), barrier, runs);
      }
    }
    if (!hasAsyncCopies())
      return;
    for (PipelinedLoad &p : loads_) {
      if (p.isTMA())
        continue;
      tile::LoadOp load = p.pointerLoad();
      Value ptr = mapping.lookupOrDefault(load.getPtr());
      auto ptrType = cast<RankedTensorType>(ptr.getType());
      auto maskType = RankedTensorType::get(ptrType.getShape(), b.getI1Type(),
                                            ptrType.getEncoding());
      Value mask = b.create<tile::SplatOp>(loc, maskType, runs);
      if (Value own = load.getMask())
        mask = b.create<arith::AndIOp>(loc, mapping.lookupOrDefault(own), mask);
      b.create<tilegpu::AsyncCopyGlobalToLocalOp>(loc, ptr,
                                                  bufferOf(b, loc, p.ring, slot), mask);
    }
    b.create<tilegpu::AsyncCommitGroupOp>(loc);
  }

  /// Iterations 0 .. D-1 into buffers 0 .. D-1; the carried arguments'
  /// initial values become those of iteration D.
  void issuePrologue(OpBuilder &b, Location loc) {
    Value iv = loop_.getInductionVar();
    Type ivType = iv.getType();
    auto yield = cast<scf::YieldOp>(loop_.getBody()->getTerminator());
    SmallVector<Value> current(loop_.getInitArgs());
    for (unsigned k = 0; k < distance(); ++k) {
      Value offset = b.create<arith::MulIOp>(
          loc, loop_.getStep(), b.create<arith::ConstantOp>(loc, b.getIntegerAttr(ivType, k)));
      Value ivK = b.create<arith::AddIOp>(loc, loop_.getLowerBound(), offset);
      Value runs = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, ivK,
                                           loop_.getUpperBound());
      IRMapping mapping;
      mapping.map(iv, ivK);
      for (unsigned index : stage_.carried)
        mapping.map(loop_.getRegionIterArgs()[index], current[index]);
      stage_.clone(b, loop_, mapping);
      issueCopies(b, loc, mapping,
                  b.create<arith::ConstantIntOp>(loc, b.getI32Type(), k), runs);
      for (unsigned index : stage_.carried)
        current[index] = mapping.lookupOrDefault(yield.getOperand(index));
    }
    for (unsigned index : stage_.carried)
      loop_.getInitArgsMutable()[index].set(current[index]);
  }

  /// Rewrites the body (still the old loop's block) for iteration i with
  /// its ring slot `slot` (and, with TMA, the parity `phase` of that slot's
  /// barrier); returns the next slot (and the next phase).
  SmallVector<Value> rewriteIteration(OpBuilder &b, Location loc, Value slot, Value phase) {
    Block *body = loop_.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    b.setInsertionPointToStart(body);
    if (hasAsyncCopies())
      b.create<tilegpu::AsyncWaitOp>(loc, distance() - 1);
    if (barriers_)
      b.create<tilegpu::WaitBarrierOp>(loc, barrierOf(b, loc, slot), phase);

    // The first stage of iteration i + D: the carried arguments already
    // hold that iteration's values.
    Value iv = loop_.getInductionVar();
    Type ivType = iv.getType();
    Value ahead = b.create<arith::AddIOp>(
        loc, iv,
        b.create<arith::MulIOp>(
            loc, loop_.getStep(),
            b.create<arith::ConstantOp>(loc, b.getIntegerAttr(ivType, distance()))));
    Value runs = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, ahead,
                                         loop_.getUpperBound());
    IRMapping mapping;
    mapping.map(iv, ahead);
    stage_.clone(b, loop_, mapping);
    // (slot + D) % R for a ring of R = D + 1 buffers (the one iteration
    // i - 1 read) or D + 2 (iteration i - 2's: asynchronous dots of
    // iteration i - 1 may still read i - 1's until that iteration's dot has
    // waited, which every thread has done before this iteration's barrier).
    Type i32 = b.getI32Type();
    Value slotAhead = b.create<arith::AddIOp>(
        loc, slot, b.create<arith::ConstantIntOp>(loc, i32, distance()));
    Value wrapsAround = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::sge, slotAhead,
        b.create<arith::ConstantIntOp>(loc, i32, ringSize_));
    Value refill = b.create<arith::SelectOp>(
        loc, wrapsAround,
        b.create<arith::SubIOp>(loc, slotAhead,
                                b.create<arith::ConstantIntOp>(loc, i32, ringSize_)),
        slotAhead);
    issueCopies(b, loc, mapping, refill, runs);

    // This iteration reads its tiles from buffer `slot`.
    for (PipelinedLoad &p : loads_) {
      if (p.isPlain()) {
        // Back into the registers the load filled, where it was.
        b.setInsertionPoint(p.load);
        Value read = b.create<tilegpu::LocalLoadOp>(loc, p.load->getResult(0).getType(),
                                                    bufferOf(b, loc, p.ring, slot));
        p.load->getResult(0).replaceAllUsesWith(read);
        p.load->erase();
        continue;
      }
      b.setInsertionPoint(p.buffer);
      Value current = bufferOf(b, loc, p.ring, slot);
      // (A transposed view of a ring's buffer is as mutable as the ring.)
      tilegpu::replaceBuffer(p.buffer.getResult(), current);
      p.buffer.erase();
      p.load->erase();
    }
    for (unsigned index : stage_.carried)
      yield->setOperand(index, mapping.lookupOrDefault(yield.getOperand(index)));
    // The originals of the stage that nothing reads any more.
    stage_.eraseUnused(body);

    b.setInsertionPoint(yield);
    Value next = b.create<arith::AddIOp>(loc, slot, b.create<arith::ConstantIntOp>(loc, i32, 1));
    Value wraps = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, next,
        b.create<arith::ConstantIntOp>(loc, i32, ringSize_));
    Value nextSlot =
        b.create<arith::SelectOp>(loc, wraps, b.create<arith::ConstantIntOp>(loc, i32, 0), next);
    if (!phase)
      return {nextSlot};
    // Each wrap around the ring starts the barriers' next phase.
    Value flipped =
        b.create<arith::XOrIOp>(loc, phase, b.create<arith::ConstantIntOp>(loc, i32, 1));
    return {nextSlot, b.create<arith::SelectOp>(loc, wraps, flipped, phase)};
  }

  scf::ForOp loop_;
  SmallVector<PipelinedLoad> loads_;
  LoadAddressStage stage_;
  unsigned numStages_;
  unsigned ringSize_;
  SmallVector<AsyncDot> asyncDots_;
  bool hasAsyncCopies_; ///< some load is copied by cp.async
  bool hasTMACopies_;   ///< some load is copied by TMA
  /// The slots' mbarriers (a ring of i64), when some load is a TMA copy.
  Value barriers_;
};

struct TileGPUPipelineLoadsPass
    : tilec::impl::TileGPUPipelineLoadsBase<TileGPUPipelineLoadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TargetInfo> target =
        getModuleTarget(module, "tilegpu-pipeline-loads");
    if (!target)
      return signalPassFailure();
    if (!target->hasAsyncCopy())
      return; // no cp.async before sm_80
    AxisInfoAnalysis axisInfo(module);
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      pipeline(rewriter, loop, axisInfo, *target);
  }

  void pipeline(IRRewriter &rewriter, scf::ForOp loop,
                const AxisInfoAnalysis &axisInfo, const TargetInfo &target) {
    unsigned stages = getNumStages(loop, numStages);
    // (Iterations past the end are masked with a signed comparison.)
    if (stages < 2 || loop.getUnsignedCmp())
      return;
    // A loop whose stages are its own (tl.range(num_stages=...)) has every
    // load that can be copied asynchronously pipelined, as Triton does;
    // otherwise only the loads feeding dots are. The dots' loads go
    // together or not at all; each plain one joins when its address can
    // run ahead with theirs (selectPipelinedLoads, which
    // tile-prefetch-loads asks too).
    bool stagesGiven = loop->hasAttr(tile::kNumStagesAttr);
    if (!stagesGiven && mayWriteGlobalMemory(loop))
      return;
    SmallVector<PipelinedLoad> dotLoads, plainLoads;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto tma = dyn_cast<tile::TensorMapLoadOp>(op)) {
        if (std::optional<PipelinedLoad> p = asTMAPipelinedLoad(tma))
          dotLoads.push_back(*p);
        continue;
      }
      auto load = dyn_cast<tile::LoadOp>(op);
      if (!load)
        continue;
      if (std::optional<PipelinedLoad> p = asPipelinedLoad(load, axisInfo))
        dotLoads.push_back(*p);
      else if (stagesGiven)
        if (std::optional<PipelinedLoad> p = asPlainPipelinedLoad(load, axisInfo))
          plainLoads.push_back(*p);
    }
    auto choose = [&](bool withPlain, LoadAddressStage &stage) {
      SmallVector<Operation *> required, optional;
      for (PipelinedLoad &p : dotLoads)
        required.push_back(p.load);
      if (withPlain)
        for (PipelinedLoad &p : plainLoads)
          optional.push_back(p.load);
      SmallVector<Operation *> kept = selectPipelinedLoads(loop, required, optional, stage);
      SmallVector<PipelinedLoad> chosen;
      for (ArrayRef<PipelinedLoad> group : {ArrayRef(dotLoads), ArrayRef(plainLoads)})
        for (const PipelinedLoad &p : group)
          if (llvm::is_contained(kept, p.load))
            chosen.push_back(p);
      return chosen;
    };
    LoadAddressStage stage;
    SmallVector<PipelinedLoad> loads = choose(/*withPlain=*/true, stage);
    if (loads.empty()) {
      LLVM_DEBUG(llvm::dbgs() << "not pipelined: no load's address runs ahead on its own\n");
      return;
    }
    if (stagesGiven) {
      SmallVector<Operation *> chosen;
      for (const PipelinedLoad &p : loads)
        chosen.push_back(p.load);
      if (mayWriteWhatLoadsRead(loop, chosen)) {
        LLVM_DEBUG(llvm::dbgs() << "not pipelined: the loop may write what it reads\n");
        return;
      }
    }
    // Fewer stages where the rings would not fit beside what the body
    // itself needs in shared memory: the most bytes its buffers and its
    // ops' scratch (a layout conversion's, a reduction's) hold at once, by
    // the lifetimes the allocator places them by. A persistent matmul's
    // epilogue converts its tile in the loop (in pieces that share bytes,
    // where it is written so). Buffers alive around the loop (an outer
    // loop's rings) are not counted: with them the allocator may still
    // report the kernel too big for the target. Plain loads' rings go
    // first: they are not to cost the dots' operands their stages.
    auto stagesThatFit = [&](ArrayRef<PipelinedLoad> chosen, bool asyncDots) {
      int64_t bodyBytes = sharedBytesAtOnce(loop, [&](Operation *owner) {
        return llvm::none_of(chosen, [&](PipelinedLoad p) {
          return p.buffer && p.buffer.getOperation() == owner;
        });
      });
      int64_t available = int64_t(target.maxSharedBytesPerBlock) - bodyBytes;
      int64_t perStage = 0;
      for (const PipelinedLoad &p : chosen)
        perStage += p.bufferType.getSizeInBytes();
      // (A slot of TMA copies also has its 8-byte mbarrier.)
      if (llvm::any_of(chosen, [](const PipelinedLoad &p) { return p.isTMA(); }))
        perStage += 8;
      return available / perStage - (asyncDots ? 1 : 0);
    };
    SmallVector<AsyncDot> asyncDots = asynchronousDots(loop, loads);
    bool anyPlain = llvm::any_of(loads, [](const PipelinedLoad &p) { return p.isPlain(); });
    if (anyPlain && !dotLoads.empty() &&
        stagesThatFit(loads, !asyncDots.empty()) < int64_t(stages)) {
      loads = choose(/*withPlain=*/false, stage);
      if (loads.empty())
        return;
      asyncDots = asynchronousDots(loop, loads);
    }
    // (Signed: a single stage too big leaves fewer than none that fit,
    // and then the loop is not pipelined.)
    int64_t fit = std::min<int64_t>(stages, stagesThatFit(loads, !asyncDots.empty()));
    if (fit < 2)
      return;
    stages = unsigned(fit);
    LoopPipeliner(loop, std::move(loads), std::move(stage), stages,
                  std::move(asyncDots))
        .run(rewriter);
  }
};
} // namespace
