// tile.dot as mma.sync.aligned.m16n8k{8,16,32} (sm_80+; fp8 sm_89+), through inline
// PTX so that one code path covers every operand type the instruction
// takes. Fragments follow the PTX ISA's tables, which the #tilegpu.mma and
// #tilegpu.dot_op linear layouts encode: an accumulator group is 4
// registers (c0..c3), an A group 4 x kWidth elements, a B group 2 x kWidth,
// kWidth consecutive elements along K packed into each 32-bit register.
#include "compiler/Conversion/TileGPUToLLVM/DotOpToLLVM.h"
#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::lowering;
using tilegpu::LinearLayout;

namespace {
/// The PTX type of an mma.sync operand or accumulator element.
std::string ptxType(Type element, bool tf32) {
  if (element.isF16())
    return "f16";
  if (element.isBF16())
    return "bf16";
  if (element.isF32())
    return tf32 ? "tf32" : "f32";
  if (isa<Float8E4M3FNType>(element))
    return "e4m3";
  if (isa<Float8E5M2Type>(element))
    return "e5m2";
  return "s" + std::to_string(element.getIntOrFloatBitWidth());
}

/// `x` rounded to tf32 (cvt.rna: to nearest, ties away), as its b32 bits.
Value toTF32(OpBuilder &b, Location loc, Value x) {
  return inlineAsm(b, loc, b.getI32Type(), x, "cvt.rna.tf32.f32 $0, $1;", "=r,f");
}

/// The 32-bit words of the operand group at `first` (its 4 or 2 x kWidth
/// elements). For f32 operands: the tf32 high parts, or with `low` the
/// tf32 rounding of what the high part leaves (tf32x3).
SmallVector<Value> operandWords(OpBuilder &b, Location loc,
                                ArrayRef<Value> regs, unsigned first,
                                unsigned count, unsigned kWidth, bool low) {
  SmallVector<Value> words;
  for (unsigned w = 0; w < count / kWidth; ++w) {
    ArrayRef<Value> elements = regs.slice(first + w * kWidth, kWidth);
    if (!elements[0].getType().isF32()) {
      words.push_back(packWord(b, loc, elements));
      continue;
    }
    Value x = elements[0];
    Value high = toTF32(b, loc, x);
    if (low) {
      Value highValue = b.create<LLVM::BitcastOp>(loc, b.getF32Type(), high);
      high = toTF32(b, loc, b.create<LLVM::FSubOp>(loc, x, highValue));
    }
    words.push_back(high);
  }
  return words;
}

/// The accumulator group's c0..c3 as the instruction's D/C operands: four
/// f32 or s32 registers, or two f16x2 words.
SmallVector<Value> accumulatorWords(OpBuilder &b, Location loc,
                                    ArrayRef<Value> c) {
  if (!c[0].getType().isF16())
    return SmallVector<Value>(c.begin(), c.end());
  return {packWord(b, loc, c.take_front(2)), packWord(b, loc, c.drop_front(2))};
}

SmallVector<Value> fromAccumulatorWords(OpBuilder &b, Location loc,
                                        ArrayRef<Value> words, Type element) {
  if (!element.isF16())
    return SmallVector<Value>(words.begin(), words.end());
  SmallVector<Value> c;
  auto vecType = VectorType::get(2, element);
  for (Value w : words) {
    Value vec = b.create<LLVM::BitcastOp>(loc, vecType, w);
    for (int i = 0; i < 2; ++i)
      c.push_back(b.create<LLVM::ExtractElementOp>(loc, vec, i32Constant(b, loc, i)));
  }
  return c;
}

/// One mma.sync: words of A, B and C in, D out (in C's word types).
SmallVector<Value> emitMma(OpBuilder &b, Location loc, StringRef shape,
                           StringRef types, ArrayRef<Value> a, ArrayRef<Value> bw,
                           ArrayRef<Value> c) {
  unsigned n = c.size();
  std::string ptx = "mma.sync.aligned." + shape.str() + ".row.col." + types.str();
  std::string constraints;
  unsigned operand = 0;
  auto list = [&](unsigned count) {
    std::string text = "{";
    for (unsigned i = 0; i < count; ++i)
      text += (i ? ", $" : "$") + std::to_string(operand++);
    return text + "}";
  };
  ptx += " " + list(n);
  ptx += ", " + list(a.size());
  ptx += ", " + list(bw.size());
  ptx += ", " + list(n) + ";";
  bool isFloat = c[0].getType().isF32();
  for (unsigned i = 0; i < n; ++i)
    constraints += std::string(i ? "," : "") + (isFloat ? "=f" : "=r");
  for (size_t i = 0; i < a.size() + bw.size(); ++i)
    constraints += ",r";
  for (unsigned i = 0; i < n; ++i)
    constraints += "," + std::to_string(i); // C is tied to D
  SmallVector<Value> operands(a.begin(), a.end());
  operands.append(bw.begin(), bw.end());
  operands.append(c.begin(), c.end());
  Type wordType = c[0].getType();
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(n, wordType));
  Value d = inlineAsm(b, loc, resultType, operands, ptx, constraints);
  SmallVector<Value> words;
  for (unsigned i = 0; i < n; ++i)
    words.push_back(b.create<LLVM::ExtractValueOp>(loc, d, i));
  return words;
}
} // namespace

