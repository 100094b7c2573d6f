#include "compiler/Transforms/ConsumerGroups.h"

#include "compiler/Transforms/LoopUtils.h"
#include "compiler/Transforms/Rings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilec;

namespace {

/// The condition under which `loop`'s tiles end: every dot's accumulator is
/// carried through a select that resets it to zeros under it; null where
/// there is none.
Value tileEndCondition(scf::ForOp loop, ArrayRef<tilegpu::WarpGroupDotOp> dots) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value end;
  for (tilegpu::WarpGroupDotOp dot : dots) {
    auto acc = dyn_cast<BlockArgument>(dot.getC());
    if (!acc || acc.getOwner() != loop.getBody() || acc.getArgNumber() == 0)
      return {};
    Value carried = yield.getOperand(acc.getArgNumber() - loop.getNumInductionVars());
    auto reset = carried.getDefiningOp<arith::SelectOp>();
    if (!reset || reset.getFalseValue() != dot.getD() || !isZeroFill(reset.getTrueValue()) ||
        (end && reset.getCondition() != end))
      return {};
    end = reset.getCondition();
  }
  return end;
}

/// Puts everything of `loop`'s body but the backward slices of `tileEnd`
/// and of the yields numbered `kept` (scalar arithmetic every group
/// computes in every iteration) under an scf.if of `turn == group`, whose
/// else yields the iteration arguments as they were: a group's
/// accumulators and held slot stay as they are through the other groups'
/// tiles. Fails (with a located error) where a kept value needs more than
/// scalar arithmetic.
LogicalResult takeTurns(RewriterBase &b, scf::ForOp loop, Value tileEnd,
                        ArrayRef<unsigned> kept, Value turn, Value group) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  llvm::SetVector<Operation *> everyGroup;
  SmallVector<Value> work{tileEnd};
  for (unsigned index : kept)
    work.push_back(yield.getOperand(index));
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !loop->isAncestor(def) || everyGroup.contains(def))
      continue;
    if (def->getBlock() != body || !isScalarArithmetic(def))
      return def->emitError("warp_specialize: with num_consumer_groups every group computes "
                            "where the tiles end and the blocks' coordinates in every "
                            "iteration, from scalar arithmetic alone; this is not");
    everyGroup.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<unsigned> own;
  SmallVector<Type> types;
  for (unsigned i = 0; i < yield.getNumOperands(); ++i)
    if (!llvm::is_contained(kept, i)) {
      own.push_back(i);
      types.push_back(yield.getOperand(i).getType());
    }
  Location loc = loop.getLoc();
  b.setInsertionPoint(yield);
  auto mine = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, turn, group);
  auto owner = b.create<scf::IfOp>(loc, types, mine, /*withElseRegion=*/true);
  Block *then = owner.thenBlock();
  for (Operation &op : llvm::make_early_inc_range(body->without_terminator()))
    if (&op != mine.getOperation() && &op != owner.getOperation() && !everyGroup.contains(&op))
      op.moveBefore(then, then->end());
  SmallVector<Value> owned, asBefore;
  for (unsigned i : own) {
    owned.push_back(yield.getOperand(i));
    asBefore.push_back(loop.getRegionIterArgs()[i]);
  }
  b.setInsertionPointToEnd(then);
  b.create<scf::YieldOp>(loc, owned);
  b.setInsertionPointToEnd(owner.elseBlock());
  b.create<scf::YieldOp>(loc, asBefore);
  for (auto [k, i] : llvm::enumerate(own))
    b.modifyOpInPlace(yield, [&] { yield->setOperand(i, owner.getResult(k)); });
  return success();
}

/// The iteration-argument number of `dot`'s accumulator in `loop`.
unsigned accumulatorIndex(scf::ForOp loop, tilegpu::WarpGroupDotOp dot) {
  return cast<BlockArgument>(dot.getC()).getArgNumber() - loop.getNumInductionVars();
}

} // namespace

FailureOr<Value> tilec::tilesToShare(scf::ForOp loop, ArrayRef<tilegpu::WarpGroupDotOp> dots,
                                     ArrayRef<unsigned> coordinates, unsigned groups) {
  Value tileEnd = tileEndCondition(loop, dots);
  if (!tileEnd) {
    loop.emitError("warp_specialize: num_consumer_groups = ")
        << groups
        << " needs the loop's tiles: groups take turns at them, a tile ending where the "
           "dots' accumulators are reset (`if last: <epilogue>; acc = "
           "tl.zeros_like(acc)`), and this loop resets none";
    return failure();
  }
  // Each group carries its own accumulators: the loop may carry nothing
  // else that a group would miss the other groups' updates of (the blocks'
  // coordinates every group computes).
  for (BlockArgument arg : loop.getRegionIterArgs()) {
    unsigned index = arg.getArgNumber() - loop.getNumInductionVars();
    bool accumulator =
        llvm::any_of(dots, [&](tilegpu::WarpGroupDotOp dot) { return dot.getC() == arg; });
    if (!accumulator && !llvm::is_contained(coordinates, index)) {
      loop.emitError("warp_specialize: with num_consumer_groups the loop may carry only its "
                     "dots' accumulators (one per group) and the blocks' coordinates; value ")
          << index << " of what it carries is neither";
      return failure();
    }
    if (accumulator && !loop.getResult(index).use_empty()) {
      loop.emitError("warp_specialize: with num_consumer_groups each group has its own "
                     "accumulators, which the code after the loop cannot read; store them "
                     "in the loop's epilogue");
      return failure();
    }
  }
  return tileEnd;
}

