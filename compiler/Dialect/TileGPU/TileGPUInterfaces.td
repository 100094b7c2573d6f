#ifndef TILEC_TILEGPU_INTERFACES
#define TILEC_TILEGPU_INTERFACES

include "mlir/IR/OpBase.td"

def TileGPU_DistributedEncodingAttrInterface
    : AttrInterface<"DistributedEncodingAttrInterface"> {
  let cppNamespace = "::tilec::tilegpu";
  let description = [{
    A tensor encoding that spreads the elements over the registers of the
    threads of a CTA. `toLinearLayout(shape)` gives the map from the bits of
    (register, lane, warp) to the coordinates of a tensor of that shape;
    every lowering works from it.
  }];
  let methods = [
    InterfaceMethod<"The linear layout of a tensor of this shape.",
                    "::tilec::tilegpu::LinearLayout", "toLinearLayout",
                    (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the tensors this encoding describes.",
                    "unsigned", "getRank">,
    InterfaceMethod<"Warps the encoding spreads a tensor over.",
                    "unsigned", "getNumWarps">,
  ];
}

def TileGPU_SharedEncodingAttrInterface
    : AttrInterface<"SharedEncodingAttrInterface"> {
  let cppNamespace = "::tilec::tilegpu";
  let description = [{
    The arrangement of a tensor in a shared-memory buffer.
    `toLinearLayout(shape)` maps the bits of an element's offset in the
    buffer (in elements) to its coordinates.
  }];
  let methods = [
    InterfaceMethod<"The linear layout of a buffer of this shape.",
                    "::tilec::tilegpu::LinearLayout", "toLinearLayout",
                    (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the buffers this encoding describes.",
                    "unsigned", "getRank">,
  ];
}

#endif // TILEC_TILEGPU_INTERFACES
