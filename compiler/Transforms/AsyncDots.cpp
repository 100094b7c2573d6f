#include "compiler/Transforms/AsyncDots.h"

#include "compiler/Transforms/LoopUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilec;

namespace {

/// The epilogue of `dot`, whose result the loop carries as iteration
/// argument `index`, when every use of the result but the carrying one is
/// inside one scf.if of the loop's body after the dot (no results, no
/// else), and what is carried is the result itself or a select of zeros
/// under the if's condition and the result (the accumulator reset when a
/// tile ends). Then only that if needs the dot's instructions done, and
/// leaveDotsInFlight waits for them inside it.
std::optional<AsyncDot> withEpilogue(scf::ForOp loop, tilegpu::WarpGroupDotOp dot,
                                     unsigned index) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value carried = yield.getOperand(index);
  AsyncDot found{dot, scf::IfOp(), carried.getDefiningOp<arith::SelectOp>()};
  if (found.reset &&
      (found.reset.getFalseValue() != dot.getD() || !isZeroFill(found.reset.getTrueValue()) ||
       !found.reset->hasOneUse() || found.reset->getBlock() != loop.getBody()))
    return std::nullopt;
  if (!found.reset && carried != dot.getD())
    return std::nullopt;
  // The value carried must be the only one: a second iteration argument
  // (or a second use by the reset) would take the result still in flight.
  Value whole = found.reset ? found.reset.getResult() : dot.getD();
  if (llvm::count(yield->getOperands(), whole) != 1)
    return std::nullopt;
  for (OpOperand &use : dot.getD().getUses()) {
    Operation *user = use.getOwner();
    if ((!found.reset && user == yield.getOperation()) ||
        (found.reset && user == found.reset.getOperation() && use.getOperandNumber() == 2))
      continue;
    Operation *top = loop.getBody()->findAncestorOpInBlock(*user);
    auto epilogue = dyn_cast_or_null<scf::IfOp>(top);
    if (!epilogue || (found.epilogue && epilogue != found.epilogue))
      return std::nullopt;
    found.epilogue = epilogue;
  }
  if (!found.epilogue)
    return found.reset ? std::nullopt : std::optional<AsyncDot>(found);
  scf::IfOp epilogue = found.epilogue;
  if (epilogue->getNumResults() || !epilogue.getElseRegion().empty() ||
      !dot->isBeforeInBlock(epilogue) ||
      (found.reset && found.reset.getCondition() != epilogue.getCondition()))
    return std::nullopt;
  // (The rewritten if yields the reset's zeros where the epilogue was.)
  if (found.reset) {
    Value zeros = found.reset.getTrueValue();
    Operation *def = zeros.getDefiningOp();
    if (!loop.isDefinedOutsideOfLoop(zeros) &&
        !(def && def->getBlock() == loop.getBody() && def->isBeforeInBlock(epilogue)))
      return std::nullopt;
  }
  // (Another dot inside would find the tensor cores busy with this one's
  // instructions in the other iterations too: left synchronous.)
  if (epilogue->walk([](tilegpu::WarpGroupDotOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return std::nullopt;
  return found;
}

/// Whether `op` may run while a dot's instructions are still in flight:
/// it writes no memory and has no effect MLIR cannot name (the dot reads
/// ring buffers nothing in its epilogue writes, but a barrier freeing a
/// slot, or anything unknown, must come after the wait), and neither it
/// nor an op inside it reads `waited`.
bool mayRunBeforeWait(Operation *op, Value waited) {
  if (op->hasTrait<OpTrait::IsTerminator>())
    return false;
  bool reads = op->walk([&](Operation *inner) {
                   return llvm::is_contained(inner->getOperands(), waited)
                              ? WalkResult::interrupt()
                              : WalkResult::advance();
                 }).wasInterrupted();
  if (reads)
    return false;
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return effects && llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read>(e.getEffect());
         });
}

/// Moves `wait` down its block to just after the last op that reads memory
/// among those before the first that reads what it waited for or may not
/// run before it (mayRunBeforeWait): the epilogue's own loads (a bias, a
/// residual) and the arithmetic before them (their addresses) then go out
/// while the tile's last dot still multiplies, their latency hidden behind
/// it instead of added after it, once per tile. Arithmetic after the last
/// load stays after the wait: moved, it would only hold registers beside
/// the accumulator still being written. Without such a load the wait stays
/// where it is.
void sinkWait(RewriterBase &rewriter, tilegpu::WarpGroupDotWaitOp wait) {
  Operation *afterLastRead = nullptr;
  for (Operation *op = wait->getNextNode(); op && mayRunBeforeWait(op, wait.getResult());
       op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      afterLastRead = op->getNextNode();
  if (afterLastRead)
    rewriter.moveOpBefore(wait, afterLastRead);
}

/// Rewrites the epilogue of an in-flight dot (withEpilogue) into
///   %r = scf.if %cond { <the epilogue's loads>; %w = warp_group_dot_wait %d;
///                       <the rest of the epilogue on %w>;
///                       yield %zeros (reset) or %w }
///        else { yield %d }
/// carried instead of the dot's result (or the reset select): only the
/// iterations that run the epilogue wait for the dot, the others leave it
/// in flight into the next iteration's dot.
void waitInEpilogue(RewriterBase &rewriter, scf::ForOp loop, AsyncDot async) {
  scf::IfOp epilogue = async.epilogue;
  Value d = async.dot.getD();
  Location loc = epilogue.getLoc();
  rewriter.setInsertionPoint(epilogue);
  auto waited = rewriter.create<scf::IfOp>(loc, TypeRange{d.getType()},
                                           epilogue.getCondition(), /*withElse=*/true);
  Block *then = waited.thenBlock();
  rewriter.setInsertionPointToStart(then);
  auto wait = rewriter.create<tilegpu::WarpGroupDotWaitOp>(loc, d.getType(), d, 0);
  Block *body = epilogue.thenBlock();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, then, then->end());
  rewriter.replaceUsesWithIf(d, wait.getResult(), [&](OpOperand &use) {
    return use.getOwner() != wait.getOperation() && waited->isAncestor(use.getOwner());
  });
  rewriter.setInsertionPointToEnd(then);
  rewriter.create<scf::YieldOp>(
      loc, async.reset ? async.reset.getTrueValue() : Value(wait.getResult()));
  sinkWait(rewriter, wait);
  rewriter.setInsertionPointToStart(waited.elseBlock());
  rewriter.create<scf::YieldOp>(loc, d);
  rewriter.eraseOp(epilogue);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  Value carried = async.reset ? async.reset.getResult() : d;
  for (OpOperand &operand : yield->getOpOperands())
    if (operand.get() == carried)
      rewriter.modifyOpInPlace(yield, [&] { operand.set(waited.getResult(0)); });
  if (async.reset)
    rewriter.eraseOp(async.reset);
}

} // namespace

