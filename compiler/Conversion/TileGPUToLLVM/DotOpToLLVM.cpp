// tile.dot: the dot-operand layouts tilegpu-accelerate-matmul chose decide
// the form; tensor-core forms live in the target's own files (NVIDIA/).
#include "compiler/Conversion/TileGPUToLLVM/DotOpToLLVM.h"
#include "compiler/Analysis/FP8.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

RegisterIndex::RegisterIndex(const LinearLayout &layout, unsigned group)
    : layout_(layout) {
  int32_t n = layout.getInDimSize(tilegpu::kRegister);
  for (int32_t r = 0; r < n; r += group)
    first_.try_emplace(layout.flattenOut(layout.applyOne(tilegpu::kRegister, r)),
                       unsigned(r));
}

std::optional<unsigned> RegisterIndex::find(ArrayRef<int32_t> coordinate) const {
  auto it = first_.find(layout_.flattenOut(coordinate));
  if (it == first_.end())
    return std::nullopt;
  return it->second;
}

namespace {
/// Coordinates (batch,) row, column of a rank-`rank` operand.
LinearLayout::Image coordinate(unsigned rank, int32_t batch, int32_t row,
                               int32_t col) {
  LinearLayout::Image image(rank, 0);
  if (rank == 3)
    image[0] = batch;
  image[rank - 2] = row;
  image[rank - 1] = col;
  return image;
}

/// Register `v`, of the operand's `element` type, in the accumulator's.
Value widen(OpBuilder &b, Location loc, Value v, Type element, Type to) {
  if (isFP8(element)) // i8 bits; fp8 accumulates in f32
    return fp8ToF32(b, loc, v, element);
  if (v.getType() == to)
    return v;
  if (isa<FloatType>(to))
    return b.create<LLVM::FPExtOp>(loc, to, v);
  return b.create<LLVM::SExtOp>(loc, to, v);
}
} // namespace

std::optional<SmallVector<Value>>
tilec::lowering::lowerFmaDot(OpBuilder &b, Location loc, const DotRegisters &dot) {
  unsigned rank = dot.c.getOutDims().size();
  RegisterIndex aIndex(dot.a, 1), bIndex(dot.b, 1);
  Type acc = dot.accumulatorElement;
  SmallVector<Value> result;
  for (auto [r, c] : llvm::enumerate(dot.cRegs)) {
    LinearLayout::Image at = dot.c.applyOne(tilegpu::kRegister, r);
    int32_t batch = rank == 3 ? at[0] : 0, row = at[rank - 2], col = at[rank - 1];
    Value sum = c;
    for (int32_t k = 0; k < dot.k; ++k) {
      std::optional<unsigned> ra = aIndex.find(coordinate(rank, batch, row, k));
      std::optional<unsigned> rb = bIndex.find(coordinate(rank, batch, k, col));
      if (!ra || !rb)
        return std::nullopt; // the operands do not cover the accumulator
      Value x = widen(b, loc, dot.aRegs[*ra], dot.aElement, acc);
      Value y = widen(b, loc, dot.bRegs[*rb], dot.bElement, acc);
      if (isa<FloatType>(acc))
        sum = b.create<LLVM::FMAOp>(loc, x, y, sum);
      else
        sum = b.create<LLVM::AddOp>(loc, sum, b.create<LLVM::MulOp>(loc, x, y));
    }
    result.push_back(sum);
  }
  return result;
}

namespace {
/// Registers are paired by their coordinates in lane 0 of warp 0, so every
/// other thread must hold the same rows of A and C, and columns of B and C:
/// A's warp bits reach the M coordinates C's do, B's the N coordinates
/// (operands hold copies along the dimension they lack). For multiply-adds
/// the lanes must agree the same way; an MMA instruction distributes its
/// fragments over the lanes itself.
bool operandsFollowAccumulator(const DotRegisters &dot, bool lanesToo) {
  unsigned rank = dot.c.getOutDims().size();
  unsigned m = rank - 2, n = rank - 1;
  auto agree = [&](const LinearLayout &operand, unsigned operandDim,
                   unsigned accDim, StringRef in) {
    ArrayRef<LinearLayout::Image> x = operand.getBases(in), c = dot.c.getBases(in);
    if (x.size() != c.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i][operandDim] != c[i][accDim] || (rank == 3 && x[i][0] != c[i][0]))
        return false;
    return true;
  };
  SmallVector<StringRef> ins{tilegpu::kWarp};
  if (lanesToo)
    ins.push_back(tilegpu::kLane);
  for (StringRef in : ins)
    if (!agree(dot.a, m, m, in) || !agree(dot.b, n, n, in))
      return false;
  return true;
}

struct DotOpLowering : ContextPattern<tile::DotOp> {
  using ContextPattern::ContextPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType(),
                     dType = op.getD().getType();
    auto aLayout = dyn_cast<tilegpu::DotOperandEncodingAttr>(aType.getEncoding());
    auto bLayout = dyn_cast<tilegpu::DotOperandEncodingAttr>(bType.getEncoding());
    if (!aLayout || !bLayout || aLayout.getOpIdx() != 0 ||
        bLayout.getOpIdx() != 1 || aLayout.getParent() != dType.getEncoding() ||
        bLayout.getParent() != dType.getEncoding() ||
        aLayout.getKWidth() != bLayout.getKWidth())
      return op.emitOpError("needs operands in the #tilegpu.dot_op layouts of "
                            "its result's layout (run tilegpu-accelerate-matmul)");
    DotRegisters dot{tilegpu::toLinearLayout(aType),
                     tilegpu::toLinearLayout(bType),
                     tilegpu::toLinearLayout(dType),
                     unpack(rewriter, loc, adaptor.getA()),
                     unpack(rewriter, loc, adaptor.getB()),
                     unpack(rewriter, loc, adaptor.getC()),
                     aType.getElementType(),
                     bType.getElementType(),
                     dType.getElementType(),
                     aType.getShape().back(),
                     op.getInputPrecision()};
    bool isMma = isa<tilegpu::MmaEncodingAttr>(dType.getEncoding());
    if (!operandsFollowAccumulator(dot, /*lanesToo=*/!isMma))
      return op.emitOpError("has operand layouts whose warps (or, for "
                            "multiply-adds, lanes) do not hold the rows and "
                            "columns of the accumulator they feed");
    SmallVector<Value> result;
    if (isMma) {
      if (context.target.computeCapability < 80)
        return op.emitOpError("mma.sync needs sm_80 or newer, the target is ")
               << context.target.chip;
      std::optional<SmallVector<Value>> mma =
          lowerMmaV2Dot(rewriter, loc, dot, aLayout.getKWidth());
      if (!mma)
        return op.emitOpError("has layouts mma.sync cannot read");
      result = std::move(*mma);
    } else {
      std::optional<SmallVector<Value>> fma = lowerFmaDot(rewriter, loc, dot);
      if (!fma)
        return op.emitOpError("has operand layouts that do not cover its "
                              "accumulator");
      result = std::move(*fma);
    }
    Type packedType = getTypeConverter()->convertType(dType);
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, result));
    return success();
  }
};
} // namespace

void tilec::lowering::populateDotOpToLLVMPatterns(TileTypeConverter &converter,
                                                  const LoweringContext &context,
                                                  RewritePatternSet &patterns) {
  patterns.add<DotOpLowering>(converter, context);
}
