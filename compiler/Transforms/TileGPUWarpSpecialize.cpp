// tilegpu-warp-specialize: a loop marked tl.range(..., warp_specialize=True)
// (tile.warp_specialize) whose dot operands are TMA reads gets a producer
// warpgroup of its own, as CUTLASS and Triton build Hopper matmuls:
//
//   rings (S buffers per operand), full[S] and empty[S] mbarriers, all
//   initialised at the kernel's entry (full: 1 arrival, the expect;
//   empty: one per consumer warp), then a CTA barrier
//   scf.if (warp_id >= num_warps) {            // the producer warpgroup
//     set_max_registers 40                      // gives its registers back
//     scf.if (warp_id == num_warps) {           // its first warp
//       <the pure ops the loop's bounds and the blocks' coordinates need>
//       for i (slot, phase):
//         <the coordinates of iteration i>
//         wait_barrier empty[slot], phase ^ 1  // the consumers freed it
//         barrier_expect full[slot], bytes      // lane 0
//         async_tma_copy ... -> ring[slot], full[slot] (lane 0)
//     }
//   } else {                                   // the num_warps consumers
//     set_max_registers N {increase}            // take them
//     <the kernel as it was, the loop's TMA reads replaced:>
//     for i (slot, phase):
//       wait_barrier full[slot], phase         // the blocks landed
//       ... dots read ring[slot] (pending = 1) ...
//       if (i != first)                         // once per warp, after them:
//         arrive_barrier empty[slot - 1]        //   iteration i-1's dots are done
//     warp_group_dot_wait {pending = 0}
//     inval the barriers
//   }
//
// The dots stay in flight into the next iteration (AsyncDots.h) where
// nothing but the next iteration and an epilogue reads their result, as
// in tilegpu-pipeline-loads: each waits for the previous iteration's
// instructions, not its own, and then frees the slot those read. The
// rings get a slot more than the loop's stages for the blocks the dots in
// flight still read. Otherwise (A in registers, fp8 adding in f32) each
// iteration frees its own slot after its dots.
//
// The producer runs up to S iterations ahead of the consumers (S - 1 with
// the dots in flight, one slot being theirs), across
// anything they do between the dots (a persistent kernel's epilogue), and
// the consumers no longer compute addresses or meet at a CTA barrier per
// iteration: the mbarriers order everything. The block starts with the
// whole register file (.maxnreg, warpSpecializedRegisters); the producer
// keeps 40 per thread and the consumers take the rest (232 for 8 warps),
// which a 128 x 256 tile needs.
//
// The producer repeats scalar arithmetic only (a tensor op's lowering may
// need a barrier of the consumers), and starts copying as soon as the warps
// split: a store, atomic or volatile load before the loop is refused, as
// the copies would no longer wait for it. A wait for the grid launched
// before this one (tl.extra.cuda.gdc_wait) at the kernel's top level moves
// ahead of the split, so that the producer waits too; one inside the loop
// or inside an if before it is refused. The outer scf.if carries
// tilegpu.warp_roles: tilegpu-insert-barriers leaves the producer alone
// and makes the consumers' barriers named barriers of their threads. The
// module's tilegpu.producer_warps (4) grows the block by one warpgroup.
//
// With tl.range(..., num_consumer_groups=G) the consumers are G groups of
// num_warps warps taking turns at the loop's tiles (a tile ends where the
// dots' accumulators are reset): each walks every iteration and works in
// its turns only, holding its own accumulators, freeing its slots as the
// single group does and a tile's last slot at the tile's end; group g is
// warp / num_warps, and the code after the loop runs in group 0
// (ConsumerGroups.h; docs/pipeline.md). The lowering numbers each group's
// threads from 0 and gives it named barrier 1 + g; the shared allocator
// gives it its own copy of the consumers' buffers.
//
// Where it does not apply (before sm_90a; a loop whose dot operands are not
// all TMA reads wgmma reads: pointer loads, descriptors a debug compile or
// `tilec aot` reads through pointers, dots on mma.sync) the attribute is
// dropped and the loop
// pipelines as any other. A marked loop of TMA reads that cannot be
// specialised (coordinates that need a load or a store, a loop inside
// another, a store through what the descriptors read, num_warps not whole
// warpgroups) is a located error: the flag is a request for this schedule.
#include "compiler/Analysis/SharedLifetimes.h"
#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/TensorMap.h"
#include "compiler/Transforms/AsyncDots.h"
#include "compiler/Transforms/ConsumerGroups.h"
#include "compiler/Transforms/LoopUtils.h"
#include "compiler/Transforms/Passes.h"
#include "compiler/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUWARPSPECIALIZE
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// The producer is a whole warpgroup, as setmaxnreg needs.
constexpr unsigned kWarpsPerGroup = 4;

