// The tilegpu dialect: tile-dialect ops whose tensors carry a layout (how
// their elements are spread over the threads of a CTA), plus the ops that
// only make sense once layouts exist.
#ifndef TILEC_TILEGPU_DIALECT
#define TILEC_TILEGPU_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::tilec::tilegpu";
  let summary = "Distributed layouts of tile tensors over a CTA";
  let description = [{
    After `tile-to-tilegpu`, every tensor type has an encoding attribute from
    this dialect, and the module carries `tilegpu.num_warps`. The encodings
    say which thread holds which element: the lowering to LLVM turns a tensor
    into the registers one thread holds.
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
}

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked"> {
  let summary = "Elements in contiguous blocks per thread, threads in a grid";
  let description = [{
    Along each dimension d a thread holds `sizePerThread[d]` consecutive
    elements; `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the
    dimension after that. `order` lists the dimensions fastest first: lanes
    and warps are numbered along order[0] first, and a thread's registers run
    along order[0] first. When the tensor is larger than the CTA's tile the
    pattern repeats; when smaller, threads wrap and hold copies.

    `sizePerThread[order[0]]` is the vector width of loads and stores.

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
  let extraClassDeclaration = [{
    unsigned getRank() const { return getOrder().size(); }
    unsigned getNumWarps() const;
  }];
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice"> {
  let summary = "A parent layout with one dimension taken away";
  let description = [{
    The layout of a tensor that, with a size-1 dimension inserted at `dim`,
    has layout `parent`: what `expand_dims` consumes and what a reduction
    along `dim` produces. Threads that differ only in `dim` hold the same
    elements.

    ```mlir
    #tilegpu.slice<{dim = 1, parent = #tilegpu.blocked<{...}>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

#endif // TILEC_TILEGPU_DIALECT
