#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tilec::tilegpu;

BlockedEncodingAttr
tilec::tilegpu::getBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                 ArrayRef<unsigned> sizePerThread,
                                 ArrayRef<unsigned> order, unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank), tpw(rank, 1), wpc(rank, 1);
  for (unsigned d = 0; d < rank; ++d)
    spt[d] = std::max<int64_t>(1, std::min<int64_t>(sizePerThread[d], shape[d]));
  unsigned lanesLeft = kThreadsPerWarp, warpsLeft = numWarps;
  // Lanes first along the fastest dimensions, then warps, each only as far
  // as the dimension has elements left to cover.
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    tpw[d] = std::min<int64_t>(lanesLeft, room);
    lanesLeft /= tpw[d];
  }
  tpw[order.back()] *= lanesLeft;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    wpc[d] = std::min<int64_t>(warpsLeft, room);
    warpsLeft /= wpc[d];
  }
  wpc[order.back()] *= warpsLeft;
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

BlockedEncodingAttr
tilec::tilegpu::getDefaultBlockedLayout(MLIRContext *ctx,
                                        ArrayRef<int64_t> shape,
                                        unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> ones(rank, 1), order(rank);
  for (unsigned i = 0; i < rank; ++i)
    order[i] = rank - 1 - i;
  return getBlockedLayout(ctx, shape, ones, order, numWarps);
}

LinearLayout tilec::tilegpu::toLinearLayout(RankedTensorType type) {
  auto layout =
      dyn_cast_if_present<DistributedEncodingAttrInterface>(type.getEncoding());
  assert(layout && "toLinearLayout: a tensor without a distributed layout");
  return layout.toLinearLayout(type.getShape());
}

LinearLayout tilec::tilegpu::toLinearLayout(MemDescType type) {
  return cast<SharedEncodingAttrInterface>(type.getEncoding())
      .toLinearLayout(type.getShape());
}

LinearLayout tilec::tilegpu::renameOutDims(const LinearLayout &layout,
                                           ArrayRef<std::string> names) {
  assert(names.size() == layout.getOutDims().size() &&
         "renameOutDims needs one name per output");
  SmallVector<LinearLayout::OutDim> outs(layout.getOutDims());
  for (auto [out, name] : llvm::zip(outs, names))
    out.name = name;
  return LinearLayout(SmallVector<LinearLayout::InDim>(layout.getInDims()), outs);
}

void tilec::tilegpu::setEncoding(Value v, Attribute layout) {
  RankedTensorType type = cast<RankedTensorType>(v.getType()).cloneWithEncoding(layout);
  v.setType(type);
  if (auto constant = v.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      constant.setValueAttr(dense.reshape(type));
}

unsigned tilec::tilegpu::getNumRegisters(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return toLinearLayout(tensor).getInDimSize(kRegister);
  return 1;
}

std::optional<SmallVector<unsigned>>
tilec::tilegpu::registerPermutation(const LinearLayout &src,
                                    const LinearLayout &dst) {
  if (src.getOutDims().size() != dst.getOutDims().size())
    return std::nullopt;
  for (auto [a, b] : llvm::zip(src.getOutDims(), dst.getOutDims()))
    if (a.name != b.name || a.size != b.size)
      return std::nullopt;
  if (src.getBases(kLane) != dst.getBases(kLane) ||
      src.getBases(kWarp) != dst.getBases(kWarp))
    return std::nullopt;
  // Which register of src holds each element (the first, so that copies
  // map to the owner).
  llvm::DenseMap<uint64_t, unsigned> holder;
  for (int32_t r = src.getInDimSize(kRegister) - 1; r >= 0; --r)
    holder[src.flattenOut(src.applyOne(kRegister, r))] = r;
  SmallVector<unsigned> sources;
  for (int32_t r = 0; r < dst.getInDimSize(kRegister); ++r) {
    auto it = holder.find(dst.flattenOut(dst.applyOne(kRegister, r)));
    if (it == holder.end())
      return std::nullopt;
    sources.push_back(it->second);
  }
  return sources;
}

std::optional<WarpShuffle> tilec::tilegpu::warpShuffle(const LinearLayout &src,
                                                       const LinearLayout &dst) {
  std::optional<LinearLayout> toSrc = src.invertAndCompose(dst);
  if (!toSrc)
    return std::nullopt;
  // toSrc: (register, lane, warp) of dst -> (register, lane, warp) of src.
  auto part = [](const LinearLayout::Image &image, unsigned i) { return image[i]; };
  // Each warp must find its elements in its own registers: the source warp
  // may differ from it only in bits where src holds copies.
  int32_t srcCopies = src.getFreeVariableMask(kWarp);
  ArrayRef<LinearLayout::Image> warps = toSrc->getBases(kWarp);
  for (unsigned b = 0; b < warps.size(); ++b)
    if (part(warps[b], 0) || part(warps[b], 1) ||
        ((part(warps[b], 2) ^ (int32_t(1) << b)) & ~srcCopies))
      return std::nullopt;
  for (const LinearLayout::Image &image : toSrc->getBases(kLane))
    if (part(image, 0) || part(image, 2))
      return std::nullopt; // the register sent may not depend on the lane
  for (const LinearLayout::Image &image : toSrc->getBases(kRegister))
    if (part(image, 2))
      return std::nullopt;
  WarpShuffle shuffle;
  for (int32_t r = 0; r < dst.getInDimSize(kRegister); ++r)
    shuffle.sourceRegister.push_back(toSrc->applyOne(kRegister, r)[0]);
  LinearLayout::InDim regs{kRegister, {}}, lanes{kLane, {}};
  for (const LinearLayout::Image &image : toSrc->getBases(kRegister))
    regs.bases.push_back({image[1]});
  for (const LinearLayout::Image &image : toSrc->getBases(kLane))
    lanes.bases.push_back({image[1]});
  shuffle.sourceLane = LinearLayout({regs, lanes}, {{kLane, int32_t(kThreadsPerWarp)}});
  return shuffle;
}

ConversionKind tilec::tilegpu::classifyConversion(RankedTensorType src,
                                                  RankedTensorType dst) {
  LinearLayout a = toLinearLayout(src), b = toLinearLayout(dst);
  if (registerPermutation(a, b))
    return ConversionKind::Registers;
  if (warpShuffle(a, b))
    return ConversionKind::WarpShuffle;
  return ConversionKind::SharedMemory;
}
