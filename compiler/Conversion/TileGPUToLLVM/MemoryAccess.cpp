#include "compiler/Conversion/TileGPUToLLVM/MemoryAccess.h"

#include "compiler/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace tilec::lowering;

AccessShape::AccessShape(Type element, unsigned vector)
    : vector(vector), element(element) {
  memoryElement = memoryElementType(element);
  elementBits = isa<LLVM::LLVMPointerType>(memoryElement)
                    ? 64
                    : memoryElement.getIntOrFloatBitWidth();
  unsigned bits = vector * elementBits;
  wordBits = elementBits == 64 ? 64 : std::min(32u, bits);
  numWords = bits / wordBits;
}

Type AccessShape::wordType() const {
  return IntegerType::get(element.getContext(), std::max(16u, wordBits));
}

const char *AccessShape::constraint() const {
  return wordBits == 64 ? "l" : wordBits == 32 ? "r" : "h";
}

std::string AccessShape::ptxSuffix() const {
  std::string s = numWords > 1 ? ".v" + std::to_string(numWords) : "";
  return s + ".b" + std::to_string(wordBits);
}

namespace {
Value toMemory(OpBuilder &b, Location loc, const AccessShape &s, Value v) {
  return v.getType() == s.memoryElement
             ? v
             : b.create<LLVM::ZExtOp>(loc, s.memoryElement, v).getResult();
}

/// Memory elements → register elements (i8 → i1 for masks).
SmallVector<Value> toRegisters(OpBuilder &b, Location loc, const AccessShape &s,
                               SmallVector<Value> values) {
  if (s.element == s.memoryElement)
    return values;
  Value zero = b.create<LLVM::ConstantOp>(loc, s.memoryElement,
                                          b.getIntegerAttr(s.memoryElement, 0));
  for (Value &v : values)
    v = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, v, zero);
  return values;
}

Value asWordInt(OpBuilder &b, Location loc, Value v, Type wordInt) {
  if (isa<LLVM::LLVMPointerType>(v.getType()))
    return b.create<LLVM::PtrToIntOp>(loc, wordInt, v);
  return b.create<LLVM::BitcastOp>(loc, wordInt, v);
}

Value fromWordInt(OpBuilder &b, Location loc, Value w, Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return b.create<LLVM::IntToPtrOp>(loc, type, w);
  return b.create<LLVM::BitcastOp>(loc, type, w);
}
} // namespace

SmallVector<Value> tilec::lowering::toWords(OpBuilder &b, Location loc,
                                            const AccessShape &s,
                                            ArrayRef<Value> values) {
  SmallVector<Value> memoryValues;
  for (Value v : values)
    memoryValues.push_back(toMemory(b, loc, s, v));
  Type wordInt = b.getIntegerType(s.wordBits);
  SmallVector<Value> words;
  if (s.vector == s.numWords) {
    for (Value v : memoryValues)
      words.push_back(asWordInt(b, loc, v, wordInt));
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

SmallVector<Value> tilec::lowering::fromWords(OpBuilder &b, Location loc,
                                              const AccessShape &s,
                                              SmallVector<Value> words) {
  Type wordInt = b.getIntegerType(s.wordBits);
  if (s.wordType() != wordInt)
    for (Value &w : words)
      w = b.create<LLVM::TruncOp>(loc, wordInt, w);
  SmallVector<Value> values;
  if (s.vector == s.numWords) {
    for (Value w : words)
      values.push_back(fromWordInt(b, loc, w, s.memoryElement));
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
  return toRegisters(b, loc, s, values);
}

SmallVector<Value> tilec::lowering::emitPlainLoad(OpBuilder &b, Location loc,
                                                  const AccessShape &s,
                                                  Value ptr) {
  if (s.vector == 1) {
    Value v = b.create<LLVM::LoadOp>(loc, s.memoryElement, ptr, s.elementBits / 8);
    return toRegisters(b, loc, s, {v});
  }
  auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
  Value vec = b.create<LLVM::LoadOp>(loc, vecType, ptr, s.bytes());
  SmallVector<Value> values;
  for (unsigned i = 0; i < s.vector; ++i)
    values.push_back(
        b.create<LLVM::ExtractElementOp>(loc, vec, i32Constant(b, loc, i)));
  return toRegisters(b, loc, s, values);
}

void tilec::lowering::emitPlainStore(OpBuilder &b, Location loc,
                                     const AccessShape &s, Value ptr,
                                     ArrayRef<Value> values) {
  if (s.vector == 1) {
    b.create<LLVM::StoreOp>(loc, toMemory(b, loc, s, values.front()), ptr,
                            s.elementBits / 8);
    return;
  }
  auto vecType = VectorType::get({int64_t(s.vector)}, s.memoryElement);
  Value vec = b.create<LLVM::UndefOp>(loc, vecType);
  for (auto [i, v] : llvm::enumerate(values))
    vec = b.create<LLVM::InsertElementOp>(loc, vec, toMemory(b, loc, s, v),
                                          i32Constant(b, loc, i));
  b.create<LLVM::StoreOp>(loc, vec, ptr, s.bytes());
}

void tilec::lowering::emitPredicatedStore(OpBuilder &b, Location loc,
                                          const AccessShape &s, Value ptr,
                                          Value pred, ArrayRef<Value> values,
                                          StringRef instruction) {
  SmallVector<Value> words = toWords(b, loc, s, values);
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "@$0 " << instruction << s.ptxSuffix() << " [ $1 + 0 ], ";
  if (words.size() > 1)
    os << "{";
  for (unsigned i = 0; i < words.size(); ++i)
    os << (i ? ", " : "") << "$" << i + 2;
  if (words.size() > 1)
    os << "}";
  os << ";";
  // Shared addresses are 32-bit registers in PTX; global ones 64-bit.
  bool shared = cast<LLVM::LLVMPointerType>(ptr.getType()).getAddressSpace() ==
                kSharedAddressSpace;
  std::string constraints = shared ? "b,r" : "b,l";
  SmallVector<Value> operands{pred, ptr};
  if (shared)
    operands[1] = b.create<LLVM::PtrToIntOp>(loc, b.getI32Type(), ptr);
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
