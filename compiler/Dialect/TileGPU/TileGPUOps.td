#ifndef TILEC_TILEGPU_OPS
#define TILEC_TILEGPU_OPS

include "compiler/Dialect/TileGPU/TileGPUDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Move a tensor's elements to another layout";
  let description = [{
    The same logical tensor, redistributed over the threads. Lowered through
    shared memory: every thread writes what it holds, a barrier, then every
    thread reads what it needs.

    ```mlir
    %b = tilegpu.convert_layout %a : tensor<64xi32, #l0> -> tensor<64xi32, #l1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyType]>:$src);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

#endif // TILEC_TILEGPU_OPS
