// tilegpu-accelerate-matmul: choose how each tile.dot runs, and the
// layouts that choice fixes.
//
// A dot runs on tensor cores (mma.sync) when the target has them (sm_80+)
// and the instruction takes its operands: f16, bf16, i8 and fp8 (e4m3,
// e5m2; sm_89+), and f32 with tf32 or tf32x3 precision; K must be a
// multiple of the instruction's K (16, 16, 32, 32 and 8), since the
// instruction cannot be masked. fp8 below sm_89 is an error: neither the
// instruction nor the conversions a fused multiply-add would need exist. Its result
// gets an #tilegpu.mma layout and its operands the matching
// #tilegpu.dot_op layouts. Any other dot (ieee f32, a K the instruction
// does not divide) becomes per-thread fused multiply-adds over a blocked
// accumulator. The dot is rebuilt between conversions from and to the
// layouts around it; tilegpu-remove-layout-conversions then carries the
// accumulator layout through the loop and the epilogue, and
// tilegpu-decompose-conversions stages the operands through shared memory.
//
// On sm_90a a dot of the types wgmma multiplies as tl.dot does (f16 or
// bf16 into f32, fp8 into f32, i8 into i32; see fitsWgmma) runs on wgmma
// instead when its shape allows (2-D, whole warpgroups of 64 rows along
// M, K a multiple of the instruction's, operands whose contiguous
// dimension spans at least 32 bytes) and, for the types other than
// 16-bit, which wgmma does not transpose, both operands are K-major in
// their buffers and A is not in registers: each operand is written once into a shared buffer in
// the #tilegpu.nvmma_shared layout its contiguous dimension decides (K
// contiguous is read as is, M or N contiguous transposed), straight from
// the layout it was produced in, and a tilegpu.warp_group_dot reads both
// buffers. An operand that is tl.trans of a tile is read through a
// tilegpu.memdesc_trans view of that tile's buffer (x @ W^T reads W's
// K-contiguous rows as they were loaded). tilegpu-pipeline-loads turns
// those writes of loaded tiles into asynchronous copies. An A the dot's
// loop computes in registers (a chained dot's first product, as in
// attention) is read from its registers, in the dot_op layout of the
// accumulator. Any other tile the loop produces in registers (carried
// from an earlier iteration, as tile-prefetch-loads carries tiles cp.async
// cannot copy, or loaded by a load cp.async cannot copy into the buffer;
// and every such B) keeps mma.sync: it would be
// written into the buffer and waited for in every iteration, which
// measured slower than mma.sync's ldmatrix reads (docs/results.md). A
// tile the loop does not recompute is written once, where it is produced.
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Analysis/FP8.h"
#include "compiler/Analysis/Wgmma.h"
#include "compiler/Dialect/TileGPU/Layouts.h"
#include "compiler/Target/TargetInfo.h"
#include "compiler/Transforms/LoopUtils.h"
#include "compiler/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#define DEBUG_TYPE "tilegpu-accelerate-matmul"

namespace tilec {
#define GEN_PASS_DEF_TILEGPUACCELERATEMATMUL
#include "compiler/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

/// Warps over (batch,) M and N for an mma.sync accumulator of `shape`:
/// the batch first, then whichever of M and N has more instruction tiles
/// left per warp, so that each warp's tile is close to square and no warp
/// holds copies while another dimension could use it.
SmallVector<unsigned> mmaWarps(ArrayRef<int64_t> shape, unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> warps(rank, 1);
  unsigned left = numWarps;
  if (rank == 3) {
    warps[0] = std::min<int64_t>(shape[0], left);
    left /= warps[0];
  }
  int64_t m = shape[rank - 2], n = shape[rank - 1];
  unsigned &wm = warps[rank - 2], &wn = warps[rank - 1];
  while (left > 1) {
    int64_t tilesM = m / (16 * wm), tilesN = n / (8 * wn);
    if (tilesM >= tilesN && tilesM > 1)
      wm *= 2;
    else if (tilesN > 1)
      wn *= 2;
    else
      wm *= 2; // the tensor is covered: the rest hold copies
    left /= 2;
  }
  return warps;
}

/// A blocked accumulator for fused multiply-adds: up to 4 x 4 elements per
/// thread, so that each operand register serves four products.
Attribute fmaAccumulatorLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                               unsigned numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> sizePerThread(rank, 1), order;
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  int64_t perThread = std::max<int64_t>(
      1, elements / (int64_t(numWarps) * tilegpu::kThreadsPerWarp));
  sizePerThread[rank - 1] = std::min<int64_t>({4, shape[rank - 1], perThread});
  sizePerThread[rank - 2] =
      std::min<int64_t>({4, shape[rank - 2], perThread / sizePerThread[rank - 1]});
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  return tilegpu::getBlockedLayout(ctx, shape, sizePerThread, order, numWarps);
}