/// A TMA read of a dot operand and the buffer it fills, which becomes a
/// ring.
struct ProducedLoad {
  tile::TensorMapLoadOp load;
  tilegpu::LocalAllocOp buffer;
  Value ring;
};

/// The buffer `load` fills when wgmma reads it as TMA writes it: its one
/// user, a local_alloc in its block in TMA's layout, read only by
/// warp_group_dots (directly or through memdesc_trans). (Clusters rely on
/// it: slots freed to peers at CTA scope, ArriveBarrierLowering, are sound
/// only while wgmma alone reads them.)
tilegpu::LocalAllocOp dotBufferOf(tile::TensorMapLoadOp load) {
  if (!load->hasOneUse())
    return {};
  auto buffer = dyn_cast<tilegpu::LocalAllocOp>(*load->getUsers().begin());
  if (!buffer || buffer->getBlock() != load->getBlock())
    return {};
  RankedTensorType type = load.getResult().getType();
  std::optional<TMABlockLayout> layout =
      tilegpu::getTMABlockLayout(type.getShape(), type.getElementType());
  if (!layout ||
      buffer.getType().getEncoding() !=
          tilegpu::getTMABufferEncoding(load.getContext(), *layout, type.getElementType()))
    return {};
  for (Operation *user : buffer->getUsers()) {
    if (auto view = dyn_cast<tilegpu::MemDescTransOp>(user)) {
      if (!llvm::all_of(view->getUsers(),
                        [](Operation *op) { return isa<tilegpu::WarpGroupDotOp>(op); }))
        return {};
    } else if (!isa<tilegpu::WarpGroupDotOp>(user)) {
      return {};
    }
  }
  return buffer;
}

/// The ops of `block` that `op`'s operands come from, transitively, into
/// `slice`; false when one of them is not scalar arithmetic (it could not
/// move ahead of the warps' split).
bool scalarSliceIn(Operation *op, Block *block, llvm::SetVector<Operation *> &slice) {
  SmallVector<Value> work(op->getOperands());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != block || slice.contains(def))
      continue;
    if (!isScalarArithmetic(def))
      return false;
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  return true;
}

/// The slot after `slot` in a ring of `size`, and the phase parity after
/// `phase` (flipped where the ring wraps).
std::pair<Value, Value> advance(OpBuilder &b, Location loc, Value slot, Value phase,
                                unsigned size) {
  auto [nextSlot, wraps] = nextModulo(b, loc, slot, size);
  Value flipped = b.create<arith::XOrIOp>(loc, phase, i32Value(b, loc, 1));
  return {nextSlot, b.create<arith::SelectOp>(loc, wraps, flipped, phase)};
}

/// Whether values are the same in every CTA of a cluster along axis 0:
/// built by scalar arithmetic from constants, the kernel's arguments, the
/// cluster's id and size, the grid, the other axes' program ids and
/// `loop`'s index (where its bounds are such values). A block read at such
/// coordinates is the same block in every CTA of the cluster, which its
/// producers can share (multicast). Values the loop carries count as the
/// CTA's own: deciding them would take a fixpoint over the loop, and the
/// blocks' coordinates come from the index.
class ClusterUniformity {
public:
  explicit ClusterUniformity(scf::ForOp loop) : loop_(loop) {}

  bool isUniform(Value v) {
    if (auto known = known_.find(v); known != known_.end())
      return known->second;
    bool uniform = decide(v);
    known_[v] = uniform;
    return uniform;
  }

private:
  bool decide(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Block *owner = arg.getOwner();
      if (owner->isEntryBlock() && isa<func::FuncOp>(owner->getParentOp()))
        return true; // a kernel argument
      return arg == loop_.getInductionVar() && isUniform(loop_.getLowerBound()) &&
             isUniform(loop_.getStep());
    }
    Operation *def = v.getDefiningOp();
    if (auto pid = dyn_cast<tile::ProgramIdOp>(def))
      return pid.getAxis() != 0;
    if (isa<tile::ClusterCtaRankOp>(def))
      return false;
    if (isa<tile::ClusterIdOp, tile::ClusterSizeOp, tile::NumProgramsOp>(def))
      return true;
    if (!isScalarArithmetic(def))
      return false; // a load, a region's result: not known alike
    return llvm::all_of(def->getOperands(), [&](Value operand) { return isUniform(operand); });
  }

  scf::ForOp loop_;
  llvm::DenseMap<Value, bool> known_;
};

