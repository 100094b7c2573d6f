// tile.reduce → registers, then warp shuffles, then shared memory.
//
// 1. Each thread combines the registers it holds that differ only along the
//    axis (in register order).
// 2. Lanes that hold different slices of the axis exchange partials with a
//    butterfly of shfl.sync.bfly; every lane ends with the same bits, since
//    each step combines the same two values in both lanes.
// 3. When warps split the axis, each writes its partial to shared memory,
//    and after a barrier every thread combines the warps' partials in warp
//    order. The order never depends on timing: results are deterministic.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include <map>

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

struct ReduceOpLowering : OpConversionPattern<tile::ReduceOp> {
  ReduceOpLowering(TileTypeConverter &converter, const TargetInfo &target)
      : OpConversionPattern(converter, &converter.getContext()), target(target) {}

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    tilegpu::RegisterMap map(srcType);
    unsigned axis = op.getAxis();
    unsigned n = op.getSrcs().size();
    SmallVector<SmallVector<Value>> regs;
    for (Value packed : adaptor.getSrcs())
      regs.push_back(unpack(rewriter, loc, packed));

    // Registers that differ only along the axis form one group, keyed by
    // their compile-time coordinate parts on the other dimensions.
    using Key = SmallVector<int64_t>;
    auto keyOf = [&](unsigned r) {
      Key key;
      for (unsigned d = 0; d < map.rank(); ++d)
        if (d != axis)
          key.push_back(map.constPart(r, d) % map.shape()[d]);
      return key;
    };
    std::map<Key, SmallVector<Value>> partial;
    std::map<Key, unsigned> firstRegister;
    for (unsigned r = 0; r < map.numRegisters(); ++r) {
      if (isRepeatedRegister(map, r))
        continue;
      Key key = keyOf(r);
      SmallVector<Value> values;
      for (unsigned k = 0; k < n; ++k)
        values.push_back(regs[k][r]);
      auto it = partial.find(key);
      if (it == partial.end()) {
        partial.emplace(key, values);
        firstRegister.emplace(key, r);
      } else {
        it->second = applyCombiner(rewriter, op.getCombiner().front(), it->second, values);
      }
    }

    // Across lanes: only as many lanes as hold distinct parts of the axis.
    auto root = map.root();
    unsigned rd = map.rootDim(axis);
    int64_t extent = map.shape()[axis];
    unsigned spt = root.getSizePerThread()[rd], tpw = root.getThreadsPerWarp()[rd],
             wpc = root.getWarpsPerCTA()[rd];
    unsigned lanesBefore = 1, warpsBefore = 1;
    for (unsigned d : root.getOrder()) {
      if (d == rd)
        break;
      lanesBefore *= root.getThreadsPerWarp()[d];
      warpsBefore *= root.getWarpsPerCTA()[d];
    }
    int64_t distinctLanes = std::min<int64_t>(tpw, std::max<int64_t>(1, extent / spt));
    for (int64_t m = 1; m < distinctLanes; m *= 2)
      for (auto &[key, values] : partial) {
        SmallVector<Value> other;
        for (Value v : values)
          other.push_back(shuffle(rewriter, loc, v, NVVM::ShflKind::bfly, unsigned(m) * lanesBefore));
        values = applyCombiner(rewriter, op.getCombiner().front(), values, other);
      }

