// ldmatrix (sm_75+) and stmatrix (sm_90+): a warp moves four 8x8 matrices
// of 16-bit elements between shared memory and its registers with one
// instruction, each lane holding the two elements an mma.sync fragment
// register (or a wgmma accumulator register, once narrowed) holds. Used by
// local_load, and by local_alloc / local_store, whenever the registers'
// layout and the buffer's layout line up with what the instruction moves;
// the test is on the linear map from the registers' (register, lane,
// warp) bits to buffer offsets, so it holds for any layout and swizzle
// that happen to fit, not only dot operands and accumulators.
//
// Without .trans, lane l holds, in word j, elements (row l / 4, columns
// 2 (l % 4) and 2 (l % 4) + 1) of matrix j, whose rows are 16 contiguous
// bytes at the addresses lanes 8j..8j+7 give. So the registers' bit 0 and
// lane bits 0, 1 must step through one row's offsets 1, 2, 4; lane bits
// 2-4 pick the row, register bits 1-2 the matrix. With .trans the roles
// swap: lane bits 2-4 step along the row and register bit 0 with lane bits
// 0, 1 pick it (a tile stored with the other dimension contiguous, as B
// usually is).
//
// A store moves 8 registers in one instruction where the element-wise
// path (storeToShared) writes four 4-byte words: an epilogue writing a
// 128 x 256 accumulator for a TMA store issues 16 stmatrix per thread
// instead of 64 st.shared. Which registers go where, and when the rows
// of a matrix meet in a bank, is tilegpu::matrixMove's (SharedLayouts.h).
#include "compiler/Conversion/TileGPUToLLVM/MatrixMoves.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"
#include "compiler/Dialect/TileGPU/SharedLayouts.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {
/// The shared address (as the 32-bit "r" operand PTX expects: shared
/// addresses fit) of register group `group` of this thread.
Value groupAddress(OpBuilder &b, Location loc, const LinearLayout &addresses,
                   int32_t group, ArrayRef<Value> offsets, Value base, Type element) {
  Value offset = registerCoordinate(b, loc, addresses, group, offsets)[0];
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), kSharedAddressSpace);
  Value address = b.create<LLVM::GEPOp>(loc, sharedPtr, element, base, ValueRange{offset});
  return b.create<LLVM::PtrToIntOp>(loc, b.getI32Type(), address);
}

bool isSixteenBit(Type element) {
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() == 16;
}

/// How the instructions move registers of layout `regs` to or from a
/// buffer of layout `shared` (16-bit elements), if they can.
std::optional<tilegpu::MatrixMove> matrixMoveBetween(const LinearLayout &regs,
                                                     const LinearLayout &shared, Type element) {
  if (!isSixteenBit(element))
    return std::nullopt;
  std::optional<LinearLayout> map = shared.invertAndCompose(regs);
  return map ? tilegpu::matrixMove(*map) : std::nullopt;
}
} // namespace

std::optional<SmallVector<Value>>
tilec::lowering::loadWithLdMatrix(OpBuilder &b, Location loc,
                                  const LinearLayout &regs,
                                  const LinearLayout &shared, Value base,
                                  Type element, const LoweringContext &context) {
  if (context.target.computeCapability < 75)
    return std::nullopt;
  std::optional<tilegpu::MatrixMove> move = matrixMoveBetween(regs, shared, element);
  if (!move)
    return std::nullopt;
  const LinearLayout &layout = move->addresses;
  bool trans = move->transposed;

  SmallVector<Value> offsets =
      threadOffsets(b, loc, layout, HardwareIndex::ofThread(threadIndex(b, loc, context)));
  std::string ptx = std::string("ldmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") +
                    ".shared.b16 {$0, $1, $2, $3}, [$4];";
  Type i32 = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(4, i32));
  auto pair = VectorType::get(2, element);
  SmallVector<Value> values;
  int32_t groups = regs.getInDimSize(tilegpu::kRegister) / 8;
  for (int32_t g = 0; g < groups; ++g) {
    Value address = groupAddress(b, loc, layout, g, offsets, base, element);
    Value result = orderedAsm(b, loc, words, address, ptx, "=r,=r,=r,=r,r");
    for (int64_t w = 0; w < 4; ++w) {
      Value word = b.create<LLVM::ExtractValueOp>(loc, result, w);
      Value vec = b.create<LLVM::BitcastOp>(loc, pair, word);
      for (int i = 0; i < 2; ++i)
        values.push_back(b.create<LLVM::ExtractElementOp>(loc, vec, i32Constant(b, loc, i)));
    }
  }
  return values;
}

bool tilec::lowering::storeWithStMatrix(OpBuilder &b, Location loc, const LinearLayout &regs,
                                        const LinearLayout &shared, Value base, Type element,
                                        ArrayRef<Value> values,
                                        const LoweringContext &context) {
  // Every element in one thread's register only: a copy held elsewhere
  // would be a second write of the address (storeToShared lets only its
  // owner write).
  if (context.target.computeCapability < 90 || !regs.isInjective())
    return false;
  // A buffer laid out for element-wise writes (a layout conversion's) may
  // put a matrix's rows in one bank: those keep the element-wise path.
  std::optional<tilegpu::MatrixMove> move = matrixMoveBetween(regs, shared, element);
  if (!move || !tilegpu::isConflictFree(*move))
    return false;
  const LinearLayout &layout = move->addresses;
  bool trans = move->transposed;

  SmallVector<Value> offsets =
      threadOffsets(b, loc, layout, HardwareIndex::ofThread(threadIndex(b, loc, context)));
  std::string ptx = std::string("stmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") +
                    ".shared.b16 [$0], {$1, $2, $3, $4};";
  Type i32 = b.getI32Type();
  auto pair = VectorType::get(2, element);
  auto none = LLVM::LLVMVoidType::get(b.getContext());
  int32_t groups = regs.getInDimSize(tilegpu::kRegister) / 8;
  for (int32_t g = 0; g < groups; ++g) {
    SmallVector<Value> operands = {groupAddress(b, loc, layout, g, offsets, base, element)};
    for (int32_t w = 0; w < 4; ++w) {
      Value vec = b.create<LLVM::UndefOp>(loc, pair);
      for (int32_t i = 0; i < 2; ++i)
        vec = b.create<LLVM::InsertElementOp>(loc, vec, values[8 * g + 2 * w + i],
                                              i32Constant(b, loc, i));
      operands.push_back(b.create<LLVM::BitcastOp>(loc, i32, vec));
    }
    orderedAsm(b, loc, none, operands, ptx, "r,r,r,r,r");
  }
  return true;
}
