// ldmatrix (sm_75+): a warp reads four 8x8 matrices of 16-bit elements from
// shared memory with one instruction, each lane receiving the two elements
// an mma.sync fragment register wants. Used by local_load whenever the
// destination layout and the buffer's layout line up with what the
// instruction delivers; the test is on the linear map from the
// destination's (register, lane, warp) bits to buffer offsets, so it holds
// for any layout and swizzle that happen to fit, not only dot operands.
//
// Without .trans, lane l of the result holds, in word j, elements
// (row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1) of matrix j, whose rows
// are 16 contiguous bytes at the addresses lanes 8j..8j+7 give. So the
// destination's register bit 0 and lane bits 0, 1 must step through one
// row's offsets 1, 2, 4; lane bits 2-4 pick the row, register bits 1-2
// the matrix. With .trans the roles swap: lane bits 2-4 step along the row
// and register bit 0 with lane bits 0, 1 pick it (an operand stored with
// the other dimension contiguous, as B usually is).
#include "compiler/Conversion/TileGPUToLLVM/LdMatrix.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {
/// The offset (in elements) that input bit `bit` of `dim` reaches.
int32_t offsetOf(const LinearLayout &map, StringRef dim, unsigned bit) {
  ArrayRef<LinearLayout::Image> bases = map.getBases(dim);
  return bit < bases.size() ? bases[bit][0] : -1;
}

/// Whether ldmatrix (transposed or not) delivers exactly `map`'s registers;
/// if so, the layout of the addresses the lanes give: inputs register (the
/// groups of 8 elements), lane, warp; output the offset.
std::optional<LinearLayout> addressLayout(const LinearLayout &map, bool trans) {
  if (map.getInDimSizeLog2(tilegpu::kRegister) < 3 ||
      map.getInDimSizeLog2(tilegpu::kLane) != 5)
    return std::nullopt;
  using Bit = std::pair<const char *, unsigned>;
  SmallVector<Bit> along = {{tilegpu::kRegister, 0}, {tilegpu::kLane, 0},
                            {tilegpu::kLane, 1}};
  SmallVector<Bit> rows = {{tilegpu::kLane, 2}, {tilegpu::kLane, 3},
                           {tilegpu::kLane, 4}};
  if (trans)
    std::swap(along, rows);
  // One row: 8 consecutive elements.
  for (auto [i, bit] : llvm::enumerate(along))
    if (offsetOf(map, bit.first, bit.second) != int32_t(1) << i)
      return std::nullopt;
  // Every other bit moves whole 16-byte rows.
  auto aligned = [](int32_t offset) { return offset % 8 == 0; };
  SmallVector<LinearLayout::Image> laneBases, registerBases, warpBases;
  for (auto [dim, bit] : rows) {
    int32_t offset = offsetOf(map, dim, bit);
    if (!aligned(offset))
      return std::nullopt;
    laneBases.push_back({offset});
  }
  ArrayRef<LinearLayout::Image> regs = map.getBases(tilegpu::kRegister);
  for (unsigned bit = 1; bit < regs.size(); ++bit) {
    if (!aligned(regs[bit][0]))
      return std::nullopt;
    (bit < 3 ? laneBases : registerBases).push_back(regs[bit]);
  }
  for (const LinearLayout::Image &image : map.getBases(tilegpu::kWarp)) {
    if (!aligned(image[0]))
      return std::nullopt;
    warpBases.push_back(image);
  }
  return LinearLayout({{tilegpu::kRegister, registerBases},
                       {tilegpu::kLane, laneBases},
                       {tilegpu::kWarp, warpBases}},
                      SmallVector<LinearLayout::OutDim>(map.getOutDims()));
}
} // namespace

std::optional<SmallVector<Value>>
tilec::lowering::loadWithLdMatrix(OpBuilder &b, Location loc,
                                  const LinearLayout &regs,
                                  const LinearLayout &shared, Value base,
                                  Type element, const LoweringContext &context) {
  if (context.target.computeCapability < 75 || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() != 16)
    return std::nullopt;
  std::optional<LinearLayout> map = shared.invertAndCompose(regs);
  if (!map)
    return std::nullopt;
  bool trans = false;
  std::optional<LinearLayout> addresses = addressLayout(*map, false);
  if (!addresses) {
    trans = true;
    addresses = addressLayout(*map, true);
  }
  if (!addresses)
    return std::nullopt;

  SmallVector<Value> offsets = threadOffsets(
      b, loc, *addresses, HardwareIndex::ofThread(threadIndex(b, loc, context)));
  std::string ptx = std::string("ldmatrix.sync.aligned.m8n8.x4") +
                    (trans ? ".trans" : "") +
                    ".shared.b16 {$0, $1, $2, $3}, [$4];";
  Type i32 = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                SmallVector<Type>(4, i32));
  auto pair = VectorType::get(2, element);
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  SmallVector<Value> values;
  int32_t groups = regs.getInDimSize(tilegpu::kRegister) / 8;
  for (int32_t g = 0; g < groups; ++g) {
    Value offset = registerCoordinate(b, loc, *addresses, g, offsets)[0];
    Value address = b.create<LLVM::GEPOp>(loc, sharedPtr, element, base,
                                          ValueRange{offset});
    // Shared addresses fit in 32 bits: the "r" operand PTX expects.
    Value address32 = b.create<LLVM::PtrToIntOp>(loc, i32, address);
    Value result =
        b.create<LLVM::InlineAsmOp>(loc, words, ValueRange{address32}, ptx,
                                    "=r,=r,=r,=r,r", /*has_side_effects=*/true,
                                    /*is_align_stack=*/false,
                                    LLVM::tailcallkind::TailCallKind::None,
                                    LLVM::AsmDialectAttr(), ArrayAttr())
            .getResult(0);
    for (int64_t w = 0; w < 4; ++w) {
      Value word = b.create<LLVM::ExtractValueOp>(loc, result, w);
      Value vec = b.create<LLVM::BitcastOp>(loc, pair, word);
      for (int i = 0; i < 2; ++i)
        values.push_back(
            b.create<LLVM::ExtractElementOp>(loc, vec, i32Constant(b, loc, i)));
    }
  }
  return values;
}
