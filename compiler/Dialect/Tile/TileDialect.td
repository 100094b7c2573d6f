// The tile dialect: tensors of values and of pointers, with no hardware
// notions. It is what the front end generates, specialised on a signature.
#ifndef TILEC_TILE_DIALECT
#define TILEC_TILE_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "Block-level tensor programs over global memory";
  let description = [{
    A kernel in the tile dialect is a `func.func` over scalars and
    `!tile.ptr<T>` arguments, run once per program instance (a CUDA block).
    Values are scalars or ranked tensors (`tensor<128x64xf32>`,
    `tensor<1024x!tile.ptr<f16>>`) with power-of-two shapes. Elementwise
    arithmetic uses `arith` on tensors, control flow uses `scf`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Tile_Type<string name, string typeMnemonic> : TypeDef<Tile_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Tile_PointerType : Tile_Type<"Pointer", "ptr"> {
  let summary = "Pointer to global memory";
  let description = [{
    An address in the global address space pointing at a value of
    `pointeeType` (a scalar integer or float type). Pointer arithmetic is
    `tile.addptr`, counted in elements.

    ```mlir
    !tile.ptr<f32>
    tensor<256x!tile.ptr<f16>>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let genVerifyDecl = 1;
}

def Tile_TensorMapType : Tile_Type<"TensorMap", "tensormap"> {
  let summary = "A TMA tensor map the launcher encodes";
  let description = [{
    A kernel parameter: the 128-byte CUtensorMap through which the Tensor
    Memory Accelerator reads one tensor descriptor's blocks
    (`tilegpu.async_tma_copy_global_to_local`). The argument's
    `tile.tensormap` attribute says how the launcher builds it from the
    kernel's other arguments (compiler/TensorMap.h); it lowers to a
    grid-constant parameter (`.param .align 64 .b8 [128]`).

    ```mlir
    func.func @k(%a: !tile.ptr<f16>, %m: i32, %map: !tile.tensormap {tile.tensormap = "..."})
    ```
  }];
}

// A tile-dialect value: a scalar or a tensor of it.
def Tile_Ptr : Type<CPred<"::mlir::isa<::tilec::tile::PointerType>($_self)">,
                    "tile pointer">;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, RankedTensorOf<[Tile_Ptr]>]>;
def Tile_IntLike : AnyTypeOf<[AnySignlessInteger, RankedTensorOf<[AnySignlessInteger]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_Tensor : RankedTensorOf<[AnyType]>;
def Tile_Any : AnyTypeOf<[AnyType]>;

#endif // TILEC_TILE_DIALECT