SmallVector<AsyncDot> tilec::asynchronousDots(scf::ForOp loop,
                                              ArrayRef<tilegpu::WarpGroupDotOp> dots,
                                              function_ref<bool(Value)> isRingBuffer) {
  auto isRing = [&](Value buffer) {
    if (auto view = buffer.getDefiningOp<tilegpu::MemDescTransOp>())
      buffer = view.getSrc();
    return isRingBuffer(buffer);
  };
  SmallVector<AsyncDot> async;
  for (tilegpu::WarpGroupDotOp dot : dots) {
    // (A in registers: the instructions read them until the wait. A dot
    // adding fp8 runs in f32 waits for them itself: nothing stays in
    // flight, and a spare ring buffer would only cost shared memory.)
    if (!isa<tilegpu::MemDescType>(dot.getA().getType()) || dot.addsRunsInF32())
      return {};
    for (Value buffer : std::initializer_list<Value>{dot.getA(), dot.getB()})
      if (!isRing(buffer) && !loop.isDefinedOutsideOfLoop(buffer))
        return {};
    auto acc = dyn_cast<BlockArgument>(dot.getC());
    if (!acc || acc.getOwner() != loop.getBody() || !acc.hasOneUse())
      return {};
    std::optional<AsyncDot> inFlight =
        withEpilogue(loop, dot, acc.getArgNumber() - loop.getNumInductionVars());
    if (!inFlight)
      return {};
    // (Two dots read by one epilogue would need one rewrite of it for
    // both: left synchronous.)
    if (inFlight->epilogue && llvm::any_of(async, [&](const AsyncDot &other) {
          return other.epilogue == inFlight->epilogue;
        }))
      return {};
    async.push_back(*inFlight);
  }
  return async;
}

void tilec::leaveDotsInFlight(RewriterBase &rewriter, scf::ForOp loop,
                              ArrayRef<AsyncDot> async, bool waitAfter) {
  Location loc = loop.getLoc();
  SmallVector<unsigned> waited; // the loop results the wait after it ties
  for (const AsyncDot &inFlight : async) {
    tilegpu::WarpGroupDotOp dot = inFlight.dot;
    dot.setPending(1);
    if (inFlight.epilogue) {
      waitInEpilogue(rewriter, loop, inFlight);
      rewriter.setInsertionPointAfter(loop);
    }
    if (waitAfter)
      waited.push_back(cast<BlockArgument>(dot.getC()).getArgNumber() -
                       loop.getNumInductionVars());
  }
  if (waited.empty())
    return;
  auto waitFor = [&](ArrayRef<Value> results) {
    SmallVector<Value> done;
    for (Value result : results)
      done.push_back(
          rewriter.create<tilegpu::WarpGroupDotWaitOp>(loc, result.getType(), result, 0));
    return done;
  };
  SmallVector<Value> results;
  for (unsigned index : waited)
    results.push_back(loop.getResult(index));
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (trips && !trips->isZero()) {
    for (auto [result, done] : llvm::zip_equal(results, waitFor(results)))
      result.replaceAllUsesExcept(done, done.getDefiningOp());
    return;
  }
  // Only a loop that ran has instructions in flight; one that did not
  // left its initial accumulators, which the other arm yields as they
  // are. Without the guard that path (the accumulators' zeros, written by
  // moves) reaches the wait too, and ptxas may serialise every wgmma of
  // the function (warning C7515: registers a wgmma accumulates into
  // defined by other instructions inside a stage); yielding the loop's
  // results there instead would make it inject a wait (C7517). One guard
  // for every accumulator: with one per accumulator the later ones, still
  // in flight, would be copied through the earlier guards' branches
  // (C7517 again).
  Value ran = rewriter.create<arith::CmpIOp>(
      loc, loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      loop.getLowerBound(), loop.getUpperBound());
  auto guard = rewriter.create<scf::IfOp>(loc, ValueRange(results).getTypes(), ran,
                                          /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inside(rewriter);
    rewriter.setInsertionPointToStart(guard.thenBlock());
    rewriter.create<scf::YieldOp>(loc, waitFor(results));
    rewriter.setInsertionPointToStart(guard.elseBlock());
    SmallVector<Value> initial;
    for (unsigned index : waited)
      initial.push_back(loop.getInitArgs()[index]);
    rewriter.create<scf::YieldOp>(loc, initial);
  }
  for (auto [k, result] : llvm::enumerate(results))
    result.replaceUsesWithIf(guard.getResult(k), [&](OpOperand &use) {
      return !guard->isAncestor(use.getOwner());
    });
  rewriter.setInsertionPointAfter(guard);
}
