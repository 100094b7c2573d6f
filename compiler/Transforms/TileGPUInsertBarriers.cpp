// tilegpu-insert-barriers: put a tilegpu.barrier wherever two shared-memory
// accesses of different threads could race, and nowhere else.
//
// Every op's shared-memory accesses are byte ranges of the arena
// tilegpu-allocate-shared laid out: a local_alloc with contents writes its
// buffer, local_store writes and local_load reads the buffer of its
// operand, an op with scratch reads and writes its scratch (its lowering
// orders its own write before its own read), a warp_group_dot reads its
// buffers (B, and A unless A is in registers), counted at the op; a view
// (memdesc_index, memdesc_trans) names its whole buffer. (With pending = 1 the tensor cores
// read on until the next dot's wait; tilegpu-pipeline-loads, which sets
// it, only refills a buffer two iterations after its dot, past that wait
// and a barrier, and tilegpu-warp-specialize's producer only once every
// consumer warp has arrived on the slot's empty barrier after that wait.) Walking the kernel in order,
// the analysis keeps the ranges read and written since the last barrier; an
// op that writes a range read or written since, or reads a range written
// since, gets a barrier before it, which empties both sets.
//
// Control flow: the regions of an op that is not a loop (the arms of an
// scf.if, the cases of an scf.index_switch) each start from the state
// before it and the state after is their union with it; a loop body starts from the union of
// the state before the loop and the state at the end of its body, found by
// iterating to a fixpoint before any barrier is placed, so that a write at
// the end of one iteration is ordered before a read at the start of the
// next. An access the analysis cannot place (a buffer that is not a
// local_alloc's result) covers the whole arena.
//
// Asynchronous copies (cp.async) write when they land, which only an
// async_wait makes known: a copy waits for a barrier like a write (others
// may still read the bytes it overwrites), but its range becomes a pending
// write at the next async_wait, not at the copy. A barrier does not end a
// copy in flight.
//
// A TMA store (tma_store) reads its buffer at the op (a barrier between
// the threads' writes and the issuing thread's copies) and then goes on
// reading it asynchronously, which neither a barrier nor the end of the
// issuing thread's program order ends: only that thread's tma_store_wait
// does. Before an op that writes those bytes (or copies into them) the
// pass puts a tma_store_wait, which makes TMA's reads ordinary reads of
// the issuing thread, and then the barrier any read before a write needs.
// So the wait comes as late as it can: a persistent kernel's TMA-stored
// tile is read out while the next tile's loop runs, and waited for at the
// next epilogue's write. A kernel that ends with reads in flight waits
// for them before it returns (its shared memory must outlive them).
//
// TMA copies (async_tma_copy_global_to_local) also wait for a barrier like
// a write before they start, but complete on an mbarrier that every thread
// waits on itself, so their writes never need one after. An mbarrier's
// word is written by init_barrier and inval_barrier (one thread) and read
// by wait_barrier (every thread): a barrier separates the init from the
// first wait, and the last wait from the inval.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#define DEBUG_TYPE "tilegpu-insert-barriers"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUINSERTBARRIERS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// A half-open byte range of the arena.
struct Range {
  int64_t begin, end;
  bool overlaps(const Range &o) const { return begin < o.end && o.begin < end; }
  bool operator==(const Range &o) const { return begin == o.begin && end == o.end; }
};

/// The ranges read and written since the last barrier, and those
/// asynchronous copies may still be writing.
struct PendingAccesses {
  SmallVector<Range> reads, writes;
  SmallVector<Range> inFlight; ///< not ended by a barrier: by async_wait
  /// Buffers TMA stores may still be reading: not ended by a barrier, by
  /// the issuing thread's tma_store_wait.
  SmallVector<Range> tmaReads;
  /// Writes of mbarrier words by the one thread that initialises and ends
  /// them (init_barrier, inval_barrier): ordered with each other by that
  /// thread's program order, with everyone else's accesses by a barrier.
  SmallVector<Range> barrierWrites;

