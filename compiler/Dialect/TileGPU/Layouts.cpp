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

namespace {
using Image = LinearLayout::Image;

/// The dimension an image lies along: -1 for a free bit (zero), -2 when it
/// is not one power of two along one dimension (no blocked layout has
/// such an image).
int dimOf(const Image &image) {
  int dim = -1;
  for (unsigned d = 0; d < image.size(); ++d) {
    if (!image[d])
      continue;
    if (dim != -1 || !llvm::isPowerOf2_32(image[d]))
      return -2;
    dim = d;
  }
  return dim;
}

/// The order (fastest dimension first) in which `runs` (each a sequence
/// of dimensions a blocked layout lays bits along in its order) list
/// their dimensions; dimensions no run orders come in row-major order.
/// Empty when the runs contradict each other.
SmallVector<unsigned> orderFromRuns(ArrayRef<SmallVector<int>> runs,
                                    unsigned rank) {
  SmallVector<SmallVector<bool>> before(rank, SmallVector<bool>(rank, false));
  for (const SmallVector<int> &run : runs)
    for (size_t i = 1; i < run.size(); ++i)
      if (run[i] != run[i - 1])
        before[run[i - 1]][run[i]] = true;
  SmallVector<unsigned> order;
  SmallVector<bool> placed(rank, false);
  while (order.size() < rank) {
    // The highest dimension that nothing unplaced must precede.
    int next = -1;
    for (int d = rank - 1; d >= 0 && next < 0; --d) {
      if (placed[d])
        continue;
      bool free = true;
      for (unsigned e = 0; e < rank; ++e)
        free &= placed[e] || !before[e][d];
      if (free)
        next = d;
    }
    if (next < 0)
      return {}; // a cycle: no order lists the runs
    placed[next] = true;
    order.push_back(next);
  }
  return order;
}

/// log2 of how many bits of `bases` each dimension gets when they are laid
/// along `order` as a blocked layout lays lanes and warps: a dimension's
/// bits are consecutive, and its free bits (past the tensor's edge) end its
/// run. False when the images do not come in that order.
bool bitsPerDim(ArrayRef<Image> bases, ArrayRef<unsigned> order,
                SmallVector<unsigned> &bits) {
  bits.assign(order.size(), 0);
  size_t at = 0;
  for (const Image &image : bases) {
    int d = dimOf(image);
    if (d == -2)
      return false;
    if (d >= 0)
      while (at < order.size() && order[at] != unsigned(d))
        ++at;
    if (at == order.size())
      return false;
    ++bits[order[at]];
  }
  return true;
}
} // namespace

std::optional<BlockedEncodingAttr>
tilec::tilegpu::getBlockedLayoutFor(MLIRContext *ctx, const LinearLayout &layout) {
  SmallVector<int64_t> shape = layout.getOutDimSizes();
  unsigned rank = shape.size();
  if (rank == 0)
    return std::nullopt;
  // Registers first hold sizePerThread elements: per dimension a run of
  // its lowest bits, dimensions one after the other. The rest repeat the
  // CTA's tile.
  ArrayRef<Image> registers = layout.getBases(kRegister);
  SmallVector<unsigned> sptBits(rank, 0);
  SmallVector<int> sptRun, repRun, laneRun, warpRun;
  size_t numSpt = 0;
  for (const Image &image : registers) {
    int d = dimOf(image);
    bool fresh = d >= 0 && image[d] == int32_t(1) << sptBits[d] &&
                 (sptRun.empty() || sptRun.back() == d || !sptBits[d]);
    if (!fresh)
      break;
    ++sptBits[d];
    sptRun.push_back(d);
    ++numSpt;
  }
  auto runOf = [](ArrayRef<Image> bases, SmallVector<int> &run) {
    for (const Image &image : bases)
      if (int d = dimOf(image); d >= 0)
        run.push_back(d);
  };
  runOf(registers.drop_front(numSpt), repRun);
  runOf(layout.getBases(kLane), laneRun);
  runOf(layout.getBases(kWarp), warpRun);
  SmallVector<unsigned> order =
      orderFromRuns({sptRun, laneRun, warpRun, repRun}, rank);
  SmallVector<unsigned> laneBits, warpBits;
  if (order.empty() || !bitsPerDim(layout.getBases(kLane), order, laneBits) ||
      !bitsPerDim(layout.getBases(kWarp), order, warpBits))
    return std::nullopt;
  SmallVector<unsigned> spt, tpw, wpc;
  for (unsigned d = 0; d < rank; ++d) {
    spt.push_back(1u << sptBits[d]);
    tpw.push_back(1u << laneBits[d]);
    wpc.push_back(1u << warpBits[d]);
  }
  // The guesses above only propose; the layout decides.
  auto blocked = BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
  if (blocked.toLinearLayout(shape) != layout)
    return std::nullopt;
  return blocked;
}

Attribute tilec::tilegpu::getDistributedEncoding(MLIRContext *ctx,
                                                 const LinearLayout &layout) {
  if (std::optional<BlockedEncodingAttr> blocked = getBlockedLayoutFor(ctx, layout))
    return *blocked;
  return LinearEncodingAttr::get(ctx, layout);
}

namespace {
/// `src` as a distributed encoding of a tensor of `shape`, or null.
DistributedEncodingAttrInterface distributed(Attribute src, ArrayRef<int64_t> shape) {
  auto layout = dyn_cast_if_present<DistributedEncodingAttrInterface>(src);
  if (!layout || layout.getRank() != shape.size())
    return {};
  return layout;
}
} // namespace