/// A located error (reported as the diagnostic goes out of scope).
FailureOr<bool> refuse(InFlightDiagnostic &&) { return failure(); }

struct TileGPUWarpSpecializePass
    : tilec::impl::TileGPUWarpSpecializeBase<TileGPUWarpSpecializePass> {
  using TileGPUWarpSpecializeBase::TileGPUWarpSpecializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForOp> marked;
    module.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tile::kWarpSpecializeAttr))
        marked.push_back(loop);
    });
    if (marked.empty())
      return;
    std::optional<TargetInfo> target = getModuleTarget(module, "tilegpu-warp-specialize");
    if (!target)
      return signalPassFailure();
    if (!target->hasWgmma()) {
      for (scf::ForOp loop : marked) {
        loop->removeAttr(tile::kWarpSpecializeAttr);
        loop->removeAttr(tile::kNumConsumerGroupsAttr);
        loop->removeAttr(tile::kNumCtasAttr);
      }
      return;
    }
    llvm::SmallPtrSet<Operation *, 2> kernels;
    for (scf::ForOp loop : marked) {
      auto kernel = loop->getParentOfType<func::FuncOp>();
      if (kernels.contains(kernel)) {
        loop.emitError("warp_specialize: one loop per kernel can have a producer warp");
        return signalPassFailure();
      }
      FailureOr<bool> specialized = specialize(loop, kernel, *target);
      if (failed(specialized))
        return signalPassFailure();
      if (*specialized)
        kernels.insert(kernel);
    }
    if (!kernels.empty())
      module->setAttr(tilegpu::kProducerWarpsAttr,
                      IntegerAttr::get(IntegerType::get(&getContext(), 32), kWarpsPerGroup));
  }

  /// Specialises `loop`; false where it does not apply (the mark dropped).
  FailureOr<bool> specialize(scf::ForOp loop, func::FuncOp kernel, const TargetInfo &target) {
    Block *entry = &kernel.getBody().front();
    if (loop->getBlock() != entry)
      return refuse(loop.emitError("warp_specialize: the loop must be at the kernel's top level, "
                                   "not inside another loop or an if"));
    SmallVector<ProducedLoad> loads;
    SmallVector<Operation *> loadOps;
    bool pointerOperand = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (auto tma = dyn_cast<tile::TensorMapLoadOp>(op)) {
        if (tilegpu::LocalAllocOp buffer = dotBufferOf(tma)) {
          loads.push_back({tma, buffer, Value()});
          loadOps.push_back(tma);
        }
      } else if (auto plain = dyn_cast<tile::LoadOp>(op)) {
        pointerOperand |= llvm::any_of(
            plain->getUsers(), [](Operation *user) { return isa<tilegpu::LocalAllocOp>(user); });
      }
    }
    // Without TMA reads of every dot operand (pointer loads, or descriptors
    // read through pointers: a debug compile, `tilec aot`) there is nothing
    // for a producer warp to issue: the loop pipelines as any other.
    if (loads.empty() || pointerOperand) {
      loop->removeAttr(tile::kWarpSpecializeAttr);
      loop->removeAttr(tile::kNumConsumerGroupsAttr);
      loop->removeAttr(tile::kNumCtasAttr);
      return false;
    }
    LoadAddressStage stage;
    if (!stage.collect(loop, loadOps) || !stage.isSelfContained(loop, loadOps))
      return refuse(loop.emitError("warp_specialize: the blocks' coordinates must be computed "
                                   "from the loop's index and values before the loop, by "
                                   "arithmetic alone"));
    // The producer starts its copies as soon as the warps split: nothing
    // the kernel does before the loop may order memory before them.
    for (Operation &op : *entry) {
      if (&op == loop.getOperation())
        break;
      WalkResult ordered = op.walk([](Operation *inner) {
        auto load = dyn_cast<tile::LoadOp>(inner);
        return isa<tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp, tilegpu::TMAStoreOp>(
                   inner) ||
                       (load && load.getIsVolatile())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (ordered.wasInterrupted())
        return refuse(op.emitError("warp_specialize: the producer warpgroup would copy the "
                                   "loop's blocks before this store, atomic or volatile load "
                                   "finishes; move it after the loop"));
    }
    // A wait for the grid before this one (tl.extra.cuda.gdc_wait) must
    // hold the producer's copies back too: one at the kernel's top level
    // before the loop moves ahead of the split (below); anywhere else the
    // producer, which repeats only the coordinates, would copy without it.
    // (The L2 prefetches at that level, which ask before the wait for what
    // the kernel before does not write, go ahead of the split with the
    // waits, in the order written, where their operands can: below.)
    SmallVector<Operation *> aheadOfSplit;
    for (Operation &op : *entry) {
      if (&op == loop.getOperation())
        break;
      if (isa<tile::GridDependencyWaitOp, tile::PrefetchL2Op>(op)) {
        aheadOfSplit.push_back(&op);
        continue;
      }
      WalkResult nested =
          op.walk([](tile::GridDependencyWaitOp) { return WalkResult::interrupt(); });
      if (nested.wasInterrupted())
        return refuse(op.emitError("warp_specialize: tl.extra.cuda.gdc_wait inside an if or "
                                   "a loop before the loop would not hold the producer "
                                   "warpgroup's copies back; call it at the kernel's top level"));
    }
    if (loop.getBody()
            ->walk([](tile::GridDependencyWaitOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return refuse(loop.emitError("warp_specialize: tl.extra.cuda.gdc_wait inside the loop "
                                   "would not hold the producer warpgroup's copies back; call "
                                   "it before the loop"));
    for (Operation *op : stage.ops)
      if (llvm::any_of(op->getResultTypes(), [](Type t) { return isa<ShapedType>(t); }))
        return refuse(op->emitError("warp_specialize: the blocks' coordinates must be scalar "
                                    "arithmetic"));
    if (mayWriteWhatLoadsRead(loop, loadOps))
      return refuse(loop.emitError("warp_specialize: the loop may write what its descriptors "
                                   "read (a store through the same tensor, or an acquiring "
                                   "atomic), which a producer running ahead would miss"));
    // The values the producer repeats: the loop's bounds and what the
    // coordinates take from before the loop.
    llvm::SetVector<Operation *> slice;
    SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
    for (Operation *op : stage.ops)
      llvm::append_range(work, op->getOperands());
    auto loopYield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (unsigned index : stage.carried) {
      work.push_back(loop.getInitArgs()[index]);
      work.push_back(loopYield.getOperand(index)); // (one defined before the loop)
    }
    for (ProducedLoad &p : loads)
      llvm::append_range(work, p.load->getOperands());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || loop->isAncestor(def))
        continue; // an argument of the kernel, or computed in the loop
      if (def->getBlock() != entry)
        return refuse(loop.emitError("warp_specialize: the blocks' coordinates use a value "
                                     "computed inside an if or a loop before this loop"));
      if (!isScalarArithmetic(def))
        return refuse(def->emitError("warp_specialize: the loop's bounds or the blocks' "
                                     "coordinates depend on this, which the producer "
                                     "warpgroup cannot repeat (scalar arithmetic only)"));
      if (slice.insert(def))
        llvm::append_range(work, def->getOperands());
    }

    // The dots may stay in flight into the next iteration (pending = 1)
    // where nothing else needs their result in their own: each iteration
    // then frees the slot the previous one read, once its dots are done.
    SmallVector<tilegpu::WarpGroupDotOp> dots;
    for (ProducedLoad &p : loads)
      for (Operation *user : p.buffer->getUsers()) {
        SmallVector<Operation *> readers{user};
        if (isa<tilegpu::MemDescTransOp>(user))
          readers.assign(user->getUsers().begin(), user->getUsers().end());
        for (Operation *reader : readers)
          if (!llvm::is_contained(dots, reader))
            dots.push_back(cast<tilegpu::WarpGroupDotOp>(reader));
      }
    SmallVector<AsyncDot> async = asynchronousDots(loop, dots, [&](Value buffer) {
      return llvm::any_of(loads, [&](ProducedLoad &p) { return buffer == p.buffer.getResult(); });
    });

    // Consumer groups take turns at the loop's tiles (ConsumerGroups.h).
    unsigned groups = 1;
    if (auto attr = loop->getAttrOfType<IntegerAttr>(tile::kNumConsumerGroupsAttr))
      groups = unsigned(attr.getInt());
    Value tileEnd;
    if (groups > 1) {
      FailureOr<Value> shared = tilesToShare(loop, dots, stage.carried.getArrayRef(), groups);
      if (failed(shared))
        return failure();
      tileEnd = *shared;
    }

    // Clusters (tl.range(..., num_ctas=N)): a block every CTA of the
    // cluster reads at the same coordinates, through the same map, is
    // copied once per cluster, each CTA's producer multicasting its share
    // of the block's columns to all (so the block must have a multiple of
    // N columns of the swizzle).
    unsigned ctas = 1;
    if (auto attr = loop->getAttrOfType<IntegerAttr>(tile::kNumCtasAttr))
      ctas = unsigned(attr.getInt());
    if (ctas > 1 && groups > 1)
      return refuse(loop.emitError("warp_specialize: num_ctas > 1 with num_consumer_groups > 1 "
                                   "is not supported"));
    llvm::SmallPtrSet<Operation *, 4> multicast;
    ClusterUniformity uniformity(loop);
    // (Every CTA of the cluster must walk the same iterations, or one
    // would wait for a peer's share of a block the peer never copies.)
    if (ctas > 1 && uniformity.isUniform(loop.getLowerBound()) &&
        uniformity.isUniform(loop.getUpperBound()) && uniformity.isUniform(loop.getStep())) {
      for (ProducedLoad &p : loads) {
        RankedTensorType type = p.load.getResult().getType();
        std::optional<TMABlockLayout> layout =
            tilegpu::getTMABlockLayout(type.getShape(), type.getElementType());
        auto uniform = [&](Value v) { return uniformity.isUniform(v); };
        if (layout && layout->copies % ctas == 0 && uniform(p.load.getMap()) &&
            llvm::all_of(p.load.getOffsets(), uniform))
          multicast.insert(p.load);
      }
    }

    // Stages: the loop's (and, with the dots in flight, a slot for the
    // blocks they still read), fewer where the rings would not fit beside
    // the kernel's other buffers and its largest scratch (the rings live
    // through all of it).
    unsigned stages = getNumStages(loop, numStages);
    int64_t perStage = 16; // the slot's two mbarriers
    for (ProducedLoad &p : loads)
      perStage += p.buffer.getType().getSizeInBytes();
    int64_t otherBytes = sharedBytesAtOnce(kernel, [&](Operation *owner) {
      return llvm::none_of(loads, [&](ProducedLoad &p) { return p.buffer == owner; });
    });
    int64_t available = int64_t(target.maxSharedBytesPerBlock) - otherBytes;
    if (groups > 1) {
      // Each consumer group has its own copy of the other buffers, in 1024-
      // byte steps after the rings, their mbarriers and the groups' own
      // (tilegpu-allocate-shared), all aligned to 1024 bytes.
      int64_t copies = int64_t(groups) * int64_t(llvm::alignTo(otherBytes, 1024));
      available = int64_t(llvm::alignDown(
                      std::max<int64_t>(0, target.maxSharedBytesPerBlock - copies), 1024)) -
                  8 * int64_t(groups);
    }
    unsigned wanted = std::max(2u, stages) + (async.empty() ? 0 : 1);
    stages = unsigned(std::clamp<int64_t>(available / perStage, 1, wanted));
    // (Two slots with a dot in flight would leave the producer nothing to
    // copy ahead: the dots wait for their own instructions instead.)
    if (stages < 3)
      async.clear();
    if (stages < 2)
      return refuse(loop.emitError("warp_specialize: not even two stages of the loop's blocks (")
                    << perStage << " bytes each) fit the " << target.maxSharedBytesPerBlock
                    << " bytes of shared memory a block may have");

    unsigned warps = tilegpu::getNumWarps(loop->getParentOfType<ModuleOp>());
    if (warps % kWarpsPerGroup)
      return refuse(loop.emitError("warp_specialize: num_warps must be whole warpgroups "
                                   "(a multiple of 4), not ")
                    << warps);
    // (A slot a peer multicasts into is free once the consumers of every
    // CTA of the cluster have read it.)
    unsigned emptyArrivals = warps * (multicast.empty() ? 1 : ctas);
    // The consumers: `groups` groups of num_warps warps.
    unsigned consumerWarps = warps * groups;
    if (consumerWarps + kWarpsPerGroup > 32)
      return refuse(loop.emitError("warp_specialize: ")
                    << groups << " consumer groups of " << warps
                    << " warps and the producer warpgroup are more than the 32 warps of a "
                       "block");
    // The registers: the block starts with the whole file; the producer
    // warpgroup gives all but a few back, the consumers take them.
    unsigned blockThreads = (consumerWarps + kWarpsPerGroup) * 32;
    int64_t pool = int64_t(tilegpu::warpSpecializedRegisters(blockThreads)) * blockThreads;
    // (Never fewer than the launch gave: setmaxnreg.inc may only grow.)
    unsigned launched = tilegpu::warpSpecializedRegisters(blockThreads);
    int64_t share =
        (pool - int64_t(tilegpu::kProducerRegisters) * kWarpsPerGroup * 32) /
        (consumerWarps * 32);
    unsigned consumerRegisters =
        unsigned(std::max<int64_t>(launched, std::min<int64_t>(248, share / 8 * 8)));
    Location loc = loop.getLoc();
    MLIRContext *ctx = loop.getContext();
    IRRewriter b(ctx);

    // The rings and barriers, before both roles.
    b.setInsertionPointToStart(entry);
    for (ProducedLoad &p : loads) {
      tilegpu::MemDescType one = p.buffer.getType();
      SmallVector<int64_t> shape{int64_t(stages)};
      llvm::append_range(shape, one.getShape());
      p.ring = b.create<tilegpu::LocalAllocOp>(
          loc,
          tilegpu::MemDescType::get(ctx, shape, one.getElementType(), one.getEncoding(),
                                    /*mutableMemory=*/true),
          Value());
    }
    Value full =
        b.create<tilegpu::LocalAllocOp>(loc, tilegpu::getBarrierType(ctx, stages), Value());
    Value empty =
        b.create<tilegpu::LocalAllocOp>(loc, tilegpu::getBarrierType(ctx, stages), Value());
    for (unsigned s = 0; s < stages; ++s) {
      b.create<tilegpu::InitBarrierOp>(loc, ringSlot(b, loc, full, i32Value(b, loc, s)), 1);
      b.create<tilegpu::InitBarrierOp>(loc, ringSlot(b, loc, empty, i32Value(b, loc, s)),
                                       emptyArrivals);
    }
    // With consumer groups, group g's mbarrier of the order ring completes
    // a phase when the group before it has seen the last blocks of its tile
    // land (ConsumerGroups.h).
    Value order;
    if (groups > 1) {
      order = b.create<tilegpu::LocalAllocOp>(loc, tilegpu::getBarrierType(ctx, groups), Value());
      for (unsigned g = 0; g < groups; ++g)
        b.create<tilegpu::InitBarrierOp>(loc, ringSlot(b, loc, order, i32Value(b, loc, g)),
                                         warps);
    }
    b.create<tilegpu::BarrierOp>(loc);
    // (Every CTA's mbarriers are initialised before any peer copies or
    // arrives on them.)
    if (ctas > 1)
      b.create<tilegpu::ClusterBarrierOp>(loc);
    Value warp = b.create<tilegpu::WarpIdOp>(loc, b.getI32Type());
    Value isProducer = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, warp,
                                               i32Value(b, loc, consumerWarps));
    auto roles = b.create<scf::IfOp>(loc, isProducer, /*withElseRegion=*/true);
    roles->setAttr(tilegpu::kWarpRolesAttr, b.getUnitAttr());

    // The consumers: everything the kernel did, from after the split to
    // its return.
    Block *consumer = roles.elseBlock();
    Operation *consumerEnd = consumer->getTerminator();
    for (Operation &op : llvm::make_early_inc_range(
             llvm::make_range(std::next(roles->getIterator()), entry->end())))
      if (!op.hasTrait<OpTrait::IsTerminator>())
        op.moveBefore(consumerEnd);
    // With clusters no CTA ends while a peer may still copy into its shared
    // memory or arrive on its mbarriers: both roles meet the peers last.
    if (ctas > 1) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(entry->getTerminator());
      b.create<tilegpu::ClusterBarrierOp>(loc);
    }
    // Every warp waits for the grid before this one before the roles part
    // (waiting earlier than written only waits longer). A prefetch there
    // goes along with the scalar arithmetic of its range, so that it still
    // asks before the wait; one whose range needs more stays where it was
    // (a hint asked later).
    for (Operation *op : aheadOfSplit) {
      if (isa<tile::PrefetchL2Op>(op)) {
        llvm::SetVector<Operation *> range;
        if (!scalarSliceIn(op, consumer, range))
          continue;
        for (Operation &def : llvm::make_early_inc_range(*consumer))
          if (range.contains(&def))
            def.moveBefore(roles);
      }
      op->moveBefore(roles);
    }

    int64_t bytes = 0;
    for (ProducedLoad &p : loads)
      bytes += p.buffer.getType().getSizeInBytes();

    // The consumers take the registers the producer gives back.
    b.setInsertionPointToStart(consumer);
    b.create<tilegpu::SetMaxRegistersOp>(loc, consumerRegisters, /*increase=*/true);

    // The producer warpgroup gives its registers back; its first warp
    // repeats the slice, then a loop of the same iterations issuing the
    // copies into the slots the consumers have freed.
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    b.create<tilegpu::SetMaxRegistersOp>(loc, tilegpu::kProducerRegisters, /*increase=*/false);
    Value firstWarp = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, warp,
                                              i32Value(b, loc, consumerWarps));
    auto issuer = b.create<scf::IfOp>(loc, firstWarp, /*withElseRegion=*/false);
    b.setInsertionPoint(issuer.thenBlock()->getTerminator());
    IRMapping mapping;
    for (Operation &op : *consumer)
      if (slice.contains(&op))
        b.clone(op, mapping);
    SmallVector<Value> inits{i32Value(b, loc, 0), i32Value(b, loc, 0)};
    for (unsigned index : stage.carried)
      inits.push_back(mapping.lookupOrDefault(loop.getInitArgs()[index]));
    auto produce = b.create<scf::ForOp>(loc, mapping.lookupOrDefault(loop.getLowerBound()),
                                        mapping.lookupOrDefault(loop.getUpperBound()),
                                        mapping.lookupOrDefault(loop.getStep()), inits);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(produce.getBody());
      Value slot = produce.getRegionIterArgs()[0], phase = produce.getRegionIterArgs()[1];
      mapping.map(loop.getInductionVar(), produce.getInductionVar());
      for (auto [k, index] : llvm::enumerate(stage.carried))
        mapping.map(loop.getRegionIterArgs()[index], produce.getRegionIterArgs()[2 + k]);
      stage.clone(b, loop, mapping);
      Value freed = b.create<arith::XOrIOp>(loc, phase, i32Value(b, loc, 1));
      b.create<tilegpu::WaitBarrierOp>(loc, ringSlot(b, loc, empty, slot), freed);
      Value on = b.create<arith::ConstantIntOp>(loc, b.getI1Type(), 1);
      Value barrier = ringSlot(b, loc, full, slot);
      auto expect = b.create<tilegpu::BarrierExpectOp>(loc, barrier, int32_t(bytes), on);
      expect->setAttr(tilegpu::kLaneZeroAttr, b.getUnitAttr());
      for (ProducedLoad &p : loads) {
        SmallVector<Value> coords;
        for (Value offset : p.load.getOffsets())
          coords.push_back(mapping.lookupOrDefault(offset));
        auto copy = b.create<tilegpu::AsyncTMACopyGlobalToLocalOp>(
            loc, mapping.lookupOrDefault(p.load.getMap()), coords, ringSlot(b, loc, p.ring, slot),
            barrier, on);
        copy->setAttr(tilegpu::kLaneZeroAttr, b.getUnitAttr());
        if (multicast.contains(p.load))
          copy->setAttr(tilegpu::kMulticastAttr, b.getUnitAttr());
      }
      auto [nextSlot, nextPhase] = advance(b, loc, slot, phase, stages);
      SmallVector<Value> yields{nextSlot, nextPhase};
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (unsigned index : stage.carried)
        yields.push_back(mapping.lookupOrDefault(yield.getOperand(index)));
      b.create<scf::YieldOp>(loc, yields);
    }

    // The consumers' loop: wait for the slot's blocks, read them where
    // they landed, free the slot after the last dot reading it.
    Operation *lastReader = nullptr;
    auto consider = [&](Operation *user) {
      Operation *top = loop.getBody()->findAncestorOpInBlock(*user);
      if (top && (!lastReader || lastReader->isBeforeInBlock(top)))
        lastReader = top;
    };
    for (ProducedLoad &p : loads)
      for (Operation *user : p.buffer->getUsers()) {
        consider(user);
        if (isa<tilegpu::MemDescTransOp>(user))
          for (Operation *dot : user->getUsers())
            consider(dot);
      }
    b.setInsertionPoint(loop);
    // (slot, phase), and with consumer groups (held, turn, starts, order
    // phase): the slot whose dots may still be in flight (-1: none), the
    // group whose tile it is, whether the iteration starts a tile, and the
    // parity of the group's next wait on the order ring.
    SmallVector<Value> zeros{i32Value(b, loc, 0), i32Value(b, loc, 0)};
    if (groups > 1) {
      zeros.push_back(i32Value(b, loc, -1));
      zeros.push_back(i32Value(b, loc, 0));
      zeros.push_back(b.create<arith::ConstantIntOp>(loc, b.getI1Type(), 1));
      zeros.push_back(i32Value(b, loc, 0));
    }
    Operation *releaseAfter = lastReader;
    auto rebuilt =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                b, zeros, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &ib, Location l, ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                  Value slot = args[0], phase = args[1];
                  Block *body = args[0].getOwner();
                  ib.setInsertionPointToStart(body);
                  ib.create<tilegpu::WaitBarrierOp>(l, ringSlot(ib, l, full, slot), phase);
                  for (ProducedLoad &p : loads) {
                    ib.setInsertionPoint(p.buffer);
                    tilegpu::replaceBuffer(p.buffer.getResult(), ringSlot(ib, l, p.ring, slot));
                  }
                  ib.setInsertionPointAfter(releaseAfter);
                  Value held;
                  if (async.empty()) {
                    ib.create<tilegpu::ArriveBarrierOp>(l, ringSlot(ib, l, empty, slot));
                    if (groups > 1)
                      held = args[2]; // (never any)
                  } else if (groups > 1) {
                    // The dots wait for the group's previous iteration's
                    // instructions: its slot, where one is held, is free
                    // from here.
                    Value holds = ib.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, args[2],
                                                           i32Value(ib, l, 0));
                    auto release = ib.create<scf::IfOp>(l, holds, /*withElseRegion=*/false);
                    ib.setInsertionPoint(release.thenBlock()->getTerminator());
                    ib.create<tilegpu::ArriveBarrierOp>(l, ringSlot(ib, l, empty, args[2]));
                    held = slot;
                  } else {
                    // The dots wait for the previous iteration's
                    // instructions: its slot is free from here (the first
                    // iteration has none to free).
                    Value later = ib.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne,
                                                           body->getArgument(0),
                                                           loop.getLowerBound());
                    Value atStart = ib.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, slot,
                                                             i32Value(ib, l, 0));
                    Value previous = ib.create<arith::SelectOp>(
                        l, atStart, i32Value(ib, l, stages - 1),
                        ib.create<arith::SubIOp>(l, slot, i32Value(ib, l, 1)));
                    auto release = ib.create<scf::IfOp>(l, later, /*withElseRegion=*/false);
                    ib.setInsertionPoint(release.thenBlock()->getTerminator());
                    ib.create<tilegpu::ArriveBarrierOp>(l, ringSlot(ib, l, empty, previous));
                  }
                  ib.setInsertionPoint(body->getTerminator());
                  auto [nextSlot, nextPhase] = advance(ib, l, slot, phase, stages);
                  if (groups == 1)
                    return {nextSlot, nextPhase};
                  // (The turn, the order, and the release at a tile's end,
                  // come last, once the epilogue is rewritten: shareTiles.)
                  return {nextSlot, nextPhase, held, args[3], args[4], args[5]};
                });
    if (failed(rebuilt)) {
      loop.emitError("warp_specialize: the loop could not take its slot and phase");
      return failure();
    }
    auto consumerLoop = cast<scf::ForOp>(rebuilt->getOperation());
    for (ProducedLoad &p : loads) {
      p.buffer.erase();
      p.load.erase();
    }
    consumerLoop->removeAttr(tile::kWarpSpecializeAttr);
    consumerLoop->removeAttr(tile::kNumConsumerGroupsAttr);
    consumerLoop->removeAttr(tile::kNumCtasAttr);
    consumerLoop->removeAttr(tile::kNumStagesAttr);
    // The address stage's ops that only the copies read.
    stage.eraseUnused(consumerLoop.getBody());
    // The last dots' instructions end after the loop, before anything
    // reads their accumulators.
    b.setInsertionPointAfter(consumerLoop);
    leaveDotsInFlight(b, consumerLoop, async, /*waitAfter=*/groups == 1);
    if (ctas > 1) {
      // Each warp frees its slots in every CTA of the cluster.
      if (!multicast.empty())
        consumerLoop.walk([&](tilegpu::ArriveBarrierOp arrive) {
          if (tilegpu::viewedBuffer(arrive.getBarrier()) == empty)
            arrive->setAttr(tilegpu::kClusterArriveAttr, b.getUnitAttr());
        });
      kernel->getParentOfType<ModuleOp>()->setAttr(
          tilegpu::kClusterCtasAttr, IntegerAttr::get(b.getI32Type(), int32_t(ctas)));
    }
    if (groups == 1) {
      // Every copy has landed and been waited for once the loop ends.
      // (With multicast a peer may still arrive on this CTA's empty
      // barriers until the cluster barrier at the end: they stay valid.)
      if (!multicast.empty())
        return true;
      for (unsigned s = 0; s < stages; ++s) {
        b.create<tilegpu::InvalBarrierOp>(loc, ringSlot(b, loc, full, i32Value(b, loc, s)));
        b.create<tilegpu::InvalBarrierOp>(loc, ringSlot(b, loc, empty, i32Value(b, loc, s)));
      }
      return true;
    }

    // Consumer groups: each walks every iteration, and multiplies and
    // stores in its turns only.
    if (failed(shareTiles(b, consumerLoop, async, stage.carried.getArrayRef(),
                          {groups, warps, warp, tileEnd, full, empty, order})))
      return failure();
    kernel->getParentOfType<ModuleOp>()->setAttr(
        tilegpu::kConsumerGroupsAttr, IntegerAttr::get(b.getI32Type(), int32_t(groups)));
    return true;
  }
};

} // namespace
