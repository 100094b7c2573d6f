// #tilegpu.nvmma_shared: the swizzled tiles Hopper's wgmma reads through
// matrix descriptors (PTX ISA, "Shared Memory Matrix Layout" of the
// asynchronous warpgroup instructions), as a linear layout.
#include "compiler/Dialect/TileGPU/TileGPU.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec::tilegpu;

LogicalResult NVMMASharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned swizzleBytes,
    unsigned elementBits, ArrayRef<unsigned> order) {
  if (swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128)
    return emitError() << "nvmma_shared swizzleBytes must be 32, 64 or 128, got "
                       << swizzleBytes;
  if (elementBits != 8 && elementBits != 16 && elementBits != 32)
    return emitError() << "nvmma_shared elementBits must be 8, 16 or 32, got "
                       << elementBits;
  if (order.size() != 2 || order[0] > 1 || order[1] != 1 - order[0])
    return emitError() << "nvmma_shared describes 2-D tiles: order must be "
                          "[1, 0] or [0, 1]";
  return success();
}

unsigned NVMMASharedEncodingAttr::getRank() const { return 2; }

LogicalResult NVMMASharedEncodingAttr::verifyShape(
    ArrayRef<int64_t> shape, function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != 2)
    return emitError() << "nvmma_shared needs a 2-D buffer";
  unsigned col = getOrder()[0], row = getOrder()[1];
  for (int64_t s : shape)
    if (!llvm::isPowerOf2_64(s))
      return emitError() << "nvmma_shared needs power-of-two sizes";
  if (shape[col] % getColumnElements())
    return emitError() << "nvmma_shared with " << getSwizzleBytes()
                       << "-byte swizzle needs a multiple of "
                       << getColumnElements() << " elements along dimension "
                       << col << ", got " << shape[col];
  if (shape[row] % 8)
    return emitError() << "nvmma_shared needs a multiple of 8 rows (dimension "
                       << row << "), got " << shape[row];
  return success();
}

LinearLayout NVMMASharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  assert(shape.size() == 2 && "nvmma_shared of the wrong rank");
  unsigned col = getOrder()[0], row = getOrder()[1];
  int32_t columnElements = std::min<int64_t>(getColumnElements(), shape[col]);
  int32_t vec = 128 / getElementBits();             // one 16-byte chunk
  int32_t perPhase = 128 / getSwizzleBytes();       // rows sharing a phase
  int32_t maxPhase = getSwizzleBytes() / 16;        // chunks in a row
  auto image = [&](int32_t r, int32_t c) {
    LinearLayout::Image at(2, 0);
    at[row] = r;
    at[col] = c;
    return at;
  };
  LinearLayout::InDim offset{kOffset, {}};
  // Within a row of a column: the elements in order.
  for (int32_t c = 1; c < columnElements; c <<= 1)
    offset.bases.push_back(image(0, c));
  // Rows: each also flips the chunk bits of its phase.
  for (int32_t r = 1; r < shape[row]; r <<= 1) {
    int32_t phase = r / perPhase;
    int32_t flip = (r >= perPhase && phase < maxPhase) ? phase * vec : 0;
    offset.bases.push_back(image(r, flip < columnElements ? flip : 0));
  }
  // Then the columns, one after another.
  for (int32_t c = columnElements; c < shape[col]; c <<= 1)
    offset.bases.push_back(image(0, c));
  return LinearLayout({offset}, {{outDimName(0), int32_t(shape[0])},
                                 {outDimName(1), int32_t(shape[1])}});
}
