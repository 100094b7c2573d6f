// Layout attributes of the tilegpu dialect.
#ifndef TILEC_TILEGPU_ATTRS
#define TILEC_TILEGPU_ATTRS

include "compiler/Dialect/TileGPU/TileGPUDialect.td"
include "compiler/Dialect/TileGPU/TileGPUInterfaces.td"
include "mlir/IR/TensorEncoding.td"

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TileGPU_DistributedAttr<string name, string attrMnemonic>
    : TileGPU_Attr<name, attrMnemonic, [
        DeclareAttrInterfaceMethods<TileGPU_DistributedEncodingAttrInterface>,
        DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]>;

def TileGPU_BlockedEncodingAttr : TileGPU_DistributedAttr<"BlockedEncoding", "blocked"> {
  let summary = "Elements in contiguous blocks per thread, threads in a grid";
  let description = [{
    Along each dimension d a thread holds `sizePerThread[d]` consecutive
    elements; `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the
    dimension after that. `order` lists the dimensions fastest first: lanes
    and warps are numbered along order[0] first, and a thread's registers run
    along order[0] first. When the tensor is larger than the CTA's tile the
    pattern repeats (more registers); when smaller, threads wrap and hold
    copies.

    As a linear layout: register bits for sizePerThread along order[0],
    order[1], ..., then lane bits and warp bits the same way, then register
    bits for the repetitions; bits that reach past the tensor's shape have
    image zero.

    ```mlir
    #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16],
                      warpsPerCTA = [4, 1], order = [1, 0]}>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order
  );
  // Brackets keep multi-dimensional fields unambiguous.
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_SliceEncodingAttr : TileGPU_DistributedAttr<"SliceEncoding", "slice"> {
  let summary = "A parent layout with one dimension taken away";
  let description = [{
    The layout of a tensor that, with a size-1 dimension inserted at `dim`,
    has layout `parent`: what `expand_dims` consumes and what a reduction
    along `dim` produces. Threads that differ only in `dim` hold the same
    elements. As a linear layout: the parent's for the shape with 1 at
    `dim`, with that output dimension removed and the register bits that
    held only copies dropped.

    ```mlir
    #tilegpu.slice<{dim = 1, parent = #tilegpu.blocked<{...}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def TileGPU_LinearEncodingAttr : TileGPU_DistributedAttr<"LinearEncoding", "linear"> {
  let summary = "Any distributed layout, written as its linear layout";
  let description = [{
    The coordinates of each input bit, one value per tensor dimension:
    `register[i]` is the element register bit i reaches, `lane` has five
    entries (the 32 lanes of a warp) and `warp` log2(warps); the element of
    (register, lane, warp) is the XOR of the images of its set bits. An
    all-zero image is a free bit (its two values hold copies).

    It describes tensors of one shape: every coordinate lies inside the
    tensor, every element has a holder, and the non-zero images are
    linearly independent, so that each element has one owner. `tile.trans`
    and `tile.reshape` produce it when no `#tilegpu.blocked` describes their
    result (a reshaped blocked layout usually is not one), for instance
    the transpose or reshape of an `#tilegpu.mma` accumulator.

    ```mlir
    #tilegpu.linear<{register = [[0, 1], [8, 0]],
                     lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []}>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int32_t">:$registerBases,
                        ArrayRefParameter<"int32_t">:$laneBases,
                        ArrayRefParameter<"int32_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The encoding of a distributed linear layout (inputs register, lane,
    /// warp; outputs the tensor's dimensions).
    static LinearEncodingAttr get(::mlir::MLIRContext *ctx,
                                  const ::tilec::tilegpu::LinearLayout &layout);
    /// The images of input dimension `in` ("register", "lane", "warp").
    ::llvm::SmallVector<::tilec::tilegpu::LinearLayout::Image>
    getBases(::llvm::StringRef in) const;
  }];
}

def TileGPU_MmaEncodingAttr : TileGPU_DistributedAttr<"MmaEncoding", "mma"> {
  let summary = "The accumulator layout of a tensor-core instruction";
  let description = [{
    `version = 2` is `mma.sync` (sm_80+): each warp computes tiles of
    `instrShape` = 16 x 8 (with a leading 1 for a batch dimension); lane l
    holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1 of
    a tile. `warpsPerCTA` warps tile the tensor (lowest warp bits along N,
    then M, then the batch), and the pattern repeats over a larger tensor
    in registers (along N first).

    As a linear layout of one tile: register bits (0, 1), (8, 0); lane
    bits (0, 2), (0, 4), (1, 0), (2, 0), (4, 0).

    `version = 3` is Hopper's `wgmma` (sm_90a): `instrShape` = [64, N] is
    one instruction's accumulator (N a multiple of 8 up to 256), computed
    by a warpgroup of 4 warps, each warp 16 rows of it. Its registers are
    the version-2 tile repeated along N, so the linear layout is the same
    construction with `warpsPerCTA` = [4k, 1]: every warp bit along M,
    warpgroups stacked 64 rows apart, the pattern repeating along N first.

    ```mlir
    #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_DotOperandEncodingAttr
    : TileGPU_DistributedAttr<"DotOperandEncoding", "dot_op"> {
  let summary = "The layout of operand A (opIdx 0) or B (opIdx 1) of a dot";
  let description = [{
    The registers a `tile.dot` whose result has layout `parent` reads its
    operand from. With an `#tilegpu.mma` parent these are the instruction's
    fragments: `kWidth` consecutive elements along K share one 32-bit
    register (2 for f16 and bf16, 1 for tf32, 4 for i8), and warps that
    differ only along the dimension the operand lacks (N for A, M for B)
    hold copies. A wgmma accumulator (mma version 3) parent has only
    operand A with kWidth 2, the registers `tilegpu.warp_group_dot` reads
    A from: each warp's 16 rows of a warpgroup's 64 as mma.sync's m16k16
    fragment. With a `#tilegpu.blocked` parent (the fused multiply-add
    dot) each thread holds, for every row (A) or column (B) of its
    accumulator elements, the whole of K.

    ```mlir
    #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{...}>, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def TileGPU_SwizzledSharedEncodingAttr : TileGPU_Attr<"SwizzledSharedEncoding",
    "swizzled_shared", [DeclareAttrInterfaceMethods<TileGPU_SharedEncodingAttrInterface>]> {
  let summary = "Row-major shared memory with an XOR swizzle of vectors";
  let description = [{
    The buffer is stored with dimension order[0] fastest. Along it, elements
    come in vectors of `vec`; the vector index of each row (a line along
    order[0]) is XORed with the row's phase, `(row / perPhase) % maxPhase`,
    where row counts lines along order[1]. With maxPhase = 1 there is no
    swizzle. As a linear layout: offset bits map to coordinates in order,
    and the row bits of the phase also reach the vector bits of order[0].

    ```mlir
    #tilegpu.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
            `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_NVMMASharedEncodingAttr : TileGPU_Attr<"NVMMASharedEncoding",
    "nvmma_shared", [DeclareAttrInterfaceMethods<TileGPU_SharedEncodingAttrInterface>]> {
  let summary = "The swizzled shared layout Hopper's wgmma reads through descriptors";
  let description = [{
    A 2-D tile as `wgmma` and TMA address it. Dimension `order[0]` (the
    contiguous one) is cut into columns of `swizzleBytes` bytes; each column
    is stored whole, one row (a line along `order[1]`) of `swizzleBytes`
    after another, and the columns follow each other. Inside a column the
    16-byte chunk index of row r is XORed with `(r / (128 / swizzleBytes)) %
    (swizzleBytes / 16)`: the 128-, 64- and 32-byte swizzles of the PTX
    ISA, whose pattern repeats every 8 rows (1024, 512 or 256 bytes).
    `elementBits` is the element's width, which fixes how many elements a
    chunk and a column hold. The hardware's swizzle is a function of the
    address, so a buffer must start on a multiple of its pattern (8 rows of
    `swizzleBytes`): tilegpu-allocate-shared places these buffers on
    multiples of 1024 bytes, and a ring's buffers, whole numbers of
    patterns long, stay on the pattern.

    ```mlir
    #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzleBytes, "unsigned":$elementBits,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `swizzleBytes` `=` $swizzleBytes `,` `elementBits` `=` $elementBits `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements in one row of a swizzle column.
    unsigned getColumnElements() const {
      return getSwizzleBytes() * 8 / getElementBits();
    }
    /// Whether a buffer of `shape` can have this layout: whole columns,
    /// whole 8-row swizzle patterns, sizes powers of two.
    ::mlir::LogicalResult verifyShape(
        ::llvm::ArrayRef<int64_t> shape,
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError) const;
  }];
}

def TileGPU_SharedLinearEncodingAttr : TileGPU_Attr<"SharedLinearEncoding",
    "shared_linear", [DeclareAttrInterfaceMethods<TileGPU_SharedEncodingAttrInterface>]> {
  let summary = "Shared memory arranged by an explicit linear layout";
  let description = [{
    Offset bit i of an element (counted in elements) holds coordinates
    `offset[i]`, one value per tensor dimension; the coordinates of an offset
    are the XOR of those of its set bits. Any swizzle that XORs bits of one
    coordinate into another is one such layout; `tilegpu-decompose-
    conversions` computes one for each conversion so that neither side has
    bank conflicts.

    ```mlir
    #tilegpu.shared_linear<{rank = 2, offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}>
    ```
  }];
  let parameters = (ins "unsigned":$rank, ArrayRefParameter<"int32_t">:$flatBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The coordinates of offset bit `i`.
    ::llvm::ArrayRef<int32_t> getBasis(unsigned i) const {
      return getFlatBases().slice(i * getRank(), getRank());
    }
    unsigned getNumBases() const {
      return getRank() ? getFlatBases().size() / getRank() : 0;
    }
    /// The encoding of a shared linear layout (input "offset", outputs
    /// dim0, dim1, ...).
    static SharedLinearEncodingAttr get(::mlir::MLIRContext *ctx,
                                        const ::tilec::tilegpu::LinearLayout &layout);
  }];
}

#endif // TILEC_TILEGPU_ATTRS
