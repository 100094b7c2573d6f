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

/// The wait in `loop`'s body on a slot's mbarrier of the `full` ring: the
/// consumers' wait for each iteration's blocks.
static tilegpu::WaitBarrierOp fullWait(scf::ForOp loop, Value full) {
  for (Operation &op : *loop.getBody())
    if (auto wait = dyn_cast<tilegpu::WaitBarrierOp>(op))
      if (tilegpu::viewedBuffer(wait.getBarrier()) == full)
        return wait;
  return {};
}

/// Where the epilogue of `async`'s one dot has waited for its instructions
/// at a tile's end (`tileEnd`); null where there is not one such place.
static Operation *waitAtTileEnd(ArrayRef<AsyncDot> async, Value tileEnd) {
  if (async.size() != 1)
    return nullptr;
  tilegpu::WarpGroupDotOp dot = async.front().dot;
  for (Operation *user : dot.getD().getUsers())
    if (auto wait = dyn_cast<tilegpu::WarpGroupDotWaitOp>(user))
      if (auto waited = dyn_cast<scf::IfOp>(wait->getParentOp()))
        if (waited.getCondition() == tileEnd && wait.getPending() == 0)
          return wait;
  return nullptr;
}

LogicalResult tilec::shareTiles(RewriterBase &b, scf::ForOp loop, ArrayRef<AsyncDot> async,
                                ArrayRef<unsigned> coordinates, const ConsumerGroups &groups) {
  Location loc = loop.getLoc();
  Value tileEnd = groups.tileEnd;
  // slot, phase, held, turn, starts, order phase
  unsigned base = loop.getNumRegionIterArgs() - 6;
  Block *body = loop.getBody();
  auto args = loop.getRegionIterArgs();
  tilegpu::WaitBarrierOp blocksLanded = fullWait(loop, groups.full);
  if (!blocksLanded)
    return loop.emitError("warp_specialize: the consumers' loop waits for no blocks");
  OpBuilder::InsertPoint afterLoop = b.saveInsertionPoint();

  // The group, its mbarrier of the order ring and the next group's.
  b.setInsertionPoint(loop);
  Value group = b.create<arith::DivUIOp>(loc, groups.warp, i32Value(b, loc, groups.warps));
  Value lastGroup = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, group,
                                            i32Value(b, loc, groups.groups - 1));
  Value nextGroup = b.create<arith::SelectOp>(
      loc, lastGroup, i32Value(b, loc, 0),
      b.create<arith::AddIOp>(loc, group, i32Value(b, loc, 1)));
  Value myTurn = ringSlot(b, loc, groups.order, group);
  Value nextTurn = ringSlot(b, loc, groups.order, nextGroup);
  {
    // (As if the last group had ended a tile before the first: group 0's
    // first wait passes.)
    OpBuilder::InsertionGuard guard(b);
    auto opening = b.create<scf::IfOp>(loc, lastGroup, /*withElseRegion=*/false);
    b.setInsertionPoint(opening.thenBlock()->getTerminator());
    b.create<tilegpu::ArriveBarrierOp>(loc, ringSlot(b, loc, groups.order, i32Value(b, loc, 0)));
  }

  auto yield = cast<scf::YieldOp>(body->getTerminator());
  {
    OpBuilder::InsertionGuard atEnd(b);
    // A tile's first iteration waits for the previous tile's last blocks
    // to have landed (its group arrived), so that every earlier fill of
    // the slots has completed and the parity of its own is unambiguous.
    b.setInsertionPoint(blocksLanded);
    Value starts = args[base + 4], orderPhase = args[base + 5];
    auto inTurn = b.create<scf::IfOp>(loc, starts, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(inTurn.thenBlock()->getTerminator());
      b.create<tilegpu::WaitBarrierOp>(loc, myTurn, orderPhase);
    }
    Value flipped = b.create<arith::XOrIOp>(loc, orderPhase, i32Value(b, loc, 1));
    Value nextOrderPhase = b.create<arith::SelectOp>(loc, starts, flipped, orderPhase);
    b.setInsertionPoint(yield);
    if (!async.empty()) {
      // A tile's last iteration frees its slot once the epilogue has
      // waited for the dots, before the epilogue's stores: the group holds
      // none through them or the other groups' tiles.
      Value slot = args[base];
      if (Operation *waited = waitAtTileEnd(async, tileEnd)) {
        b.setInsertionPointAfter(waited);
        b.create<tilegpu::ArriveBarrierOp>(loc, ringSlot(b, loc, groups.empty, slot));
      } else {
        auto release = b.create<scf::IfOp>(loc, tileEnd, /*withElseRegion=*/false);
        b.setInsertionPoint(release.thenBlock()->getTerminator());
        b.create<tilegpu::ArriveBarrierOp>(loc, ringSlot(b, loc, groups.empty, slot));
      }
      b.setInsertionPoint(yield);
      Value held = b.create<arith::SelectOp>(loc, tileEnd, i32Value(b, loc, -1),
                                             yield.getOperand(base + 2));
      b.modifyOpInPlace(yield, [&] { yield->setOperand(base + 2, held); });
    }
    // The next group's turn after a tile's last iteration.
    Value turn = args[base + 3];
    Value passed = nextModulo(b, loc, turn, groups.groups).first;
    Value after = b.create<arith::SelectOp>(loc, tileEnd, passed, turn);
    b.modifyOpInPlace(yield, [&] {
      yield->setOperand(base + 3, after);
      yield->setOperand(base + 4, tileEnd);
      yield->setOperand(base + 5, nextOrderPhase);
    });
  }
  SmallVector<unsigned> kept{base, base + 1, base + 3, base + 4};
  llvm::append_range(kept, coordinates);
  if (failed(takeTurns(b, loop, tileEnd, kept, loop.getRegionIterArgs()[base + 3], group)))
    return failure();
  // A tile's last iteration, once its blocks have landed, lets the next
  // group start. (Here, in the group's part, which the tile's end, every
  // group's arithmetic, comes before.)
  b.setInsertionPointAfter(blocksLanded);
  auto handOn = b.create<scf::IfOp>(loc, tileEnd, /*withElseRegion=*/false);
  b.setInsertionPoint(handOn.thenBlock()->getTerminator());
  b.create<tilegpu::ArriveBarrierOp>(loc, nextTurn);
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
  // The code after the loop runs once per program: in group 0, once every
  // group has left the loop (a barrier of all the consumers' threads), so
  // that it follows every tile's pointer stores as it would without groups
  // (TMA stores are known complete only at the kernel's end, either way).
  Block *consumer = loop->getBlock();
  Operation *end = consumer->getTerminator();
  Operation *first = b.getInsertionPoint() == consumer->end() ? end : &*b.getInsertionPoint();
  if (first != end) {
    auto together = b.create<tilegpu::BarrierOp>(loc);
    together->setAttr(tilegpu::kBarrierThreadsAttr,
                      b.getI32IntegerAttr(int32_t(groups.groups * groups.warps * 32)));
    Value isFirst =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, group, i32Value(b, loc, 0));
    auto once = b.create<scf::IfOp>(loc, isFirst, /*withElseRegion=*/false);
    for (Operation &op :
         llvm::make_early_inc_range(llvm::make_range(first->getIterator(), end->getIterator())))
      op.moveBefore(once.thenBlock()->getTerminator());
  }
  return success();
}
