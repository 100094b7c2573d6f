#include "compiler/Analysis/Wgmma.h"

using namespace mlir;

bool tilec::fitsWgmma(tile::DotOp op, unsigned numWarps) {
  RankedTensorType aType = op.getA().getType(), dType = op.getD().getType();
  Type element = aType.getElementType();
  if (dType.getRank() != 2 || !(element.isF16() || element.isBF16()) ||
      !dType.getElementType().isF32() || numWarps == 0 || numWarps % 4)
    return false;
  int64_t m = dType.getShape()[0], n = dType.getShape()[1], k = aType.getShape()[1];
  return m % (64 * (numWarps / 4)) == 0 && n % 8 == 0 && k % 16 == 0;
}

bool tilec::isTranspose(Operation *op) {
  auto trans = dyn_cast_if_present<tile::TransOp>(op);
  return trans && trans.getOrder() == ArrayRef<int32_t>{1, 0};
}

bool tilec::isComputedTile(Value tile) {
  Operation *def = tile.getDefiningOp();
  return def && !isa<tile::LoadOp>(def);
}
