#include "compiler/Analysis/SharedScratch.h"

#include "compiler/Dialect/TileGPU/Layouts.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using tilegpu::LinearLayout;

std::optional<AxisBits> AxisBits::of(const LinearLayout &layout, unsigned axis) {
  AxisBits bits;
  for (auto [name, mask] : {std::pair<const char *, int32_t *>{tilegpu::kRegister, &bits.registers},
                            {tilegpu::kLane, &bits.lanes},
                            {tilegpu::kWarp, &bits.warps}}) {
    ArrayRef<LinearLayout::Image> bases = layout.getBases(name);
    for (unsigned b = 0; b < bases.size(); ++b) {
      if (!bases[b][axis])
        continue;
      for (unsigned d = 0; d < bases[b].size(); ++d)
        if (d != axis && bases[b][d])
          return std::nullopt;
      *mask |= int32_t(1) << b;
    }
  }
  return bits;
}

std::optional<ScanAxis> ScanAxis::of(const LinearLayout &layout, unsigned axis) {
  if (!AxisBits::of(layout, axis))
    return std::nullopt;
  // The input bit behind each coordinate bit of the axis, lowest first.
  enum Kind { Register, Lane, Warp };
  SmallVector<std::pair<Kind, unsigned>> sources;
  unsigned axisBits = llvm::Log2_32(layout.getOutDims()[axis].size);
  for (unsigned k = 0; k < axisBits; ++k) {
    std::optional<std::pair<Kind, unsigned>> found;
    for (auto [kind, name] : {std::pair<Kind, const char *>{Register, tilegpu::kRegister},
                              {Lane, tilegpu::kLane},
                              {Warp, tilegpu::kWarp}}) {
      ArrayRef<LinearLayout::Image> bases = layout.getBases(name);
      for (unsigned b = 0; b < bases.size(); ++b)
        if (bases[b][axis] == int32_t(1) << k)
          found = {kind, b};
    }
    if (!found)
      return std::nullopt;
    sources.push_back(*found);
  }
  ScanAxis scan;
  size_t i = 0;
  // Registers may come in any order (positions are read off their
  // images); lanes and warps must be consecutive bits, for shfl.sync.up
  // deltas and warp positions.
  auto registers = [&](unsigned &count) {
    while (i < sources.size() && sources[i].first == Register) {
      ++count;
      ++i;
    }
  };
  auto consecutive = [&](Kind kind, unsigned &first, unsigned &count) {
    if (i < sources.size() && sources[i].first == kind)
      first = sources[i].second;
    while (i < sources.size() && sources[i].first == kind &&
           sources[i].second == first + count) {
      ++count;
      ++i;
    }
  };
  registers(scan.lowRegisterBits);
  consecutive(Lane, scan.firstLaneBit, scan.laneBits);
  consecutive(Warp, scan.firstWarpBit, scan.warpBits);
  registers(scan.repetitionBits);
  if (i != sources.size())
    return std::nullopt;
  return scan;
}

namespace {
CrossWarpScratch plan(ValueRange operands, int64_t slots) {
  CrossWarpScratch scratch;
  scratch.slots = slots;
  for (Value v : operands) {
    scratch.operandOffsets.push_back(scratch.bytes);
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    scratch.bytes += slots * tile::getElementBytes(element);
    scratch.bytes = llvm::alignTo(scratch.bytes, 16);
  }
  return scratch;
}

int64_t elementsWithout(RankedTensorType type, unsigned axis) {
  int64_t n = 1;
  for (unsigned d = 0; d < type.getRank(); ++d)
    if (d != axis)
      n *= type.getDimSize(d);
  return n;
}

bool hasLayout(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && isa_and_present<tilegpu::DistributedEncodingAttrInterface>(
                     type.getEncoding());
}
} // namespace

CrossWarpScratch tilec::getReduceScratch(tile::ReduceOp op) {
  Value src = op.getSrcs()[0];
  if (!hasLayout(src))
    return {};
  auto type = cast<RankedTensorType>(src.getType());
  std::optional<AxisBits> bits =
      AxisBits::of(tilegpu::toLinearLayout(type), op.getAxis());
  if (!bits || !bits->warps)
    return {};
  int64_t warps = int64_t(1) << llvm::popcount(uint32_t(bits->warps));
  return plan(op.getSrcs(), warps * elementsWithout(type, op.getAxis()));
}

CrossWarpScratch tilec::getScanScratch(tile::ScanOp op) {
  Value src = op.getSrcs()[0];
  if (!hasLayout(src))
    return {};
  auto type = cast<RankedTensorType>(src.getType());
  std::optional<ScanAxis> axis =
      ScanAxis::of(tilegpu::toLinearLayout(type), op.getAxis());
  if (!axis || !axis->warpBits)
    return {};
  int64_t slots = (int64_t(1) << (axis->warpBits + axis->repetitionBits)) *
                  elementsWithout(type, op.getAxis());
  return plan(op.getSrcs(), slots);
}

int64_t tilec::getAtomicScratchBytes(Operation *atomic) {
  Value result = atomic->getResult(0);
  if (result.use_empty())
    return 0;
  int64_t elements = 1;
  if (auto type = dyn_cast<RankedTensorType>(result.getType())) {
    tilegpu::LinearLayout layout = tilegpu::toLinearLayout(type);
    if (!layout.getFreeVariableMask(tilegpu::kLane) &&
        !layout.getFreeVariableMask(tilegpu::kWarp))
      return 0; // every element has one holder (besides its own registers)
    elements = type.getNumElements();
  }
  int64_t bytes = elements * tile::getElementBytes(tile::getElementTypeOrSelf(result.getType()));
  return llvm::alignTo(bytes, 16);
}

int64_t tilec::getGatherScratchBytes(tile::GatherOp op) {
  if (!hasLayout(op.getSrc()))
    return 0;
  auto type = cast<RankedTensorType>(op.getSrc().getType());
  // (i1 takes a byte in memory, as getElementBytes counts it.)
  return llvm::alignTo(type.getNumElements() * tile::getElementBytes(type.getElementType()),
                       16);
}

int64_t tilec::getHistogramScratchBytes(tile::HistogramOp op) {
  if (!hasLayout(op.getInput()))
    return 0;
  auto type = cast<RankedTensorType>(op.getType());
  return llvm::alignTo(type.getNumElements() * 4, 16);
}

int64_t tilec::getScratchBytes(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case<tile::ReduceOp>([](auto r) { return getReduceScratch(r).bytes; })
      .Case<tile::ScanOp>([](auto s) { return getScanScratch(s).bytes; })
      .Case<tile::AtomicRMWOp, tile::AtomicCASOp>(
          [](Operation *a) { return getAtomicScratchBytes(a); })
      .Case<tile::GatherOp>([](auto g) { return getGatherScratchBytes(g); })
      .Case<tile::HistogramOp>([](auto h) { return getHistogramScratchBytes(h); })
      .Default([](Operation *) { return 0; });
}
