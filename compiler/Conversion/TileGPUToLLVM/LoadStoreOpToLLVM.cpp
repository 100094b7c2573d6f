// tile.load / tile.store → global memory accesses, as wide as the layout,
// the axis info and the mask allow (128 bits at most).
//
// Unmasked accesses with default cache behaviour are plain LLVM vector loads
// and stores carrying their alignment, which NVPTX turns into
// ld.global.v4.b32 and friends. Masked accesses, accesses with cache hints,
// and stores from threads that hold copies become predicated PTX
// (`@p ld.global.v4.b32 ...`) through inline assembly, so the predicate
// guards the instruction itself rather than a branch around it.
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;

namespace {

/// How one thread's registers of an access are split into instructions.
struct AccessShape {
  unsigned vector = 1;   ///< elements per instruction
  Type element;          ///< register type of one element (i1 for masks)
  Type memoryElement;    ///< element type in memory (i8 for i1)
  unsigned elementBits;  ///< bits of memoryElement
  unsigned wordBits;     ///< bits of each PTX operand
  unsigned numWords;     ///< operands per instruction

  AccessShape(Type element, unsigned vector) : vector(vector), element(element) {
    memoryElement = element.isInteger(1)
                        ? IntegerType::get(element.getContext(), 8)
                        : element;
    elementBits = memoryElement.getIntOrFloatBitWidth();
    unsigned bits = vector * elementBits;
    wordBits = elementBits == 64 ? 64 : std::min(32u, bits);
    numWords = bits / wordBits;
  }
  unsigned bytes() const { return vector * elementBits / 8; }
  Type wordType() const {
    // 8-bit accesses travel in 16-bit registers: PTX has no 8-bit ones.
    return IntegerType::get(element.getContext(), std::max(16u, wordBits));
  }
  const char *constraint() const {
    return wordBits == 64 ? "l" : wordBits == 32 ? "r" : "h";
  }
  std::string ptxSuffix() const {
    std::string s = numWords > 1 ? ".v" + std::to_string(numWords) : "";
    return s + ".b" + std::to_string(wordBits);
  }
};

unsigned accessWidth(Value ptr, Value mask, const AxisInfoAnalysis &axisInfo) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  tilegpu::RegisterMap map(type);
  unsigned fast = map.order().front();
  int64_t width = std::min<int64_t>(map.contiguousRegisters(),
                                    axisInfo.getVectorWidth(ptr, fast));
  if (mask)
    width = std::min(width, axisInfo.getConstancy(mask, fast));
  return std::max<int64_t>(1, width);
}

/// Register values of one access → the words PTX reads, and back.
SmallVector<Value> toWords(OpBuilder &b, Location loc, const AccessShape &s,
                           ArrayRef<Value> values) {
  SmallVector<Value> memoryValues;
  for (Value v : values)
    memoryValues.push_back(v.getType() == s.memoryElement
                               ? v
                               : b.create<LLVM::ZExtOp>(loc, s.memoryElement, v)
                                     .getResult());
  Type wordInt = b.getIntegerType(s.wordBits);
  SmallVector<Value> words;
  if (s.vector * s.elementBits == s.wordBits * s.numWords && s.vector == s.numWords) {
    for (Value v : memoryValues)
      words.push_back(b.create<LLVM::BitcastOp>(loc, wordInt, v));
  } else {
    auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
    Value vec = b.create<LLVM::UndefOp>(loc, vecType);
    for (auto [i, v] : llvm::enumerate(memoryValues))
      vec = b.create<LLVM::InsertElementOp>(loc, vec, v, i32Constant(b, loc, i));
    auto wordsType = VectorType::get({int64_t(s.numWords)}, wordInt);
    Value asWords = b.create<LLVM::BitcastOp>(loc, wordsType, vec);
    for (unsigned i = 0; i < s.numWords; ++i)
      words.push_back(b.create<LLVM::ExtractElementOp>(loc, asWords,
                                                       i32Constant(b, loc, i)));
  }
  if (s.wordType() != wordInt)
    for (Value &w : words)
      w = b.create<LLVM::ZExtOp>(loc, s.wordType(), w);
  return words;
}