LogicalResult tilec::shareTiles(RewriterBase &b, scf::ForOp loop, ArrayRef<AsyncDot> async,
                                ArrayRef<unsigned> coordinates, const ConsumerGroups &groups) {
  Location loc = loop.getLoc();
  Value tileEnd = groups.tileEnd;
  unsigned base = loop.getNumRegionIterArgs() - 4; // slot, phase, held, turn
  {
    OpBuilder::InsertionGuard atEnd(b);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    b.setInsertionPoint(yield);
    if (!async.empty()) {
      // A tile's last iteration waited for its dots in the epilogue (just
      // before): its slot is free, and the group holds none through the
      // other groups' tiles.
      Value slot = loop.getRegionIterArgs()[base];
      auto release = b.create<scf::IfOp>(loc, tileEnd, /*withElseRegion=*/false);
      b.setInsertionPoint(release.thenBlock()->getTerminator());
      b.create<tilegpu::ArriveBarrierOp>(loc, ringSlot(b, loc, groups.empty, slot));
      b.setInsertionPoint(yield);
      Value held = b.create<arith::SelectOp>(loc, tileEnd, i32Value(b, loc, -1),
                                             yield.getOperand(base + 2));
      b.modifyOpInPlace(yield, [&] { yield->setOperand(base + 2, held); });
    }
    // The next group's turn after a tile's last iteration.
    Value turn = loop.getRegionIterArgs()[base + 3];
    Value nextTurn = nextModulo(b, loc, turn, groups.groups).first;
    Value after = b.create<arith::SelectOp>(loc, tileEnd, nextTurn, turn);
    b.modifyOpInPlace(yield, [&] { yield->setOperand(base + 3, after); });
  }
  SmallVector<unsigned> kept{base, base + 1, base + 3};
  llvm::append_range(kept, coordinates);
  OpBuilder::InsertPoint afterLoop = b.saveInsertionPoint();
  b.setInsertionPoint(loop);
  Value group = b.create<arith::DivUIOp>(loc, groups.warp, i32Value(b, loc, groups.warps));
  if (failed(takeTurns(b, loop, tileEnd, kept, loop.getRegionIterArgs()[base + 3], group)))
    return failure();
  b.restoreInsertionPoint(afterLoop);
  // A group whose last iteration did not end a tile (a loop ending inside
  // one) still holds its slot, its dots in flight: it waits for them and
  // frees the slot for the other groups, whose copies may wait for it.
  // (Its accumulators are unused after the loop; a group that holds none
  // has waited for all its dots in its epilogues. ptxas adds a wait of its
  // own after the loop, once, for the paths without.) The barriers are not
  // invalidated: a group done early would invalidate them under the
  // others, and nothing reuses their bytes.
  if (!async.empty()) {
    Value held = loop.getResult(base + 2);
    // (Only a loop that ran holds one: said so, the accumulators' initial
    // zeros never reach the wait, as in leaveDotsInFlight.)
    Value ran = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, loop.getLowerBound(),
                                        loop.getUpperBound());
    auto ranIf = b.create<scf::IfOp>(loc, ran, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard afterRelease(b);
    b.setInsertionPoint(ranIf.thenBlock()->getTerminator());
    Value holds =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, held, i32Value(b, loc, 0));
    auto release = b.create<scf::IfOp>(loc, holds, /*withElseRegion=*/false);
    b.setInsertionPoint(release.thenBlock()->getTerminator());
    for (AsyncDot inFlight : async) {
      Value acc = loop.getResult(accumulatorIndex(loop, inFlight.dot));
      b.create<tilegpu::WarpGroupDotWaitOp>(loc, acc.getType(), acc, 0);
    }
    b.create<tilegpu::ArriveBarrierOp>(loc, ringSlot(b, loc, groups.empty, held));
  }
  // The code after the loop runs once per program: in group 0.
  Block *consumer = loop->getBlock();
  Operation *end = consumer->getTerminator();
  Operation *first = b.getInsertionPoint() == consumer->end() ? end : &*b.getInsertionPoint();
  if (first != end) {
    Value isFirst =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, group, i32Value(b, loc, 0));
    auto once = b.create<scf::IfOp>(loc, isFirst, /*withElseRegion=*/false);
    for (Operation &op :
         llvm::make_early_inc_range(llvm::make_range(first->getIterator(), end->getIterator())))
      op.moveBefore(once.thenBlock()->getTerminator());
  }
  return success();
}