Attribute tilec::tilegpu::inferTransEncoding(Attribute src,
                                             ArrayRef<int64_t> srcShape,
                                             ArrayRef<int32_t> order) {
  DistributedEncodingAttrInterface layout = distributed(src, srcShape);
  if (!layout || order.size() != srcShape.size())
    return {};
  // A blocked layout stays one: its fields follow their dimensions (the
  // order lists the same dimensions under their new numbers), which lays
  // down the same bits.
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(src)) {
    SmallVector<unsigned> spt, tpw, wpc, newOrder, newNumber(order.size());
    for (unsigned i = 0; i < order.size(); ++i) {
      spt.push_back(blocked.getSizePerThread()[order[i]]);
      tpw.push_back(blocked.getThreadsPerWarp()[order[i]]);
      wpc.push_back(blocked.getWarpsPerCTA()[order[i]]);
      newNumber[order[i]] = i;
    }
    for (unsigned d : blocked.getOrder())
      newOrder.push_back(newNumber[d]);
    return BlockedEncodingAttr::get(src.getContext(), spt, tpw, wpc, newOrder);
  }
  SmallVector<std::string> names;
  for (int32_t d : order)
    names.push_back(outDimName(d));
  LinearLayout moved = layout.toLinearLayout(srcShape).transposeOuts(names);
  return getDistributedEncoding(src.getContext(),
                                renameOutDims(moved, outDimNames(order.size())));
}

Attribute tilec::tilegpu::inferReshapeEncoding(Attribute src,
                                               ArrayRef<int64_t> srcShape,
                                               ArrayRef<int64_t> dstShape) {
  DistributedEncodingAttrInterface layout = distributed(src, srcShape);
  if (!layout)
    return {};
  if (srcShape == dstShape)
    return src;
  return getDistributedEncoding(
      src.getContext(), layout.toLinearLayout(srcShape).reshapeOuts(dstShape));
}

Attribute tilec::tilegpu::inferJoinEncoding(Attribute src,
                                            ArrayRef<int64_t> srcShape) {
  DistributedEncodingAttrInterface layout = distributed(src, srcShape);
  if (!layout)
    return {};
  LinearLayout l = layout.toLinearLayout(srcShape);
  unsigned rank = srcShape.size();
  SmallVector<LinearLayout::InDim> ins;
  for (const LinearLayout::InDim &in : l.getInDims()) {
    LinearLayout::InDim joined{in.name, {}};
    if (in.name == kRegister) {
      // The new lowest register bit picks the operand.
      LinearLayout::Image pick(rank + 1, 0);
      pick[rank] = 1;
      joined.bases.push_back(pick);
    }
    for (LinearLayout::Image image : in.bases) {
      image.push_back(0);
      joined.bases.push_back(image);
    }
    ins.push_back(std::move(joined));
  }
  SmallVector<LinearLayout::OutDim> outs(l.getOutDims());
  outs.push_back({outDimName(rank), 2});
  return getDistributedEncoding(src.getContext(), LinearLayout(ins, outs));
}

Attribute tilec::tilegpu::inferJoinSourceEncoding(Attribute result,
                                                  ArrayRef<int64_t> resultShape) {
  DistributedEncodingAttrInterface layout = distributed(result, resultShape);
  if (!layout || resultShape.empty() || resultShape.back() != 2)
    return {};
  LinearLayout l = layout.toLinearLayout(resultShape);
  unsigned last = resultShape.size() - 1;
  SmallVector<LinearLayout::InDim> ins;
  bool found = false;
  for (const LinearLayout::InDim &in : l.getInDims()) {
    LinearLayout::InDim source{in.name, {}};
    for (const LinearLayout::Image &image : in.bases) {
      if (image[last]) {
        // Only one register bit may choose the operand, and it must
        // choose nothing else.
        bool onlyLast = llvm::all_of(ArrayRef<int32_t>(image).drop_back(),
                                     [](int32_t v) { return v == 0; });
        if (in.name != kRegister || found || !onlyLast)
          return {};
        found = true;
        continue;
      }
      source.bases.push_back(LinearLayout::Image(ArrayRef<int32_t>(image).drop_back()));
    }
    ins.push_back(std::move(source));
  }
  if (!found)
    return {};
  SmallVector<LinearLayout::OutDim> outs(l.getOutDims().drop_back());
  return getDistributedEncoding(result.getContext(), LinearLayout(ins, outs));
}

bool tilec::tilegpu::isSameLayout(Attribute a, Attribute b, ArrayRef<int64_t> shape) {
  if (a == b)
    return true;
  DistributedEncodingAttrInterface la = distributed(a, shape), lb = distributed(b, shape);
  return la && lb && la.toLinearLayout(shape) == lb.toLinearLayout(shape);
}

LinearLayout tilec::tilegpu::toLinearLayout(RankedTensorType type) {
  auto layout =
      dyn_cast_if_present<DistributedEncodingAttrInterface>(type.getEncoding());
  assert(layout && "toLinearLayout: a tensor without a distributed layout");
  return layout.toLinearLayout(type.getShape());
}

LinearLayout tilec::tilegpu::toLinearLayout(MemDescType type) {
  assert(!type.isRing() && "toLinearLayout: index a ring of buffers first");
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