Value tilec::lowering::packWord(OpBuilder &b, Location loc, ArrayRef<Value> elements) {
  if (elements.size() == 1)
    return elements[0].getType().isInteger(32)
               ? elements[0]
               : b.create<LLVM::BitcastOp>(loc, b.getI32Type(), elements[0]);
  auto vecType = VectorType::get(int64_t(elements.size()), elements[0].getType());
  Value vec = b.create<LLVM::UndefOp>(loc, vecType);
  for (auto [i, e] : llvm::enumerate(elements))
    vec = b.create<LLVM::InsertElementOp>(loc, vec, e, i32Constant(b, loc, i));
  return b.create<LLVM::BitcastOp>(loc, b.getI32Type(), vec);
}

std::optional<SmallVector<Value>>
tilec::lowering::lowerMmaV2Dot(OpBuilder &b, Location loc, const DotRegisters &dot,
                               unsigned kWidth) {
  unsigned rank = dot.c.getOutDims().size();
  unsigned aGroup = 4 * kWidth, bGroup = 2 * kWidth, cGroup = 4;
  int32_t instrK = 8 * kWidth;
  if (dot.aRegs.size() % aGroup || dot.bRegs.size() % bGroup ||
      dot.cRegs.size() % cGroup || dot.k % instrK)
    return std::nullopt;
  RegisterIndex aIndex(dot.a, aGroup), bIndex(dot.b, bGroup);
  bool isTF32 = dot.aElement.isF32();
  bool split = isTF32 && dot.precision == tile::InputPrecision::tf32x3;
  std::string shape = "m16n8k" + std::to_string(instrK);
  std::string accType = ptxType(dot.accumulatorElement, false);
  std::string types = accType + "." + ptxType(dot.aElement, isTF32) + "." +
                      ptxType(dot.bElement, isTF32) + "." + accType;

  // K outermost: the operand registers of one K step are dead once every
  // accumulator tile has used them, so ptxas needs to keep only one step's
  // operands live (the whole tile's would not fit beside the accumulators
  // of a large block).
  unsigned numGroups = dot.cRegs.size() / cGroup;
  SmallVector<SmallVector<Value>> acc;
  SmallVector<LinearLayout::Image> origin;
  for (unsigned g = 0; g < numGroups; ++g) {
    origin.push_back(dot.c.applyOne(tilegpu::kRegister, g * cGroup));
    acc.push_back(accumulatorWords(
        b, loc, ArrayRef<Value>(dot.cRegs).slice(g * cGroup, cGroup)));
  }
  for (int32_t k = 0; k < dot.k; k += instrK) {
    for (unsigned g = 0; g < numGroups; ++g) {
      LinearLayout::Image aAt(origin[g]), bAt(origin[g]);
      aAt[rank - 1] = k;
      bAt[rank - 2] = k;
      std::optional<unsigned> ra = aIndex.find(aAt), rb = bIndex.find(bAt);
      if (!ra || !rb)
        return std::nullopt;
      auto words = [&](const SmallVector<Value> &regs, unsigned start,
                       unsigned count, bool low) {
        return operandWords(b, loc, regs, start, count, kWidth, low);
      };
      SmallVector<Value> aHigh = words(dot.aRegs, *ra, aGroup, false);
      SmallVector<Value> bHigh = words(dot.bRegs, *rb, bGroup, false);
      if (split) {
        // The small terms first, so that they are not lost against the
        // large one: a_lo b_hi, a_hi b_lo, then a_hi b_hi.
        acc[g] = emitMma(b, loc, shape, types,
                         words(dot.aRegs, *ra, aGroup, true), bHigh, acc[g]);
        acc[g] = emitMma(b, loc, shape, types, aHigh,
                         words(dot.bRegs, *rb, bGroup, true), acc[g]);
      }
      acc[g] = emitMma(b, loc, shape, types, aHigh, bHigh, acc[g]);
    }
  }
  SmallVector<Value> result;
  for (unsigned g = 0; g < numGroups; ++g)
    llvm::append_range(result, fromAccumulatorWords(b, loc, acc[g],
                                                    dot.accumulatorElement));
  return result;
}
