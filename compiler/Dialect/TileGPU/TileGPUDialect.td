// The tilegpu dialect: tile-dialect ops whose tensors carry a layout (how
// their elements are spread over the threads of a CTA), shared memory, and
// the ops that only make sense once layouts exist.
#ifndef TILEC_TILEGPU_DIALECT
#define TILEC_TILEGPU_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::tilec::tilegpu";
  let summary = "Distributed and shared-memory layouts of tile tensors";
  let description = [{
    After `tile-to-tilegpu`, every tensor type has an encoding attribute from
    this dialect, and the module carries `tilegpu.num_warps` and
    `tilegpu.target`. Every encoding converts to one linear layout
    (compiler/Dialect/TileGPU/LinearLayout.h): a distributed encoding maps
    the bits of (register, lane, warp) to the tensor's coordinates, a shared
    encoding maps the bits of an element's offset in a buffer to them. The
    lowering asks only the linear form.
  }];
  let dependentDialects = ["::tilec::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

#endif // TILEC_TILEGPU_DIALECT
