// Shared pieces of the tilegpu → LLVM lowering: the type converter, packing
// of per-thread registers into LLVM structs, and the index arithmetic of
// layouts (which element a register of this thread holds).
#pragma once

#include "compiler/Analysis/AxisInfo.h"
#include "compiler/Dialect/TileGPU/Layouts.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec::lowering {

/// What the patterns need to know about the target and the module.
struct TargetInfo {
  unsigned computeCapability = 90;
  unsigned numWarps = 4;
  unsigned numThreads() const { return numWarps * tilegpu::kThreadsPerWarp; }
};

/// LLVM types for tile values: `!tile.ptr<T>` → `!llvm.ptr<1>`, a tensor
/// with a layout → a literal struct of the registers one thread holds.
class TileTypeConverter : public mlir::LLVMTypeConverter {
public:
  explicit TileTypeConverter(mlir::MLIRContext *ctx);
};

/// Global address space of NVPTX.
constexpr unsigned kGlobalAddressSpace = 1;
/// Shared address space of NVPTX.
constexpr unsigned kSharedAddressSpace = 3;
/// Name of the dynamic shared memory array every kernel shares.
constexpr const char *kSharedMemorySymbol = "tilec_shared";
/// Module attribute: bytes of dynamic shared memory the kernel needs.
constexpr const char *kSharedBytesAttr = "tilegpu.shared_bytes";

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// The registers of a converted tensor value (or the value itself for a
/// scalar) and back.
llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value packed);
mlir::Value pack(mlir::OpBuilder &b, mlir::Location loc, mlir::Type packedType,
                 mlir::ValueRange registers);

/// This thread's index in the CTA (i32).
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc,
                     const TargetInfo &target);

/// Per tensor dimension, the part of every register's coordinate that
/// depends on the thread (see Layouts.h), as i32 values.
llvm::SmallVector<mlir::Value>
threadOffsets(mlir::OpBuilder &b, mlir::Location loc,
              const tilegpu::RegisterMap &map, const TargetInfo &target);

/// Coordinates of every register: result[r][d] is an i32.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
registerCoordinates(mlir::OpBuilder &b, mlir::Location loc,
                    const tilegpu::RegisterMap &map, const TargetInfo &target);

/// The row-major i32 index of `coord` in `shape` with dimension `axis` left
/// out: where a reduction or scan keeps the line through that coordinate.
mlir::Value indexWithoutAxis(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::ArrayRef<mlir::Value> coord,
                             llvm::ArrayRef<int64_t> shape, unsigned axis);

/// An i1 that is true in exactly one thread among those holding copies of
/// the same elements (threads that wrap around a small tensor, or differ
/// only in a sliced-away dimension); null when no thread holds copies.
mlir::Value ownsElements(mlir::OpBuilder &b, mlir::Location loc,
                         const tilegpu::RegisterMap &map,
                         const TargetInfo &target);

/// True when register r repeats an element an earlier register of the same
/// thread holds (a size-1 dimension narrower than sizePerThread).
bool isRepeatedRegister(const tilegpu::RegisterMap &map, unsigned r);

/// shfl.sync of any scalar of up to 64 bits (wider ones as two words):
/// `lane` is the lane mask (bfly), delta (up, down) or source lane (idx).
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::NVVM::ShflKind kind, mlir::Value lane);
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    mlir::NVVM::ShflKind kind, unsigned lane);

/// One application of a reduce/scan combiner block (2N arguments, N
/// results) to two partials of N values: its ops cloned at `b`.
llvm::SmallVector<mlir::Value> applyCombiner(mlir::OpBuilder &b,
                                             mlir::Block &combiner,
                                             llvm::ArrayRef<mlir::Value> lhs,
                                             llvm::ArrayRef<mlir::Value> rhs);

/// Pointer to the kernel's dynamic shared memory (address space 3).
mlir::Value sharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Operation *anchor);

/// Record that the kernel needs at least `bytes` of shared memory.
void requireSharedBytes(mlir::Operation *anchor, int64_t bytes);

void populateFuncOpToLLVMPatterns(TileTypeConverter &converter,
                                  const TargetInfo &target,
                                  mlir::RewritePatternSet &patterns);
void populateElementwiseOpToLLVMPatterns(TileTypeConverter &converter,
                                         const TargetInfo &target,
                                         mlir::RewritePatternSet &patterns);
void populateViewOpToLLVMPatterns(TileTypeConverter &converter,
                                  const TargetInfo &target,
                                  mlir::RewritePatternSet &patterns);
void populateLoadStoreOpToLLVMPatterns(TileTypeConverter &converter,
                                       const TargetInfo &target,
                                       const AxisInfoAnalysis &axisInfo,
                                       mlir::RewritePatternSet &patterns);
void populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                    const TargetInfo &target,
                                    mlir::RewritePatternSet &patterns);
void populateScanOpToLLVMPatterns(TileTypeConverter &converter,
                                  const TargetInfo &target,
                                  mlir::RewritePatternSet &patterns);
void populateConvertLayoutOpToLLVMPatterns(TileTypeConverter &converter,
                                           const TargetInfo &target,
                                           mlir::RewritePatternSet &patterns);

} // namespace tilec::lowering
