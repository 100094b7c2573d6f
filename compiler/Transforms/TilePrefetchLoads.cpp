// tile-prefetch-loads: in a loop whose global loads feed a tile.dot, load
// the next iteration's operands at the top of this iteration, so that
// their memory latency hides behind this iteration's matrix products
// instead of stalling at its start (software pipelining through
// registers: two stages).
//
// A loop that may write memory (a store, an atomic) is left alone: a load
// moved ahead of a store could miss what the store writes. On targets with
// cp.async, loops of two or more stages are tilegpu-pipeline-loads' (which
// buffers in shared memory, several iterations deep); the loads it will
// take, as far as can be told before layouts (LoadAddressStage, a zero
// `other`, 4-byte vectors; also a load that reaches the dot through
// tl.trans, when the dot will run on tensor cores (wgmma on sm_90a, else
// mma.sync), which read the transpose through a view of its buffer; in a
// loop that gives its own stages, tl.range(num_stages=...), every such
// load whatever reads it), are left to it and the rest prefetched here. A
// load it then turns down after all (its rings too big for shared memory,
// its buffer layout splitting the vector) is loaded in place.
//
// A candidate load's pointer, mask and `other` must be computable at the
// top of the body for the next iteration: from loop invariants, the
// induction variable and the iteration arguments, through pure ops without
// regions (the usual `ptrs += BLOCK_K * stride` chain qualifies; a load
// whose address comes from another load does not). The loop gets one new
// iteration argument per load: the value loaded ahead. Before the loop the
// first iteration's load is issued; in the body the next one's, both
// masked off when that iteration does not run (so nothing past the loop's
// end is ever read).
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Analysis/Wgmma.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Transforms/LoopUtils.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-prefetch-loads"

namespace tilec {
#define GEN_PASS_DEF_TILEPREFETCHLOADS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// The values of one iteration of `loop`, computed by cloning pure ops at
/// the builder's insertion point: `at(v)` is v in that iteration, given
/// the induction variable and the iteration arguments of that iteration.
class IterationValues {
public:
  IterationValues(scf::ForOp loop, Value iv, std::function<Value(unsigned)> iterArg)
      : loop_(loop), iv_(iv), iterArg_(std::move(iterArg)) {}

  /// True when `v` of the current iteration can be recomputed at the top
  /// of the body: from invariants, the induction variable and the
  /// iteration arguments through pure ops without regions (`next` asks the
  /// same of the next iteration's `v`, whose iteration arguments are this
  /// iteration's yields).
  using Memo = llvm::DenseMap<std::pair<Value, unsigned>, bool>;
  static bool computable(scf::ForOp loop, Value v, Memo &memo, bool next = false,
                         unsigned depth = 0) {
    if (depth > 64)
      return false;
    // Shared subexpressions are asked about many times: answer each once.
    auto known = memo.find({v, unsigned(next)});
    if (known != memo.end())
      return known->second;
    bool result = computableUncached(loop, v, memo, next, depth);
    memo[{v, unsigned(next)}] = result;
    return result;
  }

private:
  static bool computableUncached(scf::ForOp loop, Value v, Memo &memo, bool next,
                                 unsigned depth) {
    if (!loop.getBody()->getParent()->isAncestor(v.getParentRegion()))
      return true; // defined outside: invariant
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != loop.getBody())
        return false;
      if (!next || arg == loop.getInductionVar())
        return true;
      Value yielded = loop.getBody()->getTerminator()->getOperand(
          arg.getArgNumber() - 1);
      return computable(loop, yielded, memo, /*next=*/false, depth + 1);
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != loop.getBody() || !isPure(def) ||
        def->getNumRegions() != 0)
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return computable(loop, operand, memo, next, depth + 1);
    });
  }

public:

  Value at(OpBuilder &b, Value v) {
    if (!loop_.getBody()->getParent()->isAncestor(v.getParentRegion()))
      return v;
    if (Value known = mapping_.lookupOrNull(v))
      return known;
    Value result;
    if (v == loop_.getInductionVar()) {
      result = iv_;
    } else if (auto arg = dyn_cast<BlockArgument>(v)) {
      result = iterArg_(arg.getArgNumber() - 1);
    } else {
      Operation *def = v.getDefiningOp();
      for (Value operand : def->getOperands())
        at(b, operand);
      Operation *copy = b.clone(*def, mapping_);
      result = copy->getResult(cast<OpResult>(v).getResultNumber());
    }
    mapping_.map(v, result);
    return result;
  }

