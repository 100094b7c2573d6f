#include "compiler/Analysis/AccessWidth.h"

#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"

using namespace mlir;
using namespace tilec;

namespace {
/// The tensor dimension along which a thread's registers run through
/// consecutive elements, and how many do: the widest access the layout
/// allows. Dimension 0 with 1 element when none do.
std::pair<unsigned, unsigned> contiguousRegisters(const tilegpu::LinearLayout &l) {
  unsigned best = 0, bestBits = 0;
  for (unsigned d = 0; d < l.getOutDims().size(); ++d) {
    unsigned bits = l.getNumConsecutiveBits(tilegpu::kRegister, tilegpu::outDimName(d));
    if (bits > bestBits) {
      best = d;
      bestBits = bits;
    }
  }
  return {best, 1u << bestBits};
}
} // namespace

unsigned tilec::globalAccessWidth(Value ptr, Value mask,
                                  const AxisInfoAnalysis &axisInfo) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  auto [dim, contiguous] = contiguousRegisters(tilegpu::toLinearLayout(type));
  int64_t width = std::min<int64_t>(contiguous, axisInfo.getVectorWidth(ptr, dim));
  if (mask)
    width = std::min(width, axisInfo.getConstancy(mask, dim));
  return std::max<int64_t>(1, width);
}

unsigned tilec::contiguousAccessWidth(Value ptr, Value mask,
                                      const AxisInfoAnalysis &axisInfo) {
  if (!isa<RankedTensorType>(ptr.getType()))
    return 1;
  unsigned dim = axisInfo.getMemoryOrder(ptr)[0];
  int64_t width = axisInfo.getVectorWidth(ptr, dim);
  if (mask)
    width = std::min(width, axisInfo.getConstancy(mask, dim));
  return std::max<int64_t>(1, width);
}

unsigned tilec::asyncCopyWidth(Value ptr, Value mask, tilegpu::MemDescType dst,
                               const AxisInfoAnalysis &axisInfo) {
  auto type = cast<RankedTensorType>(ptr.getType());
  unsigned bytes = tile::getElementBytes(dst.getElementType());
  std::optional<tilegpu::LinearLayout> toOffset =
      tilegpu::toLinearLayout(dst).invertAndCompose(tilegpu::toLinearLayout(type));
  if (!toOffset)
    return 0;
  unsigned width = std::min(globalAccessWidth(ptr, mask, axisInfo),
                            tilegpu::sharedAccessVector(*toOffset, bytes));
  return width * bytes >= 4 ? width : 0;
}

unsigned tilec::atomicVectorLimit(Operation *atomic, unsigned computeCapability) {
  auto rmw = dyn_cast<tile::AtomicRMWOp>(atomic);
  Type element = tile::getElementTypeOrSelf(atomic->getResult(0).getType());
  if (!rmw || rmw.getKind() != tile::AtomicKind::add || !isa<FloatType>(element) ||
      computeCapability < 90)
    return 1;
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits == 32 ? 4 : bits == 16 ? 8 : 1;
}
