// Operations of the tile dialect that debug a kernel: assertions, prints,
// the addresses the bounds checks measure, a barrier. Included by
// TileOps.td.
#ifndef TILEC_TILE_DEBUG_OPS
#define TILEC_TILE_DEBUG_OPS

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

// The debugging ops write to the program's output, not to memory (their
// own resource): the write keeps them alive although nothing uses them and
// in order with each other, and lets loads move past them (a loop that
// prints is still software-pipelined). tile.debug_barrier is a barrier of
// memory, and orders with every access.
def Tile_DebugOutput : Resource<"::tilec::tile::DebugOutput">;

def Tile_AssertOp : Tile_Op<"assert", [Tile_SameOperandsAndResultEncoding,
    MemoryEffects<[MemWrite<Tile_DebugOutput>]>]> {
  let summary = "Stop the kernel when an element of a condition is false";
  let description = [{
    `tl.device_assert(cond, msg)` and a runtime `assert` in a kernel compiled
    with debug=True; the bounds checks of a debug compile. A program with a
    false element prints one line for it, `pid (x, y, z) idx (i, j):
    <message>: <details>`, where `details` interleave with `values` (the
    values at that element: details[0] values[0] details[1] ...), then
    stops with the CUDA driver's device-assertion error, which reports
    `message` with the op's file and line. The interpreter raises an error
    with the same text instead. `values` have the condition's shape;
    `valuesSigned` says how to print each integer one.

    ```mlir
    tile.assert %ok, %a, %b : tensor<128xi1>, tensor<128xi32>, tensor<128xi32>
        {message = "x < n", details = ["left ", ", right ", ""],
         valuesSigned = array<i1: true, true>}
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, Variadic<AnyType>:$values,
                       StrAttr:$message, StrArrayAttr:$details,
                       DenseBoolArrayAttr:$valuesSigned);
  let assemblyFormat = "$condition (`,` $values^)? attr-dict `:` type($condition) (`,` type($values)^)?";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `details` as strings, for print::assertFormat.
    std::vector<std::string> getDetailPieces() {
      std::vector<std::string> pieces;
      for (::mlir::Attribute piece : getDetails())
        pieces.push_back(::mlir::cast<::mlir::StringAttr>(piece).getValue().str());
      return pieces;
    }
  }];
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite<Tile_DebugOutput>]>]> {
  let summary = "Print values from the device, one line per element";
  let description = [{
    `tl.device_print(prefix, *args, hex=)`. Each element of each operand is
    printed once, as `pid (x, y, z) idx (i, j)<prefix><value>`, with
    `(operand n) ` before the value when there are several operands (`idx ()`
    for a scalar, which the program's first thread prints); with no operands
    the first thread prints `pid (x, y, z)<prefix>`. `argsSigned` says how to
    print each integer operand; `hex` prints the bits.

    ```mlir
    tile.print %x : tensor<128xf32> {prefix = " x: ", hex = false, argsSigned = array<i1: false>}
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$args, StrAttr:$prefix, BoolAttr:$hex,
                       DenseBoolArrayAttr:$argsSigned);
  let assemblyFormat = "($args^ `:` type($args))? attr-dict";
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Tile_SameOperandsAndResultEncoding]> {
  let summary = "The addresses of pointers, as 64-bit integers";
  let description = [{
    Elementwise. The bounds checks of a debug compile (tile-check-bounds)
    measure an access's distance from its pointer argument with it; the
    language has no way to write it.

    ```mlir
    %a = tile.ptr_to_int %p : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$ptr attr-dict `:` type($ptr) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Wait until every thread of the program arrives";
  let description = [{
    `tl.debug_barrier()`: bar.sync 0 on the GPU; nothing in the interpreter,
    which runs a program's ops one at a time.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILEC_TILE_DEBUG_OPS
