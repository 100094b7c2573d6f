// Every pass of tilec, in pipeline order. One pass per file, named as the
// pass (tile-inline ↔ TileInline.cpp); each has a lit folder of the same
// name under tests/lit/.
#ifndef TILEC_PASSES
#define TILEC_PASSES

include "mlir/Pass/PassBase.td"

def TileInline : Pass<"tile-inline", "mlir::ModuleOp"> {
  let summary = "Inline every call into the kernels and drop the helpers";
  let description = [{
    The front end emits each `@jit` helper as a private `func.func`,
    specialised on its argument types, and calls it with `func.call`. This
    pass splices every callee into its callers (innermost first) and erases
    the private functions, leaving one function per kernel. Recursion is
    reported as an error at the call.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TileAxisInfo : Pass<"tile-axis-info", "mlir::ModuleOp"> {
  let summary = "Report the axis-info analysis of every integer and pointer value";
  let description = [{
    Runs the axis-info analysis (contiguity, divisibility and constancy of
    every integer and pointer value, per dimension, seeded from the
    `tile.divisibility` / `tile.equal_to_1` argument attributes of the
    specialisation) and emits it as a remark on each op. The analysis itself
    lives in compiler/Analysis/AxisInfo.h and is used by tile-to-tilegpu and
    the lowering; this pass makes it visible to lit tests and users.
  }];
}

def TileToTileGPU : Pass<"tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Give every tensor a distributed layout, coalesced for memory";
  let description = [{
    Assigns a `#tilegpu.blocked` (or `#tilegpu.slice`) encoding to every
    tensor. Loads and stores anchor the layout: their pointer tensors get the
    blocked layout whose fastest dimension is the most contiguous one in
    memory and whose `sizePerThread` there is the widest access the axis info
    allows (16 bytes at most). Values tied through elementwise ops, control
    flow, broadcasts and loads/stores share a layout; `expand_dims` operands
    take the slice of their result's layout, cheap index chains are
    rematerialised per use, and `tilegpu.convert_layout` is inserted only
    where two anchors disagree.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "Warps per CTA">,
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUToLLVM : Pass<"tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tilegpu IR to the LLVM and NVVM dialects";
  let description = [{
    Each distributed tensor becomes an LLVM struct of the registers one
    thread holds (see compiler/Dialect/TileGPU/Layouts.h). Loads and stores
    become vector accesses as wide as contiguity, alignment and the mask's
    constancy allow, predicated when masked; `convert_layout` goes through
    shared memory; kernels become `llvm.func`s with `nvvm.kernel` and
    `nvvm.reqntid`.
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "unsigned", "90",
           "Target SM version (80, 89, 90)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // TILEC_PASSES
