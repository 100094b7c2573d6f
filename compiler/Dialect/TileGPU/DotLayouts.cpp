// The layouts of matrix products: #tilegpu.mma (the accumulator of a
// tensor-core instruction) and #tilegpu.dot_op (the operands a dot reads),
// as linear layouts. The fragment tables of the PTX ISA's mma.sync
// m16n8k{8,16,32} section are the source of every basis below.
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

namespace {
unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

/// One image per output dimension of a rank-`rank` tensor whose last two
/// dimensions are (row, column): `row` and `col` there, 0 elsewhere.
LinearLayout::Image at(unsigned rank, int32_t row, int32_t col) {
  LinearLayout::Image image(rank, 0);
  image[rank - 2] = row;
  image[rank - 1] = col;
  return image;
}

/// A one-warp tile over (row, column) given its register and lane bases.
LinearLayout warpTile(unsigned rank, int32_t rows, int32_t cols,
                      ArrayRef<std::pair<int32_t, int32_t>> registers,
                      ArrayRef<std::pair<int32_t, int32_t>> lanes) {
  LinearLayout::InDim reg{kRegister, {}}, lane{kLane, {}};
  for (auto [r, c] : registers)
    reg.bases.push_back(at(rank, r, c));
  for (auto [r, c] : lanes)
    lane.bases.push_back(at(rank, r, c));
  SmallVector<LinearLayout::OutDim> outs;
  for (unsigned d = 0; d < rank; ++d)
    outs.push_back({outDimName(d), d == rank - 2 ? rows : d == rank - 1 ? cols : 1});
  return LinearLayout({reg, lane}, outs);
}

/// The warps of an mma layout: lowest bits along N, then M, then the batch.
/// `keepM`/`keepN` false gives the bits along that dimension image zero
/// (the operand that lacks the dimension: its warps hold copies).
LinearLayout mmaWarps(ArrayRef<unsigned> warpsPerCTA, bool keepM, bool keepN) {
  unsigned rank = warpsPerCTA.size();
  auto dimension = [&](unsigned d, bool keep) {
    return keep ? LinearLayout::identity1D(warpsPerCTA[d], kWarp, outDimName(d))
                : LinearLayout::zeros1D(warpsPerCTA[d], kWarp, outDimName(d));
  };
  LinearLayout warps = dimension(rank - 1, keepN) * dimension(rank - 2, keepM);
  if (rank == 3)
    warps = warps * dimension(0, true);
  return warps;
}

/// Dimensions fastest first: the order register repetitions take.
SmallVector<unsigned> repeatOrder(unsigned rank, unsigned first, unsigned second) {
  SmallVector<unsigned> order{first, second};
  if (rank == 3)
    order.push_back(0);
  return order;
}
} // namespace

//===----------------------------------------------------------------------===//
// #tilegpu.mma
//===----------------------------------------------------------------------===//

LogicalResult MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      unsigned version,
                                      ArrayRef<unsigned> warpsPerCTA,
                                      ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3)
    return emitError() << "mma version " << version
                       << " is not supported (2: mma.sync, 3: wgmma)";
  size_t rank = warpsPerCTA.size();
  if (version == 3) {
    if (rank != 2 || instrShape.size() != 2)
      return emitError() << "mma version 3 (wgmma) needs rank 2";
    if (warpsPerCTA[0] % 4 || warpsPerCTA[1] != 1)
      return emitError() << "mma version 3 puts whole warpgroups (4 warps) "
                            "along M: warpsPerCTA must be [4k, 1]";
    if (instrShape[0] != 64 || instrShape[1] % 8 || instrShape[1] < 8 ||
        instrShape[1] > 256)
      return emitError() << "mma version 3 has instrShape [64, N] with N a "
                            "multiple of 8 from 8 to 256";
  }
  if (rank != 2 && rank != 3)
    return emitError() << "mma layout needs rank 2 or 3, got " << rank;
  if (instrShape.size() != rank)
    return emitError() << "mma instrShape must have rank " << rank;
  if (version == 2 && (instrShape[rank - 2] != 16 || instrShape[rank - 1] != 8 ||
                       (rank == 3 && instrShape[0] != 1)))
    return emitError() << "mma version 2 has instrShape [16, 8] (with a "
                          "leading 1 for a batch)";
  for (unsigned w : warpsPerCTA)
    if (!llvm::isPowerOf2_32(w))
      return emitError() << "mma warpsPerCTA must be powers of two";
  if (product(warpsPerCTA) > 32)
    return emitError() << "mma warpsPerCTA must multiply to at most 32";
  return success();
}

unsigned MmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }

unsigned MmaEncodingAttr::getNumWarps() const { return product(getWarpsPerCTA()); }

LinearLayout MmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  assert(shape.size() == rank && "mma layout of the wrong rank");
  // c0, c1: row l/4, columns 2(l%4) + {0, 1}; c2, c3: row l/4 + 8. A
  // wgmma accumulator (version 3) repeats this tile along N in registers
  // and stacks the four warps of a warpgroup along M (warpsPerCTA [4k, 1]
  // puts every warp bit along M), which is this same construction.
  LinearLayout tile = warpTile(rank, 16, 8, {{0, 1}, {8, 0}},
                               {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}});
  tile = tile * mmaWarps(getWarpsPerCTA(), true, true);
  return detail::fitToShape(tile, shape, repeatOrder(rank, rank - 1, rank - 2));
}

