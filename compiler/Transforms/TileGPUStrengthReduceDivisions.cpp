// tilegpu-strength-reduce-divisions: a 32-bit integer division or
// remainder inside a loop, by a divisor the loop does not change, becomes a
// multiply-high by a reciprocal ("magic number") computed once before the
// loop, with a shift and, for signed operands, a sign correction.
//
// Why: NVIDIA GPUs have no integer divide. A division by a runtime value
// is a sequence of about 20 instructions around a float reciprocal
// (I2F, MUFU.RCP, F2I, IMAD.HI and two corrections), one long chain of
// dependent latencies. A persistent kernel's flat loop finds each
// iteration's tile and K step by dividing its induction variable by
// counts known only at run time (tiles per group, K steps), and ptxas
// does not hoist any of it: on an H100, three such chains per iteration
// made the persistent matmul issue 70% more instructions than the
// one-tile-per-program kernel and stall on their latencies. After this
// pass each division is a multiply-high and four shifts and adds.
//
// The reciprocal is the round-up variant of Granlund and Montgomery
// ("Division by invariant integers using multiplication", PLDI 1994,
// figure 4.1), exact for every 32-bit unsigned dividend: for a divisor
// d >= 1, l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1, then
// t = mulhi(m, n) and n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0).
// m takes a 32-step restoring division, before the loop. Signed division
// (C's: towards zero) divides the magnitudes and gives the quotient the
// sign of n XOR d; a remainder is n - (n / d) d.
//
// Left alone: constant divisors (LLVM multiplies by their reciprocal
// already), divisions outside loops or run fewer than 16 times by loops of
// known trip counts (the 32 steps setting up m cost more than they save),
// loops of dots (see invariantLoop), other widths, and tensors. The setup
// runs before the outermost loop the divisor is invariant in, whether or
// not the division would: it divides by 1 where the divisor is 0, so it is
// defined for every input (dividing by 0, or INT_MIN by -1, stays
// undefined as arith says, with some result).
#include "compiler/Dialect/TileGPU/TileGPU.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseMap.h"

#define DEBUG_TYPE "tilegpu-strength-reduce-divisions"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUSTRENGTHREDUCEDIVISIONS
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// What dividing by one divisor takes, computed before the loop: the
/// magic multiplier and the two shifts, for the divisor's magnitude where
/// it is signed.
struct Reciprocal {
  Value magic, shift1, shift2;
};

Value constantI32(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIntOp>(loc, b.getI32Type(), v);
}

/// m, min(l, 1) and max(l - 1, 0) for the unsigned divisor `d` (1 where
/// it is 0).
Reciprocal computeReciprocal(OpBuilder &b, Location loc, Value d) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value zero = constantI32(b, loc, 0), one = constantI32(b, loc, 1);
  Value isZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, d, zero);
  Value safe = b.create<arith::SelectOp>(loc, isZero, one, d);
  // l = ceil(log2 d) = 32 - clz(d - 1) (clz(0) = 32).
  Value leading = b.create<math::CountLeadingZerosOp>(loc, b.create<arith::SubIOp>(loc, safe, one));
  Value l = b.create<arith::SubIOp>(loc, constantI32(b, loc, 32), leading);
  // m = floor(((2^l - d) << 32) / d) + 1: 2^l - d < d, so the quotient
  // fits 32 bits, and the sum does not wrap (it is 1 when d is a power of
  // two). The quotient comes bit by bit (a restoring division of 32 steps
  // in 32-bit registers), not from a 64-bit division: PTX's div.u64 is a
  // call, and with a call in the kernel the driver's compiler serialised
  // every wgmma (H100, driver 580: silently, where ptxas 13.0 and 13.5 do
  // not; the most likely cause, docs/pipeline.md).
  Value power = b.create<arith::TruncIOp>(
      loc, i32,
      b.create<arith::ShLIOp>(loc, b.create<arith::ConstantIntOp>(loc, i64, 1),
                              b.create<arith::ExtUIOp>(loc, i64, l)));
  // (2^l - d mod 2^32 is right for l = 32 too.)
  Value excess = b.create<arith::SubIOp>(loc, power, safe);
  Value c31 = constantI32(b, loc, 31);
  auto steps = b.create<scf::ForOp>(
      loc, zero, constantI32(b, loc, 32), one, ValueRange{excess, zero},
      [&](OpBuilder &body, Location at, Value, ValueRange carried) {
        // The remainder r < d: 2r can take 33 bits, the top one in r's bit
        // 31; 2r >= d when that bit is set or the 32-bit 2r is; 2r - d < d
        // then fits, so wrapping arithmetic gives it.
        Value r = carried[0];
        Value doubled = body.create<arith::ShLIOp>(at, r, one);
        Value carry = body.create<arith::CmpIOp>(at, arith::CmpIPredicate::ne,
                                                 body.create<arith::ShRUIOp>(at, r, c31), zero);
        Value fits = body.create<arith::OrIOp>(
            at, carry, body.create<arith::CmpIOp>(at, arith::CmpIPredicate::uge, doubled, safe));
        Value remainder = body.create<arith::SelectOp>(
            at, fits, body.create<arith::SubIOp>(at, doubled, safe), doubled);
        Value bit = body.create<arith::ExtUIOp>(at, i32, fits);
        Value quotient =
            body.create<arith::OrIOp>(at, body.create<arith::ShLIOp>(at, carried[1], one), bit);
        body.create<scf::YieldOp>(at, ValueRange{remainder, quotient});
      });
  Value magic = b.create<arith::AddIOp>(loc, steps.getResult(1), one);
  Value shift1 = b.create<arith::MinUIOp>(loc, l, one);
  Value shift2 = b.create<arith::SubIOp>(loc, l, shift1);
  return {magic, shift1, shift2};
}