/// The dimension of `type` along which each thread's registers run
/// longest (ties: `preferred`): the one a shared buffer written from it
/// should keep contiguous.
unsigned contiguousDim(RankedTensorType type, unsigned preferred) {
  tilegpu::LinearLayout layout = tilegpu::toLinearLayout(type);
  auto run = [&](unsigned d) {
    return layout.getNumConsecutiveBits(tilegpu::kRegister, tilegpu::outDimName(d));
  };
  unsigned other = 1 - preferred;
  return run(other) > run(preferred) ? other : preferred;
}

/// The wgmma layout of a buffer of `type` kept contiguous along `col`: the
/// widest swizzle its rows fill; nullopt when they are narrower than 32
/// bytes or there are fewer than 8 of them.
std::optional<tilegpu::NVMMASharedEncodingAttr>
wgmmaBufferLayout(RankedTensorType type, unsigned col) {
  unsigned bits = type.getElementTypeBitWidth();
  int64_t rowBytes = type.getShape()[col] * bits / 8;
  if (rowBytes < 32 || type.getShape()[1 - col] % 8)
    return std::nullopt;
  unsigned swizzle = rowBytes >= 128 ? 128 : unsigned(rowBytes);
  return tilegpu::NVMMASharedEncodingAttr::get(type.getContext(), swizzle, bits,
                                               {col, 1 - col});
}

/// The layout TMA writes the tile `src` reads through a tensor map in, when
/// that is a wgmma layout (a swizzled one); nullopt otherwise. A dot reads
/// such a tile's buffer in this layout whatever the registers' layout says:
/// the copies land in it.
std::optional<tilegpu::NVMMASharedEncodingAttr> tmaBufferLayout(Value src) {
  auto load = src.getDefiningOp<tile::TensorMapLoadOp>();
  if (!load)
    return std::nullopt;
  RankedTensorType type = load.getResult().getType();
  Type element = type.getElementType();
  std::optional<TMABlockLayout> layout = tilegpu::getTMABlockLayout(type.getShape(), element);
  if (!layout)
    return std::nullopt;
  auto nvmma = dyn_cast<tilegpu::NVMMASharedEncodingAttr>(
      tilegpu::getTMABufferEncoding(src.getContext(), *layout, element));
  if (!nvmma)
    return std::nullopt;
  return nvmma;
}

/// The tile a dot operand is made of: its producer, past layout
/// conversions and a tl.trans (`transposed`), which a transposed view of
/// the tile's buffer replaces.
struct OperandTile {
  Value tile;
  bool transposed;
};

OperandTile operandTile(Value operand) {
  Value v = throughConversions(operand);
  if (isTranspose(v.getDefiningOp()))
    return {throughConversions(v.getDefiningOp()->getOperand(0)), true};
  return {v, false};
}

RankedTensorType withEncoding(Value v, Attribute encoding) {
  return cast<RankedTensorType>(v.getType()).cloneWithEncoding(encoding);
}