SmallVector<Value> fromWords(OpBuilder &b, Location loc, const AccessShape &s,
                             SmallVector<Value> words) {
  Type wordInt = b.getIntegerType(s.wordBits);
  if (s.wordType() != wordInt)
    for (Value &w : words)
      w = b.create<LLVM::TruncOp>(loc, wordInt, w);
  SmallVector<Value> values;
  if (s.vector == s.numWords) {
    for (Value w : words)
      values.push_back(b.create<LLVM::BitcastOp>(loc, s.memoryElement, w));
  } else {
    auto wordsType = VectorType::get({int64_t(s.numWords)}, wordInt);
    Value vec = b.create<LLVM::UndefOp>(loc, wordsType);
    for (auto [i, w] : llvm::enumerate(words))
      vec = b.create<LLVM::InsertElementOp>(loc, vec, w, i32Constant(b, loc, i));
    auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
    Value elems = b.create<LLVM::BitcastOp>(loc, vecType, vec);
    for (unsigned i = 0; i < s.vector; ++i)
      values.push_back(b.create<LLVM::ExtractElementOp>(loc, elems,
                                                        i32Constant(b, loc, i)));
  }
  if (s.element != s.memoryElement)
    for (Value &v : values)
      v = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, v,
                                 b.create<LLVM::ConstantOp>(
                                     loc, s.memoryElement,
                                     b.getIntegerAttr(s.memoryElement, 0)));
  return values;
}

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
    Type element = tile::getElementTypeOrSelf(op.getType());
    unsigned vector = accessWidth(op.getPtr(), op.getMask(), axisInfo);
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
        chunk = plainLoad(rewriter, loc, shape, ptrs[first]);
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

  SmallVector<Value> plainLoad(OpBuilder &b, Location loc, const AccessShape &s,
                               Value ptr) const {
    if (s.vector == 1) {
      Value v = b.create<LLVM::LoadOp>(loc, s.memoryElement, ptr,
                                       s.elementBits / 8);
      return fromWordsOfElements(b, loc, s, {v});
    }
    auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
    Value vec = b.create<LLVM::LoadOp>(loc, vecType, ptr, s.bytes());
    SmallVector<Value> values;
    for (unsigned i = 0; i < s.vector; ++i)
      values.push_back(
          b.create<LLVM::ExtractElementOp>(loc, vec, i32Constant(b, loc, i)));
    return fromWordsOfElements(b, loc, s, values);
  }

  /// Memory elements → register elements (i8 → i1 for masks).
  static SmallVector<Value> fromWordsOfElements(OpBuilder &b, Location loc,
                                                const AccessShape &s,
                                                SmallVector<Value> values) {
    if (s.element == s.memoryElement)
      return values;
    Value zero = b.create<LLVM::ConstantOp>(loc, s.memoryElement,
                                            b.getIntegerAttr(s.memoryElement, 0));
    for (Value &v : values)
      v = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, v, zero);
    return values;
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
  StoreOpLowering(TileTypeConverter &converter, const TargetInfo &target,
                  const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, &converter.getContext()), target(target),
        axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = tile::getElementTypeOrSelf(op.getValue().getType());
    unsigned vector = accessWidth(op.getPtr(), op.getMask(), axisInfo);
    AccessShape shape(element, vector);
    SmallVector<Value> ptrs = unpack(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> values = unpack(rewriter, loc, adaptor.getValue());
    SmallVector<Value> masks;
    if (op.getMask())
      masks = unpack(rewriter, loc, adaptor.getMask());

    // Only one thread stores each element: copies held by other threads
    // (and a scalar, which every thread holds) are not stored again.
    Value owner;
    std::optional<tilegpu::RegisterMap> map;
    if (auto type = dyn_cast<RankedTensorType>(op.getPtr().getType())) {
      map.emplace(type);
      owner = ownsElements(rewriter, loc, *map, target);
    } else {
      owner = rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                            threadId(rewriter, loc, target),
                                            i32Constant(rewriter, loc, 0));
    }
    bool plain = !op.getMask() && !owner &&
                 op.getCache() == tile::CacheModifier::none &&
                 op.getEvict() == tile::EvictionPolicy::normal;

    for (unsigned first = 0; first < ptrs.size(); first += vector) {
      if (map && isRepeatedRegister(*map, first))
        continue;
      ArrayRef<Value> chunk = ArrayRef<Value>(values).slice(first, vector);
      if (plain) {
        plainStore(rewriter, loc, shape, ptrs[first], chunk);
        continue;
      }
      Value pred = owner;
      if (!masks.empty())
        pred = pred ? rewriter.create<LLVM::AndOp>(loc, pred, masks[first])
                          .getResult()
                    : masks[first];
      if (!pred)
        pred = rewriter.create<LLVM::ConstantOp>(loc, rewriter.getI1Type(),
                                                 rewriter.getBoolAttr(true));
      predicatedStore(rewriter, loc, shape, op, ptrs[first], pred, chunk);
    }
    rewriter.eraseOp(op);
    return success();
  }

  void plainStore(OpBuilder &b, Location loc, const AccessShape &s, Value ptr,
                  ArrayRef<Value> values) const {
    auto toMemory = [&](Value v) -> Value {
      return v.getType() == s.memoryElement
                 ? v
                 : b.create<LLVM::ZExtOp>(loc, s.memoryElement, v).getResult();
    };
    if (s.vector == 1) {
      b.create<LLVM::StoreOp>(loc, toMemory(values.front()), ptr,
                              s.elementBits / 8);
      return;
    }
    auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
    Value vec = b.create<LLVM::UndefOp>(loc, vecType);
    for (auto [i, v] : llvm::enumerate(values))
      vec = b.create<LLVM::InsertElementOp>(loc, vec, toMemory(v),
                                            i32Constant(b, loc, i));
    b.create<LLVM::StoreOp>(loc, vec, ptr, s.bytes());
  }

  void predicatedStore(OpBuilder &b, Location loc, const AccessShape &s,
                       tile::StoreOp op, Value ptr, Value pred,
                       ArrayRef<Value> values) const {
    SmallVector<Value> words = toWords(b, loc, s, values);
    std::string ptx;
    llvm::raw_string_ostream os(ptx);
    os << "@$0 st.global" << cacheSuffix(op.getCache(), op.getEvict(), false)
       << s.ptxSuffix() << " [ $1 + 0 ], ";
    if (words.size() > 1)
      os << "{";
    for (unsigned i = 0; i < words.size(); ++i)
      os << (i ? ", " : "") << "$" << i + 2;
    if (words.size() > 1)
      os << "}";
    os << ";";
    std::string constraints = "b,l";
    SmallVector<Value> operands{pred, ptr};
    for (Value w : words) {
      constraints += std::string(",") + s.constraint();
      operands.push_back(w);
    }
    b.create<LLVM::InlineAsmOp>(loc, TypeRange(), operands, ptx, constraints,
                                /*has_side_effects=*/true,
                                /*is_align_stack=*/false,
                                LLVM::tailcallkind::TailCallKind::None,
                                LLVM::AsmDialectAttr(), ArrayAttr());
  }

  const TargetInfo &target;
  const AxisInfoAnalysis &axisInfo;
};
} // namespace

void tilec::lowering::populateLoadStoreOpToLLVMPatterns(
    TileTypeConverter &converter, const TargetInfo &target,
    const AxisInfoAnalysis &axisInfo, RewritePatternSet &patterns) {
  patterns.add<LoadOpLowering>(converter, axisInfo);
  patterns.add<StoreOpLowering>(converter, target, axisInfo);
}