/// n / d for unsigned n, by d's reciprocal.
Value divideUnsigned(OpBuilder &b, Location loc, Value n, const Reciprocal &r) {
  Value high = b.create<arith::MulUIExtendedOp>(loc, r.magic, n).getHigh();
  Value half = b.create<arith::ShRUIOp>(loc, b.create<arith::SubIOp>(loc, n, high), r.shift1);
  return b.create<arith::ShRUIOp>(loc, b.create<arith::AddIOp>(loc, high, half), r.shift2);
}

Value magnitude(OpBuilder &b, Location loc, Value x) {
  Value zero = constantI32(b, loc, 0);
  Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero);
  return b.create<arith::SelectOp>(loc, negative, b.create<arith::SubIOp>(loc, zero, x), x);
}

/// The pure, region-free ops inside `loop` that compute `v` from values
/// defined outside it, operands first, into `chain` (as the pipeliner's
/// guard `select(d == 0, 1, d)` of a divisor that runs ahead is computed
/// inside); false when `v` depends on something the loop changes. (A
/// divisor is a short chain: past 8 ops deep it is not worth following.)
bool computableOutside(LoopLikeOpInterface loop, Value v, SmallVectorImpl<Operation *> &chain,
                       unsigned depth = 0) {
  if (loop.isDefinedOutsideOfLoop(v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 8 || def->getNumRegions() || !isPure(def))
    return false;
  if (llvm::is_contained(chain, def))
    return true;
  for (Value operand : def->getOperands())
    if (!computableOutside(loop, operand, chain, depth + 1))
      return false;
  chain.push_back(def);
  return true;
}

bool hasDots(LoopLikeOpInterface loop) {
  return loop
      ->walk([](Operation *inner) {
        return isa<tilegpu::WarpGroupDotOp, tile::DotOp>(inner) ? WalkResult::interrupt()
                                                                : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Fewer runs of a division than this do not pay for the reciprocal's
/// setup (its 32 steps, about 200 instructions, against about 20 saved
/// per division).
constexpr uint64_t kMinimumRuns = 16;

/// The outermost loop around `op` whose iterations all divide by the same
/// `divisor`, after moving the ops computing the divisor out of it; null
/// (and nothing moved) when there is none, when the loops up to it run the
/// division fewer than kMinimumRuns times (all their trip counts known),
/// or when the loop around `op` has dots.
///
/// Loops of dots are left alone: their accumulators fill the registers.
/// On an H100 (driver 580) the persistent matmul's wgmma were serialised,
/// with no word in the driver's log, 541 -> 518 TFLOP/s at 4096^3, while
/// the reciprocals were set up by a 64-bit division, a call (see
/// computeReciprocal), and loops with no reduced division in them were
/// serialised too: to be measured again without the call. The int8
/// persistent matmul (mma.sync) at 128 x 256 spilled 16 bytes with the
/// reciprocals live. A warp-specialised kernel's producer loop, which
/// only copies, gets its divisions reduced.
LoopLikeOpInterface invariantLoop(Operation *op, Value divisor) {
  LoopLikeOpInterface chosen;
  SmallVector<Operation *> chain;
  uint64_t runs = 1;
  bool runsKnown = true;
  for (auto loop = op->getParentOfType<LoopLikeOpInterface>(); loop;
       loop = loop->getParentOfType<LoopLikeOpInterface>()) {
    SmallVector<Operation *> outside;
    if (hasDots(loop) || !computableOutside(loop, divisor, outside))
      break;
    chosen = loop;
    chain = std::move(outside);
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      runs *= std::min<uint64_t>(trips->getZExtValue(), kMinimumRuns);
    else
      runsKnown = false;
  }
  if (!chosen || (runsKnown && runs < kMinimumRuns))
    return {};
  for (Operation *def : chain)
    def->moveBefore(chosen);
  return chosen;
}

struct TileGPUStrengthReduceDivisionsPass
    : tilec::impl::TileGPUStrengthReduceDivisionsBase<TileGPUStrengthReduceDivisionsPass> {
  void runOnOperation() override {
    auto isDivision = [](Operation *op) {
      return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(op) &&
             op->getResult(0).getType().isInteger(32);
    };
    // First fold the divisors' computations: the pipeliner guards a
    // divisor that runs ahead with select(d == 0, 1, d), a constant one
    // too, and a constant divisor is LLVM's to multiply by.
    SmallVector<Operation *> divisorOps;
    getOperation().walk([&](Operation *op) {
      if (!isDivision(op))
        return;
      SmallVector<Value> pending{op->getOperand(1)};
      while (!pending.empty())
        if (Operation *def = pending.pop_back_val().getDefiningOp())
          if (isa<arith::SelectOp, arith::CmpIOp>(def) && !llvm::is_contained(divisorOps, def)) {
            divisorOps.push_back(def);
            llvm::append_range(pending, def->getOperands());
          }
    });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // (Folding only: no patterns.)
    (void)applyOpPatternsGreedily(divisorOps, FrozenRewritePatternSet(), config);
    SmallVector<Operation *> divisions;
    getOperation().walk([&](Operation *op) {
      if (isDivision(op) && !matchPattern(op->getOperand(1), m_Constant()))
        divisions.push_back(op);
    });
    // One reciprocal per (divisor, loop, signedness).
    llvm::DenseMap<std::tuple<Value, Operation *, unsigned>, Reciprocal> reciprocals;
    for (Operation *op : divisions) {
      Value n = op->getOperand(0), d = op->getOperand(1);
      LoopLikeOpInterface loop = invariantLoop(op, d);
      if (!loop)
        continue;
      bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
      auto key = std::make_tuple(d, loop.getOperation(), unsigned(isSigned));
      auto it = reciprocals.find(key);
      if (it == reciprocals.end()) {
        OpBuilder before(loop);
        Value magnitudeOfD = isSigned ? magnitude(before, op->getLoc(), d) : d;
        it = reciprocals.insert({key, computeReciprocal(before, op->getLoc(), magnitudeOfD)}).first;
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      Value quotient;
      if (isSigned) {
        Value q = divideUnsigned(b, loc, magnitude(b, loc, n), it->second);
        // -1 where n and d differ in sign, else 0: q ^ s - s negates.
        Value sign = b.create<arith::ShRSIOp>(loc, b.create<arith::XOrIOp>(loc, n, d),
                                              constantI32(b, loc, 31));
        quotient = b.create<arith::SubIOp>(loc, b.create<arith::XOrIOp>(loc, q, sign), sign);
      } else {
        quotient = divideUnsigned(b, loc, n, it->second);
      }
      Value result = quotient;
      if (isa<arith::RemSIOp, arith::RemUIOp>(op))
        result = b.create<arith::SubIOp>(loc, n, b.create<arith::MulIOp>(loc, quotient, d));
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
    }
  }
};
} // namespace
