// tile.load / tile.store → global memory accesses, as wide as the layout,
// the axis info and the mask allow (128 bits at most).
//
// Unmasked accesses with default cache behaviour are plain LLVM vector loads
// and stores carrying their alignment, which NVPTX turns into
// ld.global.v4.b32 and friends. Masked accesses, accesses with cache hints,
// and stores from threads that hold copies become predicated PTX
// (`@p ld.global.v4.b32 ...`) through inline assembly, so the predicate
// guards the instruction itself rather than a branch around it.
#include "compiler/Analysis/AccessWidth.h"
#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

std::string cacheSuffix(tile::CacheModifier cache, tile::EvictionPolicy evict,
                        bool isVolatile) {
  std::string s;
  if (cache != tile::CacheModifier::none)
    s += "." + tile::stringifyCacheModifier(cache).str();
  if (evict == tile::EvictionPolicy::evict_first)
    s += ".L1::evict_first";
  else if (evict == tile::EvictionPolicy::evict_last)
    s += ".L1::evict_last";
  return s;
}

struct LoadOpLowering : OpConversionPattern<tile::LoadOp> {
  LoadOpLowering(TileTypeConverter &converter, const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, &converter.getContext()),
        axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element =
        getTypeConverter()->convertType(tile::getElementTypeOrSelf(op.getType()));
    unsigned vector = globalAccessWidth(op.getPtr(), op.getMask(), axisInfo);
    AccessShape shape(element, vector);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> masks, others;
    if (op.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());
    if (op.getOther())
      others = unpack(rewriter, loc, adaptor.getOther());
    bool plain = !op.getMask() && op.getCache() == tile::CacheModifier::none &&
                 op.getEvict() == tile::EvictionPolicy::normal &&
                 !op.getIsVolatile();

    SmallVector<Value> values;
    for (unsigned first = 0; first < ptrs.size(); first += vector) {
      SmallVector<Value> chunk;
      if (plain)
        chunk = emitPlainLoad(rewriter, loc, shape, ptrs[first]);
      else
        chunk = predicatedLoad(rewriter, loc, shape, op, ptrs[first],
                               masks.empty() ? Value() : masks[first],
                               others.empty()
                                   ? ArrayRef<Value>()
                                   : ArrayRef<Value>(others).slice(first, vector));
      values.append(chunk);
    }
    rewriter.replaceOp(op, pack(rewriter, loc,
                                getTypeConverter()->convertType(op.getType()),
                                values));
    return success();
  }

  SmallVector<Value> predicatedLoad(OpBuilder &b, Location loc,
                                    const AccessShape &s, tile::LoadOp op,
                                    Value ptr, Value mask,
                                    ArrayRef<Value> others) const {
    if (!mask)
      mask = b.create<LLVM::ConstantOp>(loc, b.getI1Type(), b.getBoolAttr(true));
    std::string ptx, constraints;
    llvm::raw_string_ostream os(ptx);
    unsigned n = s.numWords;
    SmallVector<Value> operands{mask, ptr};
    SmallVector<Value> otherWords;
    if (!others.empty())
      otherWords = toWords(b, loc, s, others);
    os << "{\n";
    for (unsigned i = 0; i < otherWords.size(); ++i)
      os << llvm::formatv("mov.b{0} ${1}, ${2};\n", std::max(16u, s.wordBits), i,
                          n + 2 + i);
    os << "@$" << n << " ld" << (op.getIsVolatile() ? ".volatile" : "")
       << ".global" << cacheSuffix(op.getCache(), op.getEvict(), false)
       << s.ptxSuffix() << " ";
    if (n > 1)
      os << "{";
    for (unsigned i = 0; i < n; ++i)
      os << (i ? ", " : "") << "$" << i;
    if (n > 1)
      os << "}";
    os << ", [ $" << n + 1 << " + 0 ];\n}";
    for (unsigned i = 0; i < n; ++i)
      constraints += std::string(i ? "," : "") + "=" + s.constraint();
    constraints += ",b,l";
    for (Value w : otherWords) {
      constraints += std::string(",") + s.constraint();
      operands.push_back(w);
    }
    Type resultType =
        n == 1 ? s.wordType()
               : LLVM::LLVMStructType::getLiteral(
                     b.getContext(), SmallVector<Type>(n, s.wordType()));
    auto asmOp = b.create<LLVM::InlineAsmOp>(
        loc, resultType, operands, ptx, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr(), ArrayAttr());
    SmallVector<Value> words = unpack(b, loc, asmOp.getResult(0));
    return fromWords(b, loc, s, words);
  }

  const AxisInfoAnalysis &axisInfo;
};

struct StoreOpLowering : OpConversionPattern<tile::StoreOp> {
  StoreOpLowering(TileTypeConverter &converter, const LoweringContext &context,
                  const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, &converter.getContext()), context(context),
        axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = getTypeConverter()->convertType(
        tile::getElementTypeOrSelf(op.getValue().getType()));
    unsigned vector = globalAccessWidth(op.getPtr(), op.getMask(), axisInfo);
    AccessShape shape(element, vector);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (op.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());

    // Only one thread stores each element: copies held by other threads
    // (and a scalar, which every thread holds) are not stored again.
    Value owner = accessOwner(rewriter, loc, op.getPtr().getType(), context);
    std::optional<tilegpu::LinearLayout> layout;
    if (auto type = dyn_cast<RankedTensorType>(op.getPtr().getType()))
      layout = tilegpu::toLinearLayout(type);
    bool plain = !op.getMask() && !owner &&
                 op.getCache() == tile::CacheModifier::none &&
                 op.getEvict() == tile::EvictionPolicy::normal;

    for (unsigned first = 0; first < ptrs.size(); first += vector) {
      if (layout && isRepeatedRegister(*layout, first))
        continue;
      ArrayRef<Value> chunk = ArrayRef<Value>(values).slice(first, vector);
      if (plain) {
        emitPlainStore(rewriter, loc, shape, ptrs[first], chunk);
        continue;
      }
      Value pred = accessPredicate(rewriter, loc, owner,
                                   masks.empty() ? Value() : masks[first]);
      emitPredicatedStore(rewriter, loc, shape, ptrs[first], pred, chunk,
                          "st.global" +
                              cacheSuffix(op.getCache(), op.getEvict(), false));
    }
    rewriter.eraseOp(op);
    return success();
  }

  const LoweringContext &context;
  const AxisInfoAnalysis &axisInfo;
};
} // namespace

void tilec::lowering::populateLoadStoreOpToLLVMPatterns(
    TileTypeConverter &converter, const LoweringContext &context,
    const AxisInfoAnalysis &axisInfo, RewritePatternSet &patterns) {
  patterns.add<LoadOpLowering>(converter, axisInfo);
  patterns.add<StoreOpLowering>(converter, context, axisInfo);
}