private:
  scf::ForOp loop_;
  Value iv_;
  std::function<Value(unsigned)> iterArg_;
  IRMapping mapping_;
};

/// `load` rebuilt at the builder with operands from `values`, masked off
/// unless `runs` (a scalar i1) holds.
Value cloneLoad(OpBuilder &b, tile::LoadOp load, IterationValues &values,
                Value runs) {
  Location loc = load.getLoc();
  Value ptr = values.at(b, load.getPtr());
  Value guard = runs;
  if (auto type = dyn_cast<RankedTensorType>(ptr.getType()))
    guard = b.create<tile::SplatOp>(
        loc, RankedTensorType::get(type.getShape(), b.getI1Type()), runs);
  Value mask = guard;
  if (load.getMask())
    mask = b.create<arith::AndIOp>(loc, values.at(b, load.getMask()), guard);
  Value other = load.getOther() ? values.at(b, load.getOther()) : Value();
  return b.create<tile::LoadOp>(loc, load.getType(), ptr, mask, other,
                                load.getCache(), load.getEvict(),
                                load.getIsVolatile());
}

bool feedsDot(tile::LoadOp load) {
  SetVector<Operation *> slice;
  ForwardSliceOptions options;
  options.filter = [&](Operation *op) { return op->getBlock() == load->getBlock(); };
  getForwardSlice(load.getOperation(), &slice, options);
  return llvm::any_of(slice, [](Operation *op) { return isa<tile::DotOp>(op); });
}

/// True when `load`'s vectors (as the axis info tells, before layouts)
/// reach the 4 bytes cp.async moves at least.
bool copiesFourBytes(tile::LoadOp load, const AxisInfoAnalysis &axisInfo) {
  Type element = tile::getElementTypeOrSelf(load.getType());
  return contiguousAccessWidth(load.getPtr(), load.getMask(), axisInfo) *
             tile::getElementBytes(element) >=
         4;
}

/// A load cp.async can copy: a zero (or no) `other`, one use, and vectors
/// of at least the 4 bytes cp.async moves.
bool copyable(tile::LoadOp load, const AxisInfoAnalysis &axisInfo) {
  return isAsyncCopyable(load) && load->hasOneUse() && copiesFourBytes(load, axisInfo);
}

/// True when `use` is operand a or b of a dot, directly or through one
/// tile.trans into a dot that will run on tensor cores (wgmma or
/// mma.sync): both read the transpose through a view of the loaded tile's
/// buffer.
bool isDotOperand(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<tile::DotOp>(user))
    return use.getOperandNumber() <= 1;
  if (!isTranspose(user) || !user->hasOneUse())
    return false;
  OpOperand &next = *user->getUses().begin();
  auto dot = dyn_cast<tile::DotOp>(next.getOwner());
  return dot && next.getOperandNumber() <= 1 && fitsMmaSync(dot);
}

/// True when `load` is of the kind tilegpu-pipeline-loads takes in `loop`
/// as a dot's operand: a copyable operand of a dot and nothing else.
bool pipelinableForDot(tile::LoadOp load, const AxisInfoAnalysis &axisInfo) {
  return copyable(load, axisInfo) && isDotOperand(*load->getUses().begin());
}

/// True when, in a loop that gives its own stages (tl.range(num_stages=...)),
/// tilegpu-pipeline-loads may take `load` though it is no dot's operand:
/// any load cp.async can copy, whatever reads its tile.
bool pipelinablePlain(tile::LoadOp load, scf::ForOp loop,
                      const AxisInfoAnalysis &axisInfo) {
  return loop->hasAttr(tile::kNumStagesAttr) && isPlainPipelineCandidate(load) &&
         copiesFourBytes(load, axisInfo);
}