  static bool anyOverlap(ArrayRef<Range> a, ArrayRef<Range> b) {
    for (const Range &x : a)
      for (const Range &y : b)
        if (x.overlaps(y))
          return true;
    return false;
  }
  /// True when an op with these accesses must wait for a barrier.
  bool conflicts(const PendingAccesses &op) const {
    return anyOverlap(op.writes, reads) || anyOverlap(op.writes, writes) ||
           anyOverlap(op.reads, writes) || anyOverlap(op.inFlight, reads) ||
           anyOverlap(op.inFlight, writes) || anyOverlap(op.reads, barrierWrites) ||
           anyOverlap(op.writes, barrierWrites) || anyOverlap(op.inFlight, barrierWrites) ||
           anyOverlap(op.barrierWrites, reads) || anyOverlap(op.barrierWrites, writes);
  }
  void add(const PendingAccesses &other) {
    for (const Range &r : other.reads)
      if (!llvm::is_contained(reads, r))
        reads.push_back(r);
    for (const Range &r : other.writes)
      if (!llvm::is_contained(writes, r))
        writes.push_back(r);
    for (const Range &r : other.inFlight)
      if (!llvm::is_contained(inFlight, r))
        inFlight.push_back(r);
    for (const Range &r : other.barrierWrites)
      if (!llvm::is_contained(barrierWrites, r))
        barrierWrites.push_back(r);
    for (const Range &r : other.tmaReads)
      if (!llvm::is_contained(tmaReads, r))
        tmaReads.push_back(r);
  }
  /// True when an op with these accesses overwrites what TMA stores may
  /// still be reading.
  bool overwritesTMAReads(const PendingAccesses &op) const {
    return anyOverlap(op.writes, tmaReads) || anyOverlap(op.inFlight, tmaReads) ||
           anyOverlap(op.barrierWrites, tmaReads);
  }
  /// After a tma_store_wait: TMA's reads are done in the issuing thread's
  /// program order, reads of that thread for everyone else.
  void endTMAReads() {
    for (const Range &r : tmaReads)
      if (!llvm::is_contained(reads, r))
        reads.push_back(r);
    tmaReads.clear();
  }
  /// A barrier orders what threads did, not copies still in flight.
  void clear() {
    reads.clear();
    writes.clear();
    barrierWrites.clear();
  }
  bool operator==(const PendingAccesses &o) const {
    auto same = [](ArrayRef<Range> a, ArrayRef<Range> b) {
      return a.size() == b.size() &&
             llvm::all_of(a, [&](const Range &r) { return llvm::is_contained(b, r); });
    };
    return same(reads, o.reads) && same(writes, o.writes) && same(inFlight, o.inFlight) &&
           same(barrierWrites, o.barrierWrites) && same(tmaReads, o.tmaReads);
  }
};

class BarrierPlacement {
public:
  explicit BarrierPlacement(int64_t arenaBytes) : arena_{0, arenaBytes} {}

