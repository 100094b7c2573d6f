#include "compiler/Analysis/Wgmma.h"

#include "compiler/Analysis/FP8.h"
#include "compiler/Dialect/TileGPU/TileGPU.h"

using namespace mlir;

bool tilec::fitsWgmma(tile::DotOp op, unsigned numWarps) {
  RankedTensorType aType = op.getA().getType(), dType = op.getD().getType();
  Type element = aType.getElementType();
  std::optional<unsigned> instrK = tilegpu::wgmmaInstructionK(
      element, op.getB().getType().getElementType(), dType.getElementType());
  // f32 keeps mma.sync: tl.dot's tf32 rounds each operand to nearest
  // (cvt.rna.tf32.f32) in registers, while wgmma would read the f32 bits
  // cp.async copied into its buffer and ignore the low 13 of each mantissa,
  // another result (tilegpu.warp_group_dot itself takes tf32).
  if (dType.getRank() != 2 || !instrK || element.isF32() || numWarps == 0 ||
      numWarps % 4)
    return false;
  int64_t m = dType.getShape()[0], n = dType.getShape()[1], k = aType.getShape()[1];
  return m % (64 * (numWarps / 4)) == 0 && n % 8 == 0 && k % *instrK == 0;
}

std::optional<unsigned> tilec::mmaSyncKWidth(Type element, tile::InputPrecision precision) {
  if (element.isF16() || element.isBF16())
    return 2;
  if (element.isInteger(8) || isFP8(element))
    return 4;
  if (element.isF32() && precision != tile::InputPrecision::ieee)
    return 1;
  return std::nullopt;
}

bool tilec::fitsMmaSync(tile::DotOp op) {
  RankedTensorType aType = op.getA().getType();
  std::optional<unsigned> kWidth =
      mmaSyncKWidth(aType.getElementType(), op.getInputPrecision());
  // The instruction's K is 8 registers' worth: 16 16-bit, 32 8-bit, 8 tf32.
  return kWidth && aType.getShape().back() % (8 * *kWidth) == 0;
}

bool tilec::isTranspose(Operation *op) {
  auto trans = dyn_cast_if_present<tile::TransOp>(op);
  return trans && trans.getOrder() == ArrayRef<int32_t>{1, 0};
}

bool tilec::isComputedTile(Value tile) {
  Operation *def = tile.getDefiningOp();
  return def && !isa<tile::LoadOp>(def);
}
