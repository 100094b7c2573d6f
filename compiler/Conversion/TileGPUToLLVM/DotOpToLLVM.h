// tile.dot lowering, shared by its two forms: per-thread fused
// multiply-adds (DotOpToLLVM.cpp) and NVIDIA tensor-core instructions
// (NVIDIA/MmaV2ToLLVM.cpp). Both pair registers by the coordinates their
// layouts give them, never by assumed register orders.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"
#include "compiler/Dialect/TileGPU/LinearLayout.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace tilec::lowering {

/// One thread's share of a dot: the layouts of a, b and c (= d) and their
/// registers.
struct DotRegisters {
  tilegpu::LinearLayout a, b, c;
  llvm::SmallVector<mlir::Value> aRegs, bRegs, cRegs;
  /// Element types as the tensors have them (fp8 operands are held as i8
  /// bits in the registers); A and B differ only for e4m3 x e5m2.
  mlir::Type aElement, bElement, accumulatorElement;
  int64_t k = 0;
  tile::InputPrecision precision = tile::InputPrecision::tf32;
};

/// The registers of `layout` found by the coordinates of the elements they
/// hold in lane 0 of warp 0. Other threads hold the same pairing because
/// the lowering checks that the operands' warp bits (and for multiply-adds
/// their lane bits) reach the accumulator's rows and columns, while an MMA
/// instruction spreads its fragments over the lanes itself. Registers of a
/// `group` that an instruction reads together are found by the coordinates
/// of the first.
class RegisterIndex {
public:
  RegisterIndex(const tilegpu::LinearLayout &layout, unsigned group);
  /// The first register of the group holding `coordinate`; nullopt when no
  /// group starts there.
  std::optional<unsigned> find(llvm::ArrayRef<int32_t> coordinate) const;

private:
  const tilegpu::LinearLayout &layout_;
  llvm::DenseMap<uint64_t, unsigned> first_;
};

/// d = a @ b + c as fused multiply-adds in the accumulator's type; nullopt
/// when the operands' registers do not hold every (row, k) and (k, column)
/// the accumulator's need.
std::optional<llvm::SmallVector<mlir::Value>>
lowerFmaDot(mlir::OpBuilder &b, mlir::Location loc, const DotRegisters &dot);

/// `elements` (1 to 4, together 32 bits) as one i32, the first in the low
/// bits: the words tensor-core instructions take operands in.
mlir::Value packWord(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<mlir::Value> elements);

/// d = a @ b + c as mma.sync instructions (sm_80+); kWidth elements of an
/// operand share each 32-bit register. Fails (null vector) only on layouts
/// tilegpu-accelerate-matmul never builds.
std::optional<llvm::SmallVector<mlir::Value>>
lowerMmaV2Dot(mlir::OpBuilder &b, mlir::Location loc, const DotRegisters &dot,
              unsigned kWidth);

} // namespace tilec::lowering