struct TileGPUAccelerateMatmulPass
    : tilec::impl::TileGPUAccelerateMatmulBase<TileGPUAccelerateMatmulPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    unsigned numWarps = tilegpu::getNumWarps(module);
    std::string error;
    std::optional<TargetInfo> target =
        TargetInfo::parse(tilegpu::getTarget(module), error);
    if (!numWarps || !target) {
      module.emitError("tilegpu-accelerate-matmul needs a module that went "
                       "through tile-to-tilegpu");
      return signalPassFailure();
    }
    SmallVector<tile::DotOp> dots;
    module.walk([&](tile::DotOp op) { dots.push_back(op); });
    IRRewriter rewriter(&getContext());
    // (Only wgmma's choice asks where the operands' loads can be copied.)
    std::unique_ptr<AxisInfoAnalysis> axisInfo;
    if (!dots.empty() && target->hasWgmma())
      axisInfo = std::make_unique<AxisInfoAnalysis>(module);
    for (tile::DotOp op : dots) {
      if (isFP8(op.getA().getType()) &&
          target->computeCapability < 89) {
        op.emitError("tl.dot of fp8 operands needs sm_89 or newer (the target "
                     "is ")
            << target->chip << ")";
        return signalPassFailure();
      }
      accelerate(rewriter, op, *target, numWarps, axisInfo.get());
    }
  }

  /// Rewrites `op` into a tilegpu.warp_group_dot when sm_90a's wgmma can
  /// run it; false (nothing changed) otherwise.
  bool useWgmma(IRRewriter &rewriter, tile::DotOp op, const TargetInfo &target,
                unsigned numWarps, const AxisInfoAnalysis *axisInfo) {
    if (!axisInfo || !target.hasWgmma() || !fitsWgmma(op, numWarps))
      return false;
    int64_t n = op.getD().getType().getShape()[1];
    unsigned warpgroups = numWarps / 4;
    // K is dimension 1 of A and 0 of B, and the other one of a tile they
    // are the transpose of.
    OperandTile aTile = operandTile(op.getA()), bTile = operandTile(op.getB());
    Value aSrc = aTile.tile, bSrc = bTile.tile;
    auto aSrcType = cast<RankedTensorType>(aSrc.getType());
    auto bSrcType = cast<RankedTensorType>(bSrc.getType());
    std::optional<tilegpu::NVMMASharedEncodingAttr> aShared = tmaBufferLayout(aSrc);
    if (!aShared)
      aShared = wgmmaBufferLayout(aSrcType, contiguousDim(aSrcType, aTile.transposed ? 0 : 1));
    std::optional<tilegpu::NVMMASharedEncodingAttr> bShared = tmaBufferLayout(bSrc);
    if (!bShared)
      bShared = wgmmaBufferLayout(bSrcType, contiguousDim(bSrcType, bTile.transposed ? 1 : 0));
    // wgmma transposes 16-bit operands only: the other types need each
    // buffer K-major (K is dimension 0 of B's tile and 1 of A's, swapped
    // for a tile the operand is the transpose of). An operand loaded
    // M- or N-major keeps mma.sync, whose ldmatrix reads any layout.
    bool anyMajor = tilegpu::wgmmaTakesAnyMajor(aSrcType.getElementType());
    auto kMajor = [](std::optional<tilegpu::NVMMASharedEncodingAttr> layout,
                     unsigned kDim) { return layout && layout->getOrder()[0] == kDim; };
    if (!bShared || (!anyMajor && !kMajor(bShared, bTile.transposed ? 1 : 0)))
      return false;
    MLIRContext *ctx = op.getContext();
    auto bufferType = [&](Value src, tilegpu::NVMMASharedEncodingAttr layout) {
      auto type = cast<RankedTensorType>(src.getType());
      return tilegpu::MemDescType::get(ctx, type.getShape(), type.getElementType(),
                                       layout, /*mutableMemory=*/false);
    };
    // A tile the innermost loop around the dot recomputes must come from a
    // load of that iteration that cp.async can copy into the buffer.
    auto loop = op->getParentOfType<LoopLikeOpInterface>();
    auto suitsBuffer = [&](Value src, tilegpu::MemDescType buffer) {
      if (!loop || loop.isDefinedOutsideOfLoop(src))
        return true; // written once
      // A TMA read lands in the buffer itself, in its own layout.
      if (auto tma = src.getDefiningOp<tile::TensorMapLoadOp>())
        return tma->getBlock() == op->getBlock() && tmaBufferLayout(src) &&
               buffer.getEncoding() == *tmaBufferLayout(src);
      auto load = src.getDefiningOp<tile::LoadOp>();
      return load && load->getBlock() == op->getBlock() && isAsyncCopyable(load) &&
             asyncCopyWidth(load.getPtr(), load.getMask(), buffer, *axisInfo) != 0;
    };
    if (!suitsBuffer(bSrc, bufferType(bSrc, *bShared)))
      return false;
    // A tile the loop computes in registers (the first product of a chained
    // dot, its softmax) is multiplied from its registers; a loaded or
    // carried one without a buffer keeps mma.sync (as B does), whose
    // ldmatrix reads measured faster than writing it into a buffer.
    bool aInRegisters = !aShared || !suitsBuffer(aSrc, bufferType(aSrc, *aShared));
    if (aInRegisters ? !isComputedTile(aSrc) || !anyMajor
                     : !anyMajor && !kMajor(aShared, aTile.transposed ? 0 : 1))
      return false;
    unsigned instrN = unsigned(std::min<int64_t>(n, 256));
    auto accumulator = tilegpu::MmaEncodingAttr::get(
        ctx, 3, {4 * warpgroups, 1}, {64, instrN});
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    // Each buffer is written where its tile is produced (once, for a tile
    // from outside the loop), and a transposed tile is read through a
    // transposed view of its buffer. Dots that read one tile in the same
    // layout share its buffer (as gate and up projections share x): one
    // copy, and one load for tilegpu-pipeline-loads and
    // tilegpu-warp-specialize to ring (they take a load with one buffer).
    auto buffer = [&](OperandTile tile, tilegpu::NVMMASharedEncodingAttr layout) -> Value {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfterValue(tile.tile);
      tilegpu::MemDescType type = bufferType(tile.tile, layout);
      Value alloc;
      for (Operation *user : tile.tile.getUsers())
        if (auto earlier = dyn_cast<tilegpu::LocalAllocOp>(user);
            earlier && earlier.getType() == type &&
            earlier->getBlock() == tile.tile.getParentBlock())
          alloc = earlier.getResult();
      if (!alloc)
        alloc = rewriter.create<tilegpu::LocalAllocOp>(loc, type, tile.tile);
      if (!tile.transposed)
        return alloc;
      return rewriter.create<tilegpu::MemDescTransOp>(loc, alloc);
    };
    Value a = aInRegisters
                  ? rewriter.create<tilegpu::ConvertLayoutOp>(
                        loc,
                        withEncoding(op.getA(), tilegpu::DotOperandEncodingAttr::get(
                                                    ctx, 0, accumulator, 2)),
                        op.getA())
                  : buffer(aTile, *aShared);
    Value b = buffer(bTile, *bShared);
    Value c = rewriter.create<tilegpu::ConvertLayoutOp>(
        loc, withEncoding(op.getC(), accumulator), op.getC());
    auto dot = rewriter.create<tilegpu::WarpGroupDotOp>(
        loc, c.getType(), a, b, c, /*pending=*/0, op.getMaxNumImpreciseAccAttr());
    rewriter.replaceOpWithNewOp<tilegpu::ConvertLayoutOp>(op, op.getD().getType(), dot);
    return true;
  }

  void accelerate(IRRewriter &rewriter, tile::DotOp op, const TargetInfo &target,
                  unsigned numWarps, const AxisInfoAnalysis *axisInfo) {
    if (useWgmma(rewriter, op, target, numWarps, axisInfo))
      return;
    MLIRContext *ctx = op.getContext();
    RankedTensorType aType = op.getA().getType(), dType = op.getD().getType();
    std::optional<unsigned> kWidth =
        mmaSyncKWidth(aType.getElementType(), op.getInputPrecision());
    bool useMma = target.computeCapability >= 80 && fitsMmaSync(op);
    Attribute parent;
    unsigned operandWidth = 1;
    if (useMma) {
      unsigned rank = dType.getRank();
      SmallVector<unsigned> instr(rank, 1);
      instr[rank - 2] = 16;
      instr[rank - 1] = 8;
      parent = tilegpu::MmaEncodingAttr::get(
          ctx, 2, mmaWarps(dType.getShape(), numWarps), instr);
      operandWidth = *kWidth;
    } else {
      parent = fmaAccumulatorLayout(ctx, dType.getShape(), numWarps);
    }
    if (dType.getEncoding() == parent)
      return; // already chosen (the pass ran before)
    auto aLayout = tilegpu::DotOperandEncodingAttr::get(ctx, 0, parent, operandWidth);
    auto bLayout = tilegpu::DotOperandEncodingAttr::get(ctx, 1, parent, operandWidth);
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    auto convert = [&](Value v, Attribute layout) -> Value {
      return rewriter.create<tilegpu::ConvertLayoutOp>(loc, withEncoding(v, layout), v);
    };
    Value a = convert(op.getA(), aLayout), b = convert(op.getB(), bLayout),
          c = convert(op.getC(), parent);
    auto dot = rewriter.create<tile::DotOp>(loc, c.getType(), a, b, c,
                                           op.getInputPrecision(),
                                           op.getMaxNumImpreciseAccAttr());
    rewriter.replaceOpWithNewOp<tilegpu::ConvertLayoutOp>(op, dType, dot);
  }
};
} // namespace
