// tile.dot: the dot-operand layouts tilegpu-accelerate-matmul chose decide
// the form; tensor-core forms live in the target's own files (NVIDIA/).
#include "compiler/Conversion/TileGPUToLLVM/DotOpToLLVM.h"
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

Value widen(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  if (isa<FloatType>(to))
    return b.create<LLVM::FPExtOp>(loc, to, v);
  return b.create<LLVM::SExtOp>(loc, to, v);
}
} // namespace

SmallVector<Value> tilec::lowering::lowerFmaDot(OpBuilder &b, Location loc,
                                                const DotRegisters &dot) {
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
      assert(ra && rb && "dot operands do not cover the accumulator");
      Value x = widen(b, loc, dot.aRegs[*ra], acc);
      Value y = widen(b, loc, dot.bRegs[*rb], acc);
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
struct DotOpLowering : OpConversionPattern<tile::DotOp> {
  DotOpLowering(TileTypeConverter &converter, const LoweringContext &context)
      : OpConversionPattern(converter, &converter.getContext()), context(context) {}

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
                     dType.getElementType(),
                     aType.getShape().back(),
                     op.getInputPrecision()};
    SmallVector<Value> result;
    if (isa<tilegpu::MmaEncodingAttr>(dType.getEncoding())) {
      if (context.target.computeCapability < 80)
        return op.emitOpError("mma.sync needs sm_80 or newer, the target is ")
               << context.target.chip;
      std::optional<SmallVector<Value>> mma =
          lowerMmaV2Dot(rewriter, loc, dot, aLayout.getKWidth());
      if (!mma)
        return op.emitOpError("has layouts mma.sync cannot read");
      result = std::move(*mma);
    } else {
      result = lowerFmaDot(rewriter, loc, dot);
    }
    Type packedType = getTypeConverter()->convertType(dType);
    rewriter.replaceOp(op, pack(rewriter, loc, packedType, result));
    return success();
  }

  const LoweringContext &context;
};
} // namespace

void tilec::lowering::populateDotOpToLLVMPatterns(TileTypeConverter &converter,
                                                  const LoweringContext &context,
                                                  RewritePatternSet &patterns) {
  patterns.add<DotOpLowering>(converter, context);
}