/// The loads of `loop` tilegpu-pipeline-loads will take: the dots'
/// pipelinable loads when their addresses can run ahead on their own, and
/// each plain one that can run ahead with them (selectPipelinedLoads, as it
/// chooses).
llvm::DenseSet<Operation *> leftToPipeliner(scf::ForOp loop,
                                            const AxisInfoAnalysis &axisInfo) {
  SmallVector<Operation *> forDots, plain;
  for (Operation &op : loop.getBody()->without_terminator()) {
    // (tilegpu-pipeline-loads takes TMA reads of dot operands with the
    // dots' other loads.)
    if (isa<tile::TensorMapLoadOp>(op)) {
      if (op.hasOneUse() &&
          (isa<tile::DotOp>(*op.getUsers().begin()) || isTranspose(*op.getUsers().begin())))
        forDots.push_back(&op);
      continue;
    }
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      if (pipelinableForDot(load, axisInfo))
        forDots.push_back(load);
      else if (pipelinablePlain(load, loop, axisInfo))
        plain.push_back(load);
    }
  }
  LoadAddressStage stage;
  llvm::DenseSet<Operation *> taken;
  for (Operation *load : selectPipelinedLoads(loop, forDots, plain, stage))
    taken.insert(load);
  return taken;
}

/// `axisInfo` set: the loads tilegpu-pipeline-loads will take are left to it.
void prefetch(IRRewriter &rewriter, scf::ForOp loop,
              const AxisInfoAnalysis *axisInfo) {
  // (Iterations past the end are masked with a signed comparison.)
  if (loop.getUnsignedCmp() || mayWriteGlobalMemory(loop))
    return;
  llvm::DenseSet<Operation *> taken;
  if (axisInfo)
    taken = leftToPipeliner(loop, *axisInfo);
  IterationValues::Memo memo;
  SmallVector<tile::LoadOp> loads;
  for (Operation &op : *loop.getBody()) {
    auto load = dyn_cast<tile::LoadOp>(&op);
    if (!load || load.getIsVolatile() || !feedsDot(load))
      continue;
    if (taken.contains(load))
      continue;
    if (llvm::all_of(load->getOperands(), [&](Value v) {
          return IterationValues::computable(loop, v, memo, /*next=*/true);
        }))
      loads.push_back(load);
  }
  if (loads.empty())
    return;

  // The first iteration's loads, before the loop.
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value first = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                               loop.getLowerBound(),
                                               loop.getUpperBound());
  IterationValues initial(loop, loop.getLowerBound(), [&](unsigned i) {
    return loop.getInitArgs()[i];
  });
  SmallVector<Value> inits;
  for (tile::LoadOp load : loads)
    inits.push_back(cloneLoad(rewriter, load, initial, first));

  // Called while the old body is still the old loop's (the new loop's body
  // is empty until MLIR moves it over, remapping the old block arguments):
  // build in the old body, hand uses over to the new carried arguments.
  auto yieldNext = [&](OpBuilder &b, Location, ArrayRef<BlockArgument> ahead) {
    Block *body = loop.getBody();
    b.setInsertionPointToStart(body);
    Value iv = loop.getInductionVar();
    Value nextIv = b.create<arith::AddIOp>(loc, iv, loop.getStep());
    Value runs = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, nextIv,
                                         loop.getUpperBound());
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    IterationValues current(loop, iv, [&](unsigned i) {
      return loop.getRegionIterArgs()[i];
    });
    IterationValues next(loop, nextIv, [&](unsigned i) {
      return current.at(b, yield.getOperand(i));
    });
    SmallVector<Value> values;
    for (auto [load, value] : llvm::zip(loads, ahead)) {
      values.push_back(cloneLoad(b, load, next, runs));
      load.getResult().replaceAllUsesWith(value);
    }
    return values;
  };
  FailureOr<LoopLikeOpInterface> rebuilt =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(rewriter, inits,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       yieldNext);
  if (failed(rebuilt))
    return;
  for (tile::LoadOp load : loads)
    rewriter.eraseOp(load);
}

struct TilePrefetchLoadsPass
    : tilec::impl::TilePrefetchLoadsBase<TilePrefetchLoadsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    std::optional<AxisInfoAnalysis> axisInfo;
    if (asyncCopy)
      axisInfo.emplace(getOperation());
    for (scf::ForOp loop : loops)
      prefetch(rewriter, loop,
               asyncCopy && getNumStages(loop, numStages) >= 2 ? &*axisInfo : nullptr);
  }
};
} // namespace
