// One thread's access of up to 16 bytes of memory as a single instruction:
// plain LLVM vector loads and stores where nothing needs predicating, and
// predicated PTX (`@p st.global.v4.b32 ...`) through inline assembly where
// a mask or an owner predicate guards the instruction itself.
#pragma once

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace tilec::lowering {

/// How one access of `vector` elements splits into the words PTX moves.
struct AccessShape {
  unsigned vector = 1;   ///< elements per instruction
  mlir::Type element;    ///< register type of one element (i1 for masks)
  mlir::Type memoryElement; ///< element type in memory (i8 for i1)
  unsigned elementBits;  ///< bits of memoryElement
  unsigned wordBits;     ///< bits of each PTX operand
  unsigned numWords;     ///< operands per instruction

  AccessShape(mlir::Type element, unsigned vector);
  unsigned bytes() const { return vector * elementBits / 8; }
  /// 8-bit accesses travel in 16-bit registers: PTX has no 8-bit ones.
  mlir::Type wordType() const;
  /// The inline-assembly constraint of one word ("h", "r" or "l").
  const char *constraint() const;
  /// ".v4.b32" and friends.
  std::string ptxSuffix() const;
};

/// Register values of one access → the words PTX reads, and back.
llvm::SmallVector<mlir::Value> toWords(mlir::OpBuilder &b, mlir::Location loc,
                                       const AccessShape &s,
                                       llvm::ArrayRef<mlir::Value> values);
llvm::SmallVector<mlir::Value> fromWords(mlir::OpBuilder &b, mlir::Location loc,
                                         const AccessShape &s,
                                         llvm::SmallVector<mlir::Value> words);

/// An aligned LLVM load or store of one access (pointer in any address
/// space).
llvm::SmallVector<mlir::Value> emitPlainLoad(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             const AccessShape &s,
                                             mlir::Value ptr);
void emitPlainStore(mlir::OpBuilder &b, mlir::Location loc,
                    const AccessShape &s, mlir::Value ptr,
                    llvm::ArrayRef<mlir::Value> values);

/// `@pred <instruction><suffix> [ptr], {words}` where instruction is
/// "st.global.cs" or "st.shared" and the like.
void emitPredicatedStore(mlir::OpBuilder &b, mlir::Location loc,
                         const AccessShape &s, mlir::Value ptr, mlir::Value pred,
                         llvm::ArrayRef<mlir::Value> values,
                         llvm::StringRef instruction);

} // namespace tilec::lowering
