// Layout rules of tile ops, stated without naming any layout: the tilegpu
// passes read them to decide which tensors must share a layout.
#ifndef TILEC_TILE_INTERFACES
#define TILEC_TILE_INTERFACES

include "mlir/IR/OpBase.td"

// Every tensor operand and result has the same encoding (whatever the
// shapes): after layout assignment one layout covers them all.
def Tile_SameOperandsAndResultEncoding
    : NativeOpTrait<"SameOperandsAndResultEncoding"> {
  let cppNamespace = "::tilec::tile";
}

def Tile_SliceLayoutOpInterface : OpInterface<"SliceLayoutOpInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    An op between tensors of rank r and r - 1 whose rank-(r - 1) tensors
    are laid out as the slice, along one dimension, of the layout of its
    rank-r tensors: `expand_dims` (the operand is the slice of the result)
    and `reduce` (the results are slices of the operands).
  }];
  let methods = [
    InterfaceMethod<"The dimension of the rank-r tensors that the slice removes.",
                    "unsigned", "getSliceDim">,
    InterfaceMethod<"The rank-r tensors (all of one layout).",
                    "::llvm::SmallVector<::mlir::Value>", "getFullTensors">,
    InterfaceMethod<"The rank-(r - 1) tensors (scalars are left out).",
                    "::llvm::SmallVector<::mlir::Value>", "getSlicedTensors">,
  ];
}

def Tile_RearrangeLayoutOpInterface : OpInterface<"RearrangeLayoutOpInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    An op whose one tensor result holds the elements of its tensor operands
    at other coordinates (`trans`, `reshape`: one operand; `join`: two of
    one type, which share a layout). No element has to move: the result's
    layout is a function of the operands' (each element stays in its
    register), and the operands' of the result's where the rule can run
    backwards (`isInvertible`). The tile dialect knows no layout; the
    functions come from the encoding's dialect
    (tile::DialectInferLayoutInterface). Both are null for a null encoding,
    or one whose dialect has no such rule.
  }];
  let methods = [
    InterfaceMethod<"The tensor whose elements are rearranged (the first, "
                    "when there are several of one layout).",
                    "::mlir::TypedValue<::mlir::RankedTensorType>", "getSrc", (ins),
                    [{ return $_op.getSrc(); }]>,
    InterfaceMethod<"The rearranged tensor.",
                    "::mlir::TypedValue<::mlir::RankedTensorType>", "getResult", (ins),
                    [{ return $_op.getResult(); }]>,
    InterfaceMethod<"The result's layout when the operand has `srcEncoding`.",
                    "::mlir::Attribute", "inferResultEncoding",
                    (ins "::mlir::Attribute":$srcEncoding)>,
    InterfaceMethod<"The operand's layout when the result has `resultEncoding` "
                    "(null when no operand layout gives that one).",
                    "::mlir::Attribute", "inferSourceEncoding",
                    (ins "::mlir::Attribute":$resultEncoding)>,
    InterfaceMethod<"True when every result layout has an operand layout, so "
                    "that a layout pass may derive the operand's from the "
                    "result's.",
                    "bool", "isInvertible", (ins), [{}],
                    [{ return true; }]>,
  ];
}

def Tile_AccumulatorOpInterface : OpInterface<"AccumulatorOpInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    An op whose result is an accumulator operand updated from other tensor
    operands (`dot`). The accumulator and the result share one layout; each
    other tensor operand keeps the layout the pass that chose the
    instruction gave it (an operand layout of that instruction), so layout
    passes treat all of them as fixed.
  }];
  let methods = [
    InterfaceMethod<"The operand the result accumulates into.",
                    "::mlir::Value", "getAccumulator">,
  ];
}

#endif // TILEC_TILE_INTERFACES
