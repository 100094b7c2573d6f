// tile.reduce → registers, then warp shuffles, then shared memory, read off
// the operand's linear layout (AxisBits: which register, lane and warp bits
// reach the axis).
//
// 1. Each thread combines the registers it holds that differ only in axis
//    register bits (in register order).
// 2. For each lane bit that reaches the axis, lanes exchange partials with
//    shfl.sync.bfly; every lane ends with the same bits, since each step
//    combines the same two values in both lanes.
// 3. When warp bits reach the axis, each warp writes its partials to its
//    slots of the op's scratch (tilegpu-allocate-shared placed it), and
//    after a barrier every thread combines the warps' partials in warp
//    order. The order never depends on timing: results are deterministic.
#include "compiler/Analysis/SharedScratch.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {

/// The flat image of register r of `layout` with the axis cleared: the key
/// of the result element its partial belongs to.
uint64_t keyOf(const LinearLayout &layout, unsigned r, unsigned axis) {
  LinearLayout::Image image = layout.applyOne(tilegpu::kRegister, r);
  image[axis] = 0;
  return layout.flattenOut(image);
}

struct ReduceOpLowering : ContextPattern<tile::ReduceOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    unsigned axis = op.getAxis();
    LinearLayout layout = tilegpu::toLinearLayout(srcType);
    std::optional<AxisBits> bits = AxisBits::of(layout, axis);
    if (!bits)
      return rewriter.notifyMatchFailure(op, "the operand's layout mixes the "
                                             "axis with other dimensions");
    // The results must be laid out as the slice of the operand's layout.
    LinearLayout sliced =
        tilegpu::renameOutDims(layout.dropOutDim(tilegpu::outDimName(axis)),
                               tilegpu::outDimNames(srcType.getRank() - 1))
            .removeZeroBases(tilegpu::kRegister);
    for (Value result : op.getResults())
      if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
        if (tilegpu::toLinearLayout(tensor) != sliced)
          return rewriter.notifyMatchFailure(op, "result layout is not the "
                                                 "slice of the operand's");
    CrossWarpScratch scratch = getReduceScratch(op);
    if (scratch.bytes && !op->hasAttr(tilegpu::kSharedOffsetAttr))
      return rewriter.notifyMatchFailure(
          op, "needs shared memory: run tilegpu-allocate-shared first");

    unsigned n = op.getSrcs().size();
    Block &combiner = op.getCombiner().front();
    SmallVector<SmallVector<Value>> regs;
    for (Value packed : adaptor.getSrcs())
      regs.push_back(unpack(rewriter, loc, packed));

    // 1. Within the thread: one partial per result element, keyed by the
    // register image without the axis.
    llvm::MapVector<uint64_t, SmallVector<Value>> partial;
    llvm::DenseMap<uint64_t, unsigned> firstRegister;
    for (int32_t r = 0; r < layout.getInDimSize(tilegpu::kRegister); ++r) {
      if (isRepeatedRegister(layout, r))
        continue;
      SmallVector<Value> values;
      for (unsigned k = 0; k < n; ++k)
        values.push_back(regs[k][r]);
      uint64_t key = keyOf(layout, r, axis);
      auto [it, inserted] = partial.try_emplace(key, values);
      if (inserted)
        firstRegister[key] = r;
      else
        it->second = applyCombiner(rewriter, combiner, it->second, values);
    }

    // 2. Across the lanes that hold other parts of the axis.
    for (unsigned b = 0; b < 5; ++b) {
      if (!(bits->lanes >> b & 1))
        continue;
      for (auto &[key, values] : partial) {
        SmallVector<Value> other;
        for (Value v : values)
          other.push_back(shuffle(rewriter, loc, v, NVVM::ShflKind::bfly, 1u << b));
        values = applyCombiner(rewriter, combiner, values, other);
      }
    }

    // 3. Across warps, through the scratch.
    if (scratch.bytes) {
      int64_t outElements = scratch.slots >> llvm::popcount(uint32_t(bits->warps));
      SmallVector<int64_t> outShape;
      for (unsigned d = 0; d < srcType.getRank(); ++d)
        if (d != axis)
          outShape.push_back(srcType.getDimSize(d));
      Value base = sharedMemoryOf(rewriter, loc, op);
      ThreadIndex thread = threadIndex(rewriter, loc, context);
      Value warpPos = extractBits(rewriter, loc, thread.warp, bits->warps);
      SmallVector<Value> offsets = threadOffsets(rewriter, loc, layout,
                                                 HardwareIndex::ofThread(thread));
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);
      SmallVector<Type> memoryTypes;
      for (Value src : op.getSrcs())
        memoryTypes.push_back(memoryElementType(
            cast<RankedTensorType>(src.getType()).getElementType()));
      auto slot = [&](unsigned k, Value warpIndex, Value outIndex) -> Value {
        Value operandBase = rewriter.create<LLVM::GEPOp>(
            loc, sharedPtr, rewriter.getI8Type(), base,
            ValueRange{i32Constant(rewriter, loc, scratch.operandOffsets[k])});
        Value index = rewriter.create<LLVM::AddOp>(
            loc,
            rewriter.create<LLVM::MulOp>(loc, warpIndex,
                                         i32Constant(rewriter, loc, outElements)),
            outIndex);
        return rewriter.create<LLVM::GEPOp>(loc, sharedPtr, memoryTypes[k],
                                            operandBase, ValueRange{index});
      };
      llvm::DenseMap<uint64_t, Value> outIndexOf;
      for (auto &[key, values] : partial) {
        // The row-major index of this partial's element in the result.
        SmallVector<Value> coord =
            registerCoordinate(rewriter, loc, layout, firstRegister[key], offsets);
        coord.erase(coord.begin() + axis);
        Value index = linearIndex(rewriter, loc, coord, outShape);
        outIndexOf[key] = index;
        for (unsigned k = 0; k < n; ++k) {
          Value v = values[k];
          if (v.getType() != memoryTypes[k])
            v = rewriter.create<LLVM::ZExtOp>(loc, memoryTypes[k], v);
          rewriter.create<LLVM::StoreOp>(loc, v, slot(k, warpPos, index));
        }
      }
      ctaBarrier(rewriter, loc, context);
      int64_t warps = int64_t(1) << llvm::popcount(uint32_t(bits->warps));
      for (auto &[key, values] : partial) {
        auto load = [&](int64_t w) {
          SmallVector<Value> loaded;
          for (unsigned k = 0; k < n; ++k) {
            Type element = values[k].getType();
            Value v = rewriter.create<LLVM::LoadOp>(
                loc, memoryTypes[k],
                slot(k, i32Constant(rewriter, loc, w), outIndexOf[key]));
            if (element != memoryTypes[k])
              v = rewriter.create<LLVM::TruncOp>(loc, element, v);
            loaded.push_back(v);
          }
          return loaded;
        };
        values = load(0);
        for (int64_t w = 1; w < warps; ++w)
          values = applyCombiner(rewriter, combiner, values, load(w));
      }
    }

    // Results: a scalar, or the registers of the slice layout, each the
    // partial of its element.
    SmallVector<Value> results;
    for (unsigned k = 0; k < n; ++k) {
      auto tensor = dyn_cast<RankedTensorType>(op.getResult(k).getType());
      if (!tensor) {
        assert(partial.size() == 1 && "a scalar result has one partial");
        results.push_back(partial.begin()->second[k]);
        continue;
      }
      SmallVector<Value> values;
      for (int32_t r = 0; r < sliced.getInDimSize(tilegpu::kRegister); ++r) {
        // The slice's register r is the operand's key with the axis put
        // back as zero.
        LinearLayout::Image image = sliced.applyOne(tilegpu::kRegister, r);
        image.insert(image.begin() + axis, 0);
        auto it = partial.find(layout.flattenOut(image));
        assert(it != partial.end() && "every element of the slice has a partial");
        values.push_back(it->second[k]);
      }
      results.push_back(pack(rewriter, loc, getTypeConverter()->convertType(tensor),
                             values));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void tilec::lowering::populateReduceOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, context);
}
