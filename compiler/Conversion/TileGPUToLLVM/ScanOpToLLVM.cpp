// tile.scan → an inclusive scan in registers, then across lanes with
// shfl.sync.up, then across warps through shared memory.
//
// Along the axis an element's position is, in the bits of the operand's
// linear layout (ScanAxis):
//   rep * (spt * lanes * warps) + warp * (spt * lanes) + lane * spt + e
// where spt, lanes, warps and the repetitions are 2^(their bit counts).
// For each line (the other coordinates) and each repetition:
// 1. each thread scans its spt registers in order;
// 2. lanes scan their totals with a Hillis-Steele ladder of shfl.sync.up
//    (log2 lanes steps), and each lane folds the inclusive total of the
//    lanes before it into its registers;
// 3. when warps split the axis, every warp's total goes to shared memory;
//    after a barrier each thread folds the totals of the warps before it,
//    in warp order.
// Repetitions are then chained in order with the running total of the
// earlier ones. Earlier partials are always the left operand of the
// combiner, so it need only be associative; the grouping is fixed at
// compile time, so results are deterministic.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct ScanOpLowering : ContextPattern<tile::ScanOp> {
  using ContextPattern::ContextPattern;

  using Values = SmallVector<Value>;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    if (!srcType.getEncoding())
      return rewriter.notifyMatchFailure(op, "operand without a layout");
    unsigned axis = op.getAxis();
    tilegpu::LinearLayout layout = tilegpu::toLinearLayout(srcType);
    std::optional<ScanAxis> scanAxis = ScanAxis::of(layout, axis);
    if (!scanAxis)
      return rewriter.notifyMatchFailure(
          op, "the operand's layout does not run along the axis as registers, "
              "consecutive lanes, consecutive warps, repetitions");
    CrossWarpScratch scratch = getScanScratch(op);
    if (scratch.bytes && !op->hasAttr(tilegpu::kSharedOffsetAttr))
      return rewriter.notifyMatchFailure(
          op, "needs shared memory: run tilegpu-allocate-shared first");
    unsigned n = op.getSrcs().size();
    Block &combiner = op.getCombiner().front();
    auto combine = [&](ArrayRef<Value> earlier, ArrayRef<Value> later) {
      return applyCombiner(rewriter, combiner, earlier, later);
    };
    auto select = [&](Value cond, ArrayRef<Value> a, ArrayRef<Value> b) {
      Values out;
      for (auto [x, y] : llvm::zip(a, b))
        out.push_back(rewriter.create<LLVM::SelectOp>(loc, cond, x, y));
      return out;
    };
    SmallVector<Values> regs; // regs[k][r]
    for (Value packed : adaptor.getSrcs())
      regs.push_back(unpack(rewriter, loc, packed));

    int64_t lanes = int64_t(1) << scanAxis->laneBits;
    int64_t warps = int64_t(1) << scanAxis->warpBits;
    int64_t reps = int64_t(1) << scanAxis->repetitionBits;
    int64_t lanesBefore = int64_t(1) << scanAxis->firstLaneBit;
    int64_t warpsBefore = int64_t(1) << scanAxis->firstWarpBit;
    unsigned chunkBits =
        scanAxis->lowRegisterBits + scanAxis->laneBits + scanAxis->warpBits;

    // The distinct elements of this thread, by line (the other
    // coordinates), repetition and position in the thread; repeated
    // registers take their original's result.
    using Key = uint64_t;
    struct Line {
      // chunks[rep] = registers in axis order
      std::vector<std::map<int64_t, unsigned>> chunks;
      unsigned firstRegister = 0;
    };
    std::map<Key, Line> lines;
    int32_t numRegs = layout.getInDimSize(tilegpu::kRegister);
    int32_t freeRegs = layout.getFreeVariableMask(tilegpu::kRegister);
    SmallVector<unsigned> original(numRegs);
    for (int32_t r = 0; r < numRegs; ++r) {
      original[r] = r & ~freeRegs;
      if (r & freeRegs)
        continue;
      tilegpu::LinearLayout::Image image = layout.applyOne(tilegpu::kRegister, r);
      int64_t part = image[axis];
      image[axis] = 0;
      Line &line = lines[layout.flattenOut(image)];
      if (line.chunks.empty()) {
        line.chunks.resize(reps);
        line.firstRegister = r;
      }
      line.chunks[part >> chunkBits].emplace(part & ((int64_t(1) << chunkBits) - 1), r);
    }

    Value lane, warpPos, laneQ;
    if (lanes > 1 || warps > 1) {
      ThreadIndex thread = threadIndex(rewriter, loc, context);
      lane = thread.lane;
      // This lane's and warp's positions along the axis among the distinct
      // ones.
      laneQ = extractBits(rewriter, loc, lane, int32_t((lanes - 1) * lanesBefore));
      warpPos = extractBits(rewriter, loc, thread.warp,
                            int32_t((warps - 1) * warpsBefore));
    }
    auto atLeast = [&](Value pos, int64_t m) -> Value {
      return rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::uge, pos,
                                           i32Constant(rewriter, loc, m));
    };

    // result[r] for distinct registers; totals[line][rep] for the warp
    // phase (the total of the lanes of this warp).
    std::map<unsigned, Values> result;
    std::map<Key, std::vector<Values>> warpTotals;
    for (auto &[key, line] : lines) {
      for (int64_t rep = 0; rep < reps; ++rep) {
        // 1. Within the thread.
        Values running;
        SmallVector<unsigned> order;
        for (auto &[pos, r] : line.chunks[rep]) {
          Values v;
          for (unsigned k = 0; k < n; ++k)
            v.push_back(regs[k][r]);
          running = running.empty() ? v : combine(running, v);
          result[r] = running;
          order.push_back(r);
        }
        assert(!order.empty() && "every repetition of a line has registers");
        Values total = running;
        // 2. Across lanes.
        if (lanes > 1) {
          Values inclusive = total;
          for (int64_t m = 1; m < lanes; m *= 2) {
            Values earlier;
            for (Value v : inclusive)
              earlier.push_back(shuffle(rewriter, loc, v, NVVM::ShflKind::up,
                                        unsigned(m * lanesBefore)));
            inclusive = select(atLeast(laneQ, m), combine(earlier, inclusive), inclusive);
          }
          Values before;
          for (Value v : inclusive)
            before.push_back(shuffle(rewriter, loc, v, NVVM::ShflKind::up, lanesBefore));
          Value hasBefore = atLeast(laneQ, 1);
          for (unsigned r : order)
            result[r] = select(hasBefore, combine(before, result[r]), result[r]);
          // The last distinct lane's inclusive total, in every lane.
          Value last = rewriter.create<LLVM::AddOp>(
              loc, lane,
              rewriter.create<LLVM::MulOp>(
                  loc,
                  rewriter.create<LLVM::SubOp>(loc, i32Constant(rewriter, loc, lanes - 1),
                                               laneQ),
                  i32Constant(rewriter, loc, lanesBefore)));
          total.clear();
          for (Value v : inclusive)
            total.push_back(shuffle(rewriter, loc, v, NVVM::ShflKind::idx, last));
        }
        warpTotals[key].push_back(total);
      }
    }

    // 3. Across warps: totals to shared memory, one barrier, prefixes back.
    if (warps > 1) {
      int64_t lineCount = scratch.slots / (reps * warps);
      Value base = sharedMemoryOf(rewriter, loc, op);
      SmallVector<Type> memoryTypes;
      for (Value src : op.getSrcs())
        memoryTypes.push_back(memoryElementType(
            cast<RankedTensorType>(src.getType()).getElementType()));
      auto coords = registerCoordinates(rewriter, loc, layout, context);
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);
      auto slot = [&](unsigned k, Value index) -> Value {
        Value byteBase = rewriter.create<LLVM::GEPOp>(
            loc, sharedPtr, rewriter.getI8Type(), base,
            ValueRange{i32Constant(rewriter, loc, scratch.operandOffsets[k])});
        return rewriter.create<LLVM::GEPOp>(loc, sharedPtr, memoryTypes[k], byteBase,
                                            ValueRange{index});
      };
      // Slot of (line, rep, warp w): ((rep * warps) + w) * lineCount + line.
      std::map<Key, Value> lineIndex;
      for (auto &[key, line] : lines)
        lineIndex[key] = linearIndex(rewriter, loc, coords[line.firstRegister],
                                     srcType.getShape(), axis);
      auto slotIndex = [&](const Key &key, int64_t rep, Value w) -> Value {
        Value group = rewriter.create<LLVM::AddOp>(
            loc, i32Constant(rewriter, loc, rep * warps), w);
        return rewriter.create<LLVM::AddOp>(
            loc,
            rewriter.create<LLVM::MulOp>(loc, group,
                                         i32Constant(rewriter, loc, lineCount)),
            lineIndex[key]);
      };
      for (auto &[key, totals] : warpTotals)
        for (int64_t rep = 0; rep < reps; ++rep)
          for (unsigned k = 0; k < n; ++k) {
            Value v = totals[rep][k];
            if (v.getType() != memoryTypes[k])
              v = rewriter.create<LLVM::ZExtOp>(loc, memoryTypes[k], v);
            rewriter.create<LLVM::StoreOp>(loc, v, slot(k, slotIndex(key, rep, warpPos)));
          }
      ctaBarrier(rewriter, loc, context);
      for (auto &[key, line] : lines)
        for (int64_t rep = 0; rep < reps; ++rep) {
          auto load = [&](int64_t w) {
            Values loaded;
            for (unsigned k = 0; k < n; ++k) {
              Type element = warpTotals[key][rep][k].getType();
              Value v = rewriter.create<LLVM::LoadOp>(
                  loc, memoryTypes[k],
                  slot(k, slotIndex(key, rep, i32Constant(rewriter, loc, w))));
              if (element != memoryTypes[k])
                v = rewriter.create<LLVM::TruncOp>(loc, element, v);
              loaded.push_back(v);
            }
            return loaded;
          };
          // prefix = combination of warps 0 .. warpPos-1; the whole
          // repetition's total replaces the warp's for the chaining below.
          Values inclusive = load(0), prefix = inclusive;
          for (int64_t w = 1; w < warps; ++w) {
            inclusive = combine(inclusive, load(w));
            if (w + 1 < warps)
              prefix = select(atLeast(warpPos, w + 1), inclusive, prefix);
          }
          Value hasBefore = atLeast(warpPos, 1);
          for (auto &[pos, r] : line.chunks[rep])
            result[r] = select(hasBefore, combine(prefix, result[r]), result[r]);
          warpTotals[key][rep] = inclusive;
        }
    }

    // Repetitions in order, each after the total of those before it.
    if (reps > 1)
      for (auto &[key, line] : lines) {
        Values carry = warpTotals[key][0];
        for (int64_t rep = 1; rep < reps; ++rep) {
          for (auto &[pos, r] : line.chunks[rep])
            result[r] = combine(carry, result[r]);
          if (rep + 1 < reps)
            carry = combine(carry, warpTotals[key][rep]);
        }
      }

    SmallVector<Value> results;
    for (unsigned k = 0; k < n; ++k) {
      Values values;
      for (int32_t r = 0; r < numRegs; ++r)
        values.push_back(result[original[r]][k]);
      results.push_back(pack(rewriter, loc,
                             getTypeConverter()->convertType(op.getResult(k).getType()),
                             values));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void tilec::lowering::populateScanOpToLLVMPatterns(TileTypeConverter &converter,
                                                   const LoweringContext &context,
                                                   RewritePatternSet &patterns) {
  patterns.add<ScanOpLowering>(converter, context);
}
