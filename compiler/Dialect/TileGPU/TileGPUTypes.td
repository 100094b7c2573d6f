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

    A shape with one dimension more than its encoding's rank is a ring of
    buffers (multi-buffering): the leading dimension counts buffers of the
    remaining shape, each arranged by the encoding, one after the other.
    Only `tilegpu.memdesc_index` reads a ring; it names one of its buffers.

    ```mlir
    !tilegpu.memdesc<64x64xf16, #tilegpu.swizzled_shared<{...}>, mutable>
    !tilegpu.memdesc<3x64x64xf16, #shared, mutable>   // three 64x64 buffers
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
    /// True for a ring of buffers (a leading buffer dimension the
    /// encoding does not have).
    bool isRing() const;
    /// The shape of one buffer of a ring (the whole shape otherwise).
    ::llvm::ArrayRef<int64_t> getBufferShape() const {
      return isRing() ? getShape().drop_front() : getShape();
    }
    /// Bytes the buffer (every buffer of a ring) takes in shared memory.
    int64_t getSizeInBytes() const {
      return getNumElements() * ::tilec::tile::getElementBytes(getElementType());
    }
  }];
}

#endif // TILEC_TILEGPU_TYPES