LogicalResult MmaEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(detail::verifyEncodingShape(emitError, shape, getRank(), "mma layout")))
    return failure();
  if (shape[getRank() - 2] < 16 || shape[getRank() - 1] < 8)
    return emitError() << "mma layout needs at least 16 x 8 elements per matrix";
  if (getVersion() == 3 &&
      (shape[0] % (16 * getWarpsPerCTA()[0]) || shape[1] % getInstrShape()[1]))
    return emitError() << "a wgmma accumulator needs 64 rows per warpgroup and "
                          "whole instructions along N";
  return success();
}

//===----------------------------------------------------------------------===//
// #tilegpu.dot_op
//===----------------------------------------------------------------------===//

LogicalResult DotOperandEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned opIdx, Attribute parent,
    unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot_op opIdx must be 0 (A) or 1 (B), got " << opIdx;
  if (!isa<MmaEncodingAttr, BlockedEncodingAttr>(parent))
    return emitError() << "dot_op parent must be an #tilegpu.mma or "
                          "#tilegpu.blocked layout";
  // wgmma reads B from shared memory always, and A from registers only
  // as 16-bit pairs (each warp's 16 rows as mma.sync's m16k16 fragment).
  if (auto mma = dyn_cast<MmaEncodingAttr>(parent);
      mma && mma.getVersion() == 3 && (opIdx != 0 || kWidth != 2))
    return emitError() << "dot_op of a wgmma (mma version 3) parent is operand "
                          "A with kWidth 2 only (16-bit elements in registers); "
                          "wgmma reads B from shared memory";
  if (isa<MmaEncodingAttr>(parent) && kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "dot_op kWidth of an mma parent must be 1, 2 or 4, got "
                       << kWidth;
  if (cast<DistributedEncodingAttrInterface>(parent).getRank() < 2)
    return emitError() << "dot_op parent must have rank 2 or 3";
  return success();
}

unsigned DotOperandEncodingAttr::getRank() const {
  return cast<DistributedEncodingAttrInterface>(getParent()).getRank();
}

unsigned DotOperandEncodingAttr::getNumWarps() const {
  return cast<DistributedEncodingAttrInterface>(getParent()).getNumWarps();
}

namespace {
/// The mma.sync fragment of operand A (16 x 8k) or B (8k x 8) where k
/// elements share a 32-bit register.
LinearLayout mmaOperandTile(unsigned rank, unsigned opIdx, int32_t k) {
  SmallVector<std::pair<int32_t, int32_t>> regs, lanes;
  if (opIdx == 0) {
    // (row, K): k elements along K per register, then row + 8, then K + 4k.
    for (int32_t bit = 1; bit < k; bit <<= 1)
      regs.push_back({0, bit});
    regs.push_back({8, 0});
    regs.push_back({0, 4 * k});
    lanes = {{0, k}, {0, 2 * k}, {1, 0}, {2, 0}, {4, 0}};
    return warpTile(rank, 16, 8 * k, regs, lanes);
  }
  // (K, column): k elements along K per register, then K + 4k.
  for (int32_t bit = 1; bit < k; bit <<= 1)
    regs.push_back({bit, 0});
  regs.push_back({4 * k, 0});
  lanes = {{k, 0}, {2 * k, 0}, {0, 1}, {0, 2}, {0, 4}};
  return warpTile(rank, 8 * k, 8, regs, lanes);
}
} // namespace

LinearLayout DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = getRank();
  assert(shape.size() == rank && "dot_op layout of the wrong rank");
  unsigned kDim = getOpIdx() == 0 ? rank - 1 : rank - 2;
  unsigned otherDim = getOpIdx() == 0 ? rank - 2 : rank - 1;
  if (auto mma = dyn_cast<MmaEncodingAttr>(getParent())) {
    LinearLayout tile = mmaOperandTile(rank, getOpIdx(), getKWidth()) *
                        mmaWarps(mma.getWarpsPerCTA(), getOpIdx() == 0,
                                 getOpIdx() == 1);
    return detail::fitToShape(tile, shape, repeatOrder(rank, kDim, otherDim));
  }
  // A blocked parent: the accumulator's layout without the dimension the
  // operand lacks (its bits become copies), and the whole of K in each
  // thread's lowest registers.
  // K sits where the parent has the dimension the operand lacks (N for A,
  // M for B): a parent of extent 1 there wraps, making those bits copies.
  auto parent = cast<BlockedEncodingAttr>(getParent());
  SmallVector<int64_t> parentShape(shape);
  parentShape[kDim] = 1;
  LinearLayout rest = parent.toLinearLayout(parentShape).removeZeroBases(kRegister);
  LinearLayout k = LinearLayout::identity1D(shape[kDim], kRegister, outDimName(kDim));
  // Both name dimension kDim: k's is the real extent, rest's has size 1.
  LinearLayout layout = k * rest.dropOutDim(outDimName(kDim));
  return layout.transposeOuts(outDimNames(rank));
}

LogicalResult DotOperandEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  return detail::verifyEncodingShape(emitError, shape, getRank(), "dot_op layout");
}