    // Across warps, through shared memory.
    int64_t distinctWarps = std::min<int64_t>(
        wpc, std::max<int64_t>(1, extent / (int64_t(spt) * tpw)));
    if (distinctWarps > 1) {
      SmallVector<int64_t> outShape;
      for (unsigned d = 0; d < map.rank(); ++d)
        if (d != axis)
          outShape.push_back(map.shape()[d]);
      int64_t outElements = 1;
      for (int64_t s : outShape)
        outElements *= s;
      Value base = sharedMemoryBase(rewriter, loc, op);
      SmallVector<Type> memoryTypes;
      SmallVector<int64_t> offsets; // bytes, per operand
      int64_t bytes = 0;
      for (unsigned k = 0; k < n; ++k) {
        Type element = cast<RankedTensorType>(op.getSrcs()[k].getType()).getElementType();
        Type memory = element.isInteger(1) ? rewriter.getI8Type() : element;
        memoryTypes.push_back(memory);
        offsets.push_back(bytes);
        bytes += distinctWarps * outElements * tile::getElementBytes(element);
        bytes = (bytes + 15) / 16 * 16;
      }
      requireSharedBytes(op, bytes);

      Value tid = threadId(rewriter, loc, target);
      Value warp = rewriter.create<LLVM::LShrOp>(loc, tid, i32Constant(rewriter, loc, 5));
      Value warpPos = rewriter.create<LLVM::AndOp>(
          loc,
          rewriter.create<LLVM::LShrOp>(
              loc, warp, i32Constant(rewriter, loc, llvm::Log2_32(warpsBefore))),
          i32Constant(rewriter, loc, distinctWarps - 1));
      auto coords = registerCoordinates(rewriter, loc, map, target);
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), kSharedAddressSpace);
      auto slot = [&](unsigned k, Value warpIndex, Value outIndex) -> Value {
        Value byteBase = rewriter.create<LLVM::GEPOp>(
            loc, sharedPtr, rewriter.getI8Type(), base,
            ValueRange{i32Constant(rewriter, loc, offsets[k])});
        Value index = rewriter.create<LLVM::AddOp>(
            loc, rewriter.create<LLVM::MulOp>(loc, warpIndex,
                                              i32Constant(rewriter, loc, outElements)),
            outIndex);
        return rewriter.create<LLVM::GEPOp>(loc, sharedPtr, memoryTypes[k], byteBase,
                                            ValueRange{index});
      };
      std::map<Key, Value> outIndexOf;
      for (auto &[key, values] : partial) {
        // Row-major index of this group's element in the result.
        Value index = indexWithoutAxis(rewriter, loc, coords[firstRegister[key]],
                                       map.shape(), axis);
        outIndexOf[key] = index;
        for (unsigned k = 0; k < n; ++k) {
          Value v = values[k];
          if (v.getType() != memoryTypes[k])
            v = rewriter.create<LLVM::ZExtOp>(loc, memoryTypes[k], v);
          rewriter.create<LLVM::StoreOp>(loc, v, slot(k, warpPos, index));
        }
      }
      rewriter.create<NVVM::Barrier0Op>(loc);
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
        for (int64_t w = 1; w < distinctWarps; ++w)
          values = applyCombiner(rewriter, op.getCombiner().front(), values, load(w));
      }
      rewriter.create<NVVM::Barrier0Op>(loc);
    }

    // Results: a scalar, or the registers of the slice layout.
    SmallVector<Value> results;
    for (unsigned k = 0; k < n; ++k) {
      Type resultType = op.getResult(k).getType();
      auto tensor = dyn_cast<RankedTensorType>(resultType);
      if (!tensor) {
        if (partial.size() != 1)
          return rewriter.notifyMatchFailure(op, "a scalar result needs one group");
        results.push_back(partial.begin()->second[k]);
        continue;
      }
      tilegpu::RegisterMap resultMap(tensor);
      SmallVector<Value> values;
      for (unsigned r = 0; r < resultMap.numRegisters(); ++r) {
        Key key;
        for (unsigned d = 0; d < resultMap.rank(); ++d)
          key.push_back(resultMap.constPart(r, d) % resultMap.shape()[d]);
        auto it = partial.find(key);
        if (it == partial.end())
          return rewriter.notifyMatchFailure(op, "result layout is not the "
                                                 "slice of the operand's");
        values.push_back(it->second[k]);
      }
      results.push_back(pack(rewriter, loc, getTypeConverter()->convertType(tensor),
                             values));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  const TargetInfo &target;
};

} // namespace

void tilec::lowering::populateReduceOpToLLVMPatterns(
    TileTypeConverter &converter, const TargetInfo &target,
    RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(converter, target);
}
