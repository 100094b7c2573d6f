#include "compiler/Dialect/TileGPU/Layouts.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>

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

RegisterMap::RegisterMap(RankedTensorType type) : shape_(type.getShape()) {
  // Walk down the slices to the root blocked layout, noting which root
  // dimensions were removed.
  Attribute layout = type.getEncoding();
  SmallVector<unsigned> removedStack;
  while (auto slice = dyn_cast_if_present<SliceEncodingAttr>(layout)) {
    removedStack.push_back(slice.getDim());
    layout = slice.getParent();
  }
  root_ = dyn_cast_if_present<BlockedEncodingAttr>(layout);
  if (!root_)
    llvm::report_fatal_error("RegisterMap: tensor type without a tilegpu "
                             "layout");
  unsigned rootRank = root_.getRank();
  // Slices were pushed outermost first; undo them innermost first to map
  // tensor dims to root dims.
  SmallVector<unsigned> dims(rootRank);
  for (unsigned i = 0; i < rootRank; ++i)
    dims[i] = i;
  for (auto it = removedStack.rbegin(); it != removedStack.rend(); ++it)
    dims.erase(dims.begin() + *it);
  rootDimOf_ = dims;
  if (rootDimOf_.size() != shape_.size())
    llvm::report_fatal_error("RegisterMap: layout rank does not match tensor");

  SmallVector<int> tensorDimOfRoot(rootRank, -1);
  for (unsigned d = 0; d < rank(); ++d)
    tensorDimOfRoot[rootDimOf_[d]] = d;

  auto spt = root_.getSizePerThread(), tpw = root_.getThreadsPerWarp(),
       wpc = root_.getWarpsPerCTA();
  // Registers per kept dimension: sizePerThread times the repetitions needed
  // to cover the shape.
  SmallVector<unsigned> regsPerDim(rank());
  wraps_.assign(rank(), false);
  for (unsigned d = 0; d < rank(); ++d) {
    unsigned rd = rootDimOf_[d];
    int64_t tile = int64_t(spt[rd]) * tpw[rd] * wpc[rd];
    int64_t reps = std::max<int64_t>(1, shape_[d] / tile);
    regsPerDim[d] = spt[rd] * reps;
    wraps_[d] = tile > shape_[d];
  }
  for (unsigned rd : root_.getOrder())
    if (tensorDimOfRoot[rd] >= 0)
      order_.push_back(tensorDimOfRoot[rd]);

  numRegs_ = 1;
  for (unsigned n : regsPerDim)
    numRegs_ *= n;
  constParts_.assign(size_t(numRegs_) * rank(), 0);
  for (unsigned r = 0; r < numRegs_; ++r) {
    unsigned rest = r;
    for (unsigned d : order_) {
      unsigned idx = rest % regsPerDim[d];
      rest /= regsPerDim[d];
      unsigned rd = rootDimOf_[d];
      int64_t tile = int64_t(spt[rd]) * tpw[rd] * wpc[rd];
      constParts_[r * rank() + d] = (idx / spt[rd]) * tile + idx % spt[rd];
    }
  }
  unsigned fast = order_.front();
  contiguous_ = std::max<int64_t>(
      1, std::min<int64_t>(spt[rootDimOf_[fast]], shape_[fast]));
}

int RegisterMap::registerWithParts(ArrayRef<int64_t> parts) const {
  // Registers are few (at most a few hundred), so a scan is simplest.
  for (unsigned r = 0; r < numRegs_; ++r) {
    bool match = true;
    for (unsigned d = 0; d < rank() && match; ++d)
      match = constPart(r, d) == parts[d];
    if (match)
      return r;
  }
  return -1;
}

int64_t RegisterMap::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape_)
    n *= s;
  return n;
}

unsigned tilec::tilegpu::getNumRegisters(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RegisterMap(tensor).numRegisters();
  return 1;
}
