// tile.scan → an inclusive scan in registers, then across lanes with
// shfl.sync.up, then across warps through shared memory.
//
// Along the axis an element's position is
//   rep * (spt * tpw * wpc) + warp * (spt * tpw) + lane * spt + e
// (spt/tpw/wpc: sizePerThread, threadsPerWarp, warpsPerCTA of the axis).
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
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct ScanOpLowering : OpConversionPattern<tile::ScanOp> {
  ScanOpLowering(TileTypeConverter &converter, const TargetInfo &target)
      : OpConversionPattern(converter, &converter.getContext()), target(target) {}

  using Values = SmallVector<Value>;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    if (!srcType.getEncoding())
      return rewriter.notifyMatchFailure(op, "operand without a layout");
    tilegpu::RegisterMap map(srcType);
    unsigned axis = op.getAxis();
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

    auto root = map.root();
    unsigned rd = map.rootDim(axis);
    int64_t extent = map.shape()[axis];
    int64_t spt = root.getSizePerThread()[rd], tpw = root.getThreadsPerWarp()[rd],
            wpc = root.getWarpsPerCTA()[rd];
    int64_t ctaTile = spt * tpw * wpc;
    unsigned lanesBefore = 1, warpsBefore = 1;
    for (unsigned d : root.getOrder()) {
      if (d == rd)
        break;
      lanesBefore *= root.getThreadsPerWarp()[d];
      warpsBefore *= root.getWarpsPerCTA()[d];
    }
    // Lanes and warps beyond these hold copies (the tensor is smaller than
    // the CTA tile along the axis).
    int64_t lanes = std::min<int64_t>(tpw, std::max<int64_t>(1, extent / spt));
    int64_t warps = std::min<int64_t>(wpc, std::max<int64_t>(1, extent / (spt * tpw)));
    int64_t reps = std::max<int64_t>(1, extent / ctaTile);

    // The distinct elements of this thread, by line, repetition and
    // position in the thread; repeated registers take their original's
    // result.
    using Key = SmallVector<int64_t>;
    struct Line {
      // chunks[rep] = registers in axis order
      std::vector<std::map<int64_t, unsigned>> chunks;
      unsigned firstRegister = 0;
    };
    std::map<Key, Line> lines;
    SmallVector<unsigned> original(map.numRegisters());
    std::map<std::pair<Key, int64_t>, unsigned> byElement;
    for (unsigned r = 0; r < map.numRegisters(); ++r) {
      Key key;
      for (unsigned d = 0; d < map.rank(); ++d)
        if (d != axis)
          key.push_back(map.constPart(r, d) % map.shape()[d]);
      int64_t part = map.constPart(r, axis) % std::max<int64_t>(extent, ctaTile);
      auto [it, inserted] = byElement.try_emplace({key, part % extent}, r);
      original[r] = it->second;
      if (!inserted)
        continue;
      Line &line = lines[key];
      if (line.chunks.empty()) {
        line.chunks.resize(reps);
        line.firstRegister = r;
      }
      line.chunks[part / ctaTile].emplace(part % ctaTile, r);
    }

    Value lane, warpPos, laneQ;
    if (lanes > 1 || warps > 1) {
      Value tid = threadId(rewriter, loc, target);
      lane = rewriter.create<LLVM::AndOp>(loc, tid, i32Constant(rewriter, loc, 31));
      // This lane's position along the axis among the distinct ones.
      laneQ = rewriter.create<LLVM::AndOp>(
          loc,
          rewriter.create<LLVM::LShrOp>(
              loc, lane, i32Constant(rewriter, loc, llvm::Log2_32(lanesBefore))),
          i32Constant(rewriter, loc, lanes - 1));
      Value warp = rewriter.create<LLVM::LShrOp>(loc, tid, i32Constant(rewriter, loc, 5));
      warpPos = rewriter.create<LLVM::AndOp>(
          loc,
          rewriter.create<LLVM::LShrOp>(
              loc, warp, i32Constant(rewriter, loc, llvm::Log2_32(warpsBefore))),
          i32Constant(rewriter, loc, warps - 1));
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
        if (order.empty())
          return rewriter.notifyMatchFailure(op, "a repetition without registers");
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
      int64_t lineCount = 1;
      for (unsigned d = 0; d < map.rank(); ++d)
        if (d != axis)
          lineCount *= map.shape()[d];
      int64_t slots = reps * warps * lineCount;
      Value base = sharedMemoryBase(rewriter, loc, op);
      SmallVector<Type> memoryTypes;
      SmallVector<int64_t> offsets;
      int64_t bytes = 0;
      for (unsigned k = 0; k < n; ++k) {
        Type element = cast<RankedTensorType>(op.getSrcs()[k].getType()).getElementType();
        memoryTypes.push_back(element.isInteger(1) ? rewriter.getI8Type() : element);
        offsets.push_back(bytes);
        bytes += slots * tile::getElementBytes(element);
        bytes = (bytes + 15) / 16 * 16;
      }
      requireSharedBytes(op, bytes);
      auto coords = registerCoordinates(rewriter, loc, map, target);
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);
      auto slot = [&](unsigned k, Value index) -> Value {
        Value byteBase = rewriter.create<LLVM::GEPOp>(
            loc, sharedPtr, rewriter.getI8Type(), base,
            ValueRange{i32Constant(rewriter, loc, offsets[k])});
        return rewriter.create<LLVM::GEPOp>(loc, sharedPtr, memoryTypes[k], byteBase,
                                            ValueRange{index});
      };
      // Slot of (line, rep, warp w): ((rep * warps) + w) * lineCount + line.
      std::map<Key, Value> lineIndex;
      for (auto &[key, line] : lines)
        lineIndex[key] = indexWithoutAxis(rewriter, loc, coords[line.firstRegister],
                                          map.shape(), axis);
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
      rewriter.create<NVVM::Barrier0Op>(loc);
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
      rewriter.create<NVVM::Barrier0Op>(loc);
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
      for (unsigned r = 0; r < map.numRegisters(); ++r)
        values.push_back(result[original[r]][k]);
      results.push_back(pack(rewriter, loc,
                             getTypeConverter()->convertType(op.getResult(k).getType()),
                             values));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  const TargetInfo &target;
};

} // namespace

void tilec::lowering::populateScanOpToLLVMPatterns(TileTypeConverter &converter,
                                                   const TargetInfo &target,
                                                   RewritePatternSet &patterns) {
  patterns.add<ScanOpLowering>(converter, target);
}
