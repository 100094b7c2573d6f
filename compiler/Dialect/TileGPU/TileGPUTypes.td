#ifndef TILEC_TILEGPU_TYPES
#define TILEC_TILEGPU_TYPES

include "compiler/Dialect/TileGPU/TileGPUDialect.td"

def TileGPU_MemDescType : TypeDef<TileGPU_Dialect, "MemDesc"> {
  let mnemonic = "memdesc";
  let summary = "A tensor-shaped buffer in shared memory";
  let description = [{
    A buffer of `shape` elements of `elementType` in the CTA's shared memory,
    arranged by a shared encoding (`#tilegpu.swizzled_shared`,
    `#tilegpu.shared_linear`). Where it lives is decided by
    `tilegpu-allocate-shared`. A buffer allocated with initial contents is
    immutable; `mutable` ones may be written with `local_store`.

    ```mlir
    !tilegpu.memdesc<64x64xf16, #tilegpu.swizzled_shared<{...}>, mutable>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding,
                        "bool":$mutableMemory);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const {
      int64_t n = 1;
      for (int64_t s : getShape())
        n *= s;
      return n;
    }
    /// Bytes the buffer takes in shared memory.
    int64_t getSizeInBytes() const {
      return getNumElements() * ::tilec::tile::getElementBytes(getElementType());
    }
  }];
}

#endif // TILEC_TILEGPU_TYPES