  /// Walks `block` from `state`, placing barriers when `place` is set, and
  /// returns the state at its end.
  PendingAccesses walk(Block &block, PendingAccesses state, bool place) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<tilegpu::BarrierOp>(op)) {
        state.clear();
        continue;
      }
      if (isa<LoopLikeOpInterface>(op) && op.getNumRegions() > 0) {
        // A loop may run its body any number of times, including none; its
        // regions run one after the other (scf.while: before, then after).
        auto iteration = [&](const PendingAccesses &entry, bool placeHere) {
          PendingAccesses running = entry, seen = entry;
          for (Region &region : op.getRegions())
            for (Block &body : region) {
              running = walk(body, running, placeHere);
              seen.add(running);
            }
          return seen;
        };
        // The sets only grow, and there are finitely many ranges: this
        // reaches its fixpoint.
        PendingAccesses entry = state;
        for (;;) {
          PendingAccesses next = state;
          next.add(iteration(entry, /*placeHere=*/false));
          if (next == entry)
            break;
          entry = next;
        }
        PendingAccesses exit = state;
        exit.add(iteration(entry, place));
        state = exit;
        continue;
      }
      if (op.hasAttr(tilegpu::kWarpRolesAttr)) {
        // A warp-specialised kernel's split (tilegpu-warp-specialize): the
        // producer warp (then) touches shared memory only through TMA
        // copies and mbarriers, which order themselves; the consumers
        // (else) are walked as the kernel, their barriers theirs alone.
        auto roles = cast<scf::IfOp>(op);
        state = walk(*roles.elseBlock(), state, place);
        continue;
      }
      if (op.getNumRegions() > 0) {
        // scf.if, scf.execute_region, scf.index_switch, a reduction's
        // combiner: each region may run (or not) from the state before the
        // op; after it, any of them may have.
        PendingAccesses after = state;
        for (Region &region : op.getRegions())
          for (Block &body : region)
            after.add(walk(body, state, place));
        state = after;
      }
      if (isa<tilegpu::TMAStoreWaitOp>(op)) {
        state.endTMAReads();
        continue;
      }
      if (auto wait = dyn_cast<tilegpu::AsyncWaitOp>(op)) {
        // The copies the wait completes write their buffers now (as far as
        // other threads can tell). Which of the groups in flight these are
        // is not tracked: all count as written, and stay in flight unless
        // none may remain.
        for (const Range &r : state.inFlight)
          if (!llvm::is_contained(state.writes, r))
            state.writes.push_back(r);
        if (wait.getPending() == 0)
          state.inFlight.clear();
        continue;
      }
      if (auto copy = dyn_cast<tilegpu::AsyncTMACopyGlobalToLocalOp>(op)) {
        // Like cp.async it must not start before every thread is done with
        // the bytes it overwrites; but each thread's wait_barrier makes
        // them visible to it, so its write is never pending for others.
        PendingAccesses accesses;
        accesses.inFlight.push_back(bufferRange(copy.getResult()));
        waitForTMAReads(op, accesses, state, place);
        if (state.conflicts(accesses)) {
          if (place) {
            OpBuilder builder(&op);
            builder.create<tilegpu::BarrierOp>(op.getLoc());
          }
          state.clear();
        }
        continue;
      }
      PendingAccesses accesses = accessesOf(op);
      if (accesses.reads.empty() && accesses.writes.empty() && accesses.inFlight.empty() &&
          accesses.barrierWrites.empty() && accesses.tmaReads.empty())
        continue;
      waitForTMAReads(op, accesses, state, place);
      if (state.conflicts(accesses)) {
        if (place) {
          OpBuilder builder(&op);
          builder.create<tilegpu::BarrierOp>(op.getLoc());
        }
        state.clear();
      }
      state.add(accesses);
    }
    return state;
  }

private:
  /// Before `op`, when it overwrites what TMA stores may still read: a
  /// tma_store_wait (the barrier a read before a write needs follows).
  static void waitForTMAReads(Operation &op, const PendingAccesses &accesses,
                              PendingAccesses &state, bool place) {
    if (!state.overwritesTMAReads(accesses))
      return;
    if (place) {
      OpBuilder builder(&op);
      builder.create<tilegpu::TMAStoreWaitOp>(op.getLoc());
    }
    state.endTMAReads();
  }

  /// The range of the buffer `memdesc` names (the whole ring for one of
  /// its buffers, whose index is not known here; the whole buffer for a
  /// transposed view of it).
  Range bufferRange(Value memdesc) {
    memdesc = tilegpu::viewedBuffer(memdesc);
    auto alloc = memdesc.getDefiningOp<tilegpu::LocalAllocOp>();
    auto offset = alloc ? alloc->getAttrOfType<IntegerAttr>(tilegpu::kSharedOffsetAttr)
                        : IntegerAttr();
    if (!offset)
      return arena_;
    auto type = cast<tilegpu::MemDescType>(memdesc.getType());
    return {offset.getInt(), offset.getInt() + type.getSizeInBytes()};
  }

  PendingAccesses accessesOf(Operation &op) {
    PendingAccesses a;
    if (auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op)) {
      if (alloc.getSrc())
        a.writes.push_back(bufferRange(alloc));
    } else if (auto load = dyn_cast<tilegpu::LocalLoadOp>(op)) {
      a.reads.push_back(bufferRange(load.getSrc()));
    } else if (auto store = dyn_cast<tilegpu::LocalStoreOp>(op)) {
      a.writes.push_back(bufferRange(store.getDst()));
    } else if (auto copy = dyn_cast<tilegpu::AsyncCopyGlobalToLocalOp>(op)) {
      // It must not start before other threads are done with the bytes it
      // overwrites; its write counts at the async_wait that completes it
      // (tilegpu-pipeline-loads never reads a buffer between the two).
      a.inFlight.push_back(bufferRange(copy.getDst()));
    } else if (auto dot = dyn_cast<tilegpu::WarpGroupDotOp>(op)) {
      if (isa<tilegpu::MemDescType>(dot.getA().getType())) // (not in registers)
        a.reads.push_back(bufferRange(dot.getA()));
      a.reads.push_back(bufferRange(dot.getB()));
    } else if (auto store = dyn_cast<tilegpu::TMAStoreOp>(op)) {
      // One thread's copies read the buffer from the op on: they must see
      // every thread's writes, and they end at a tma_store_wait.
      Range buffer = bufferRange(store.getBuffer());
      a.reads.push_back(buffer);
      a.tmaReads.push_back(buffer);
    } else if (isa<tilegpu::InitBarrierOp, tilegpu::InvalBarrierOp>(op)) {
      // One thread writes the barrier's word: others wait on it only after
      // a barrier, and it ends only after everyone's last wait.
      a.barrierWrites.push_back(bufferRange(op.getOperand(0)));
    } else if (auto wait = dyn_cast<tilegpu::WaitBarrierOp>(op)) {
      a.reads.push_back(bufferRange(wait.getBarrier()));
    } else if (isa<tilegpu::BarrierExpectOp, tilegpu::ArriveBarrierOp>(op)) {
      // An arrival: an atomic update of the barrier, by the thread that
      // initialised it (in program order after the init). Re-arming a
      // barrier other threads may still be waiting on would race (a slow
      // waiter could miss its phase), but every expect precedes TMA copies
      // into a buffer the previous phase's readers read, and those copies
      // wait for a barrier that follows every such wait: the expect's phase
      // cannot complete before it, so recording nothing here adds no
      // barrier and loses no order. A consumer warp's arrival (freeing a
      // slot for the producer warp) is an atomic update that orders itself
      // the same way.
    } else if (isa<tilegpu::AsyncCommitGroupOp, tilegpu::WarpGroupDotWaitOp>(op)) {
      // (A wait ends reads already counted at the dots that issued them.)
    } else if (int64_t bytes = getScratchBytes(&op)) {
      auto offset = op.getAttrOfType<IntegerAttr>(tilegpu::kSharedOffsetAttr);
      Range r = offset ? Range{offset.getInt(), offset.getInt() + bytes} : arena_;
      a.reads.push_back(r);
      a.writes.push_back(r);
    } else if (!isa<tilegpu::LocalDeallocOp>(op)) {
      // Anything else that says it touches shared memory, somewhere.
      if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
        SmallVector<MemoryEffects::EffectInstance> list;
        effects.getEffects(list);
        for (const MemoryEffects::EffectInstance &e : list) {
          if (e.getResource() != tilegpu::SharedMemory::get())
            continue;
          if (isa<MemoryEffects::Read>(e.getEffect()))
            a.reads.push_back(arena_);
          if (isa<MemoryEffects::Write>(e.getEffect()))
            a.writes.push_back(arena_);
        }
      }
    }
    return a;
  }

  Range arena_;
};

struct TileGPUInsertBarriersPass
    : tilec::impl::TileGPUInsertBarriersBase<TileGPUInsertBarriersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto bytes = module->getAttrOfType<IntegerAttr>(tilegpu::kSharedBytesAttr);
    if (!bytes) {
      module.emitError("tilegpu-insert-barriers needs the offsets of "
                       "tilegpu-allocate-shared (no tilegpu.shared_bytes)");
      return signalPassFailure();
    }
    BarrierPlacement placement(bytes.getInt());
    for (auto func : module.getOps<func::FuncOp>())
      for (Block &block : func.getBody()) {
        PendingAccesses end = placement.walk(block, PendingAccesses(), /*place=*/true);
        // The CTA's shared memory must outlive TMA's reads of it.
        if (!end.tmaReads.empty()) {
          OpBuilder builder(block.getTerminator());
          builder.create<tilegpu::TMAStoreWaitOp>(block.getTerminator()->getLoc());
        }
      }
    // The consumers of a warp-specialised kernel meet without the producer
    // warp, which may have left: named barriers of their threads.
    unsigned threads = tilegpu::getNumWarps(module) * 32;
    module.walk([&](scf::IfOp roles) {
      if (!roles->hasAttr(tilegpu::kWarpRolesAttr))
        return;
      roles.getElseRegion().walk([&](tilegpu::BarrierOp barrier) {
        // (A barrier of every consumer group's threads says so already.)
        if (!barrier->hasAttr(tilegpu::kBarrierThreadsAttr))
          barrier->setAttr(tilegpu::kBarrierThreadsAttr,
                           IntegerAttr::get(IntegerType::get(&getContext(), 32), threads));
      });
    });
  }
};
} // namespace
