// Operations of the tile dialect.
#ifndef TILEC_TILE_OPS
#define TILEC_TILE_OPS

include "compiler/Dialect/Tile/TileDialect.td"
include "compiler/Dialect/Tile/TileInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpBase.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program instance along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of program instances along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1 : i32
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

// A program's cluster (sm_90: CTAs launched together on one GPC, which can
// share what TMA copies). Clusters are `tile.num_ctas` consecutive programs
// along axis 0 (tl.range(..., num_ctas=N) on a warp-specialised loop);
// without one, or before sm_90, each program is a cluster of its own.
def Tile_ClusterIdOp : Tile_Op<"cluster_id", [Pure]> {
  let summary = "Index of this program's cluster along axis 0";
  let description = [{
    `tl.program_id(0) // cluster size` (`%clusterid.x` on sm_90).

    ```mlir
    %c = tile.cluster_id : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_ClusterCtaRankOp : Tile_Op<"cluster_cta_rank", [Pure]> {
  let summary = "This program's place in its cluster";
  let description = [{
    `tl.program_id(0) % cluster size` (`%cluster_ctarank` on sm_90).

    ```mlir
    %r = tile.cluster_cta_rank : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_ClusterSizeOp : Tile_Op<"cluster_size", [Pure]> {
  let summary = "How many programs this program's cluster has";
  let description = [{
    1 where the kernel is not launched in clusters (`%cluster_nctarank`
    on sm_90).

    ```mlir
    %n = tile.cluster_size : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The integers start, start+1, ..., end-1 as a 1-D tensor";
  let description = [{
    `end - start` must be a power of two and match the result's length.

    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::mlir::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "A tensor with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %n : tensor<128xi32>
    ```
  }];
  let arguments = (ins AnyType:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType,
    Tile_SameOperandsAndResultEncoding]> {
  let summary = "Stretch size-1 dimensions of a tensor";
  let description = [{
    Operand and result have the same rank; every operand dimension is 1 or
    equal to the result's.

    ```mlir
    %b = tile.broadcast %a : tensor<1x64xi32> -> tensor<32x64xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<Tile_SliceLayoutOpInterface>]> {
  let summary = "Insert a size-1 dimension";
  let description = [{
    `x[:, None]` in the kernel language.

    ```mlir
    %c = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<Tile_RearrangeLayoutOpInterface>]> {
  let summary = "Permute the dimensions of a tensor";
  let description = [{
    Result dimension i is operand dimension `order[i]`: element
    `r[i0, ..., in]` is `x[j]` with `j[order[k]] = ik`. `tl.trans`,
    `tl.permute` and `x.T` in the kernel language. With layouts, the result's
    is the operand's with its dimensions permuted: no data moves.

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<Tile_RearrangeLayoutOpInterface>]> {
  let summary = "The same elements in another shape, in row-major order";
  let description = [{
    Operand and result have the same number of elements; element k of the
    row-major (last dimension fastest) order of one is element k of the
    other, as numpy's `reshape`. `tl.reshape` in the kernel language. With
    layouts, every element stays in its register: the result's layout is
    the operand's with coordinates refolded.

    ```mlir
    %r = tile.reshape %x : tensor<32x64xf32> -> tensor<2048xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, SameTypeOperands,
    DeclareOpInterfaceMethods<Tile_RearrangeLayoutOpInterface,
                              ["isInvertible"]>]> {
  let summary = "Two tensors side by side along a new last dimension of 2";
  let description = [{
    `r[i..., 0] = lhs[i...]` and `r[i..., 1] = rhs[i...]`: `tl.join` in the
    kernel language, and with a reshape or a transpose after it,
    `tl.interleave` and `tl.cat`. With layouts, the result's is the
    operands' (one layout for both) with the new dimension in the lowest
    register bit: each thread keeps its elements and holds the other
    operand's at the same coordinates beside them. No data moves.

    ```mlir
    %j = tile.join %a, %b : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let extraClassDeclaration = [{
    ::mlir::TypedValue<::mlir::RankedTensorType> getSrc() { return getLhs(); }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_GatherOp : Tile_Op<"gather", [Pure, Tile_SameOperandsAndResultEncoding]> {
  let summary = "Elements of a tensor picked along one axis by an index tensor";
  let description = [{
    `tl.gather(src, index, axis)`: `result[i...] = src[i... with i[axis]
    replaced by indices[i...]]`, as numpy's `take_along_axis`; indices are
    i32 or i64, read as signed (the front end widens narrower ones). The result
    has the indices' shape and the source's element type; the two tensors
    agree in every dimension but `axis`. An index outside `[0,
    src.shape[axis])` gives 0 (the interpreter reports it). On the GPU the
    source goes through the op's shared-memory scratch, row-major, and each
    thread reads the elements its indices name.

    ```mlir
    %g = tile.gather %src, %idx {axis = 1 : i32} : tensor<32x64xf32>, tensor<32x16xi32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_Tensor:$indices, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src `,` $indices attr-dict `:` type($src) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure, Tile_SameOperandsAndResultEncoding]> {
  let summary = "Counts of the values of a 1-D integer tensor, in bins of width 1";
  let description = [{
    `tl.histogram(input, num_bins, mask=None)`: `result[b]` is the number of
    elements of `input` equal to `b` (whose `mask` is true), for `b` in
    `[0, num_bins)`, the result's size; values outside the bins are not
    counted. On the GPU the counts build up in the op's shared-memory
    scratch with shared-memory atomics (the order of integer additions
    does not matter) and each thread reads the bins it holds.

    ```mlir
    %h = tile.histogram %x, %m : tensor<1024xi32>, tensor<1024xi1> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input, Optional<Tile_Tensor>:$mask);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $mask^)? attr-dict `:` type($input) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, Tile_SameOperandsAndResultEncoding,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    Elementwise `ptr + offset * sizeof(pointee)`. Operands are both scalars or
    tensors of one shape.

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_CacheModifierAttr : I32EnumAttr<"CacheModifier", "load/store cache hint", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>, I32EnumAttrCase<"cg", 2>,
    I32EnumAttrCase<"cs", 3>, I32EnumAttrCase<"wb", 4>, I32EnumAttrCase<"wt", 5>,
    I32EnumAttrCase<"cv", 6>]> {
  let cppNamespace = "::tilec::tile";
}
def Tile_EvictionPolicyAttr : I32EnumAttr<"EvictionPolicy", "L2 eviction hint", [
    I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"evict_first", 1>,
    I32EnumAttrCase<"evict_last", 2>]> {
  let cppNamespace = "::tilec::tile";
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments, Tile_SameOperandsAndResultEncoding,
    MemoryEffects<[MemRead<DefaultResource>]>,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    OptionalTypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask",
                   "::tilec::tile::getI1TypeLike($_self)">,
    OptionalTypesMatchWith<"other matches the result", "ptr", "other",
                   "::tilec::tile::getPointeeTypeLike($_self)">]> {
  let summary = "Load from global memory, optionally masked";
  let description = [{
    Lanes whose `mask` is false read nothing and take `other` (undefined when
    `other` is absent). `other` needs `mask`.

    ```mlir
    %v = tile.load %p, %m, %zero : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<AnyType>:$other,
                       DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::none">:$cache,
                       DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::normal">:$evict,
                       UnitAttr:$isVolatile);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr (`,` $mask^)? (`,` $other^)? attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Read one block of a tensor descriptor";
  let description = [{
    `desc.load(offsets)` of a `tl.make_tensor_descriptor(base, shape,
    strides, block_shape)`: the block of the result's shape whose first
    element is at `offsets` in the tensor of `shape` and `strides`
    (elements, outermost first; the last stride is 1) at `base`. Elements
    outside the tensor read as zero, or as NaN with `nanPadding`. The op
    keeps the descriptor's structure, which the Tensor Memory Accelerator
    reads blocks by, up to `tile-lower-descriptors`, which turns it into a
    `tile.tensormap_load` where TMA pays and into the masked `tile.load` of
    its elements everywhere else.

    ```mlir
    %t = tile.descriptor_load %base[%i, %j] shape(%m, %k) strides(%sk, %c1) : !tile.ptr<f16> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets, UnitAttr:$nanPadding);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = [{
    $base `[` $offsets `]` `shape` `(` $shape `)` `strides` `(` $strides `)` attr-dict
    `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_TensorMapLoadOp : Tile_Op<"tensormap_load", [
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Read one block through a TMA tensor map";
  let description = [{
    The block of the result's shape whose first element is at `offsets`
    (elements, outermost first) in the tensor `map` describes; elements
    outside it read as the map's padding. `map` is a kernel argument whose
    `tile.tensormap` attribute gives the tensor and the box each copy
    moves (`tile-lower-descriptors` makes both from a
    `tile.descriptor_load`). On the GPU it becomes `cp.async.bulk.tensor`
    copies into shared memory that complete on an mbarrier
    (`tilegpu-pipeline-loads` in pipelined loops,
    `tilegpu-lower-tensormap-loads` elsewhere).

    ```mlir
    %t = tile.tensormap_load %map[%i, %j] : tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = "$map `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    AttrSizedOperandSegments, MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Write one block of a tensor descriptor";
  let description = [{
    `desc.store(offsets, value)` of a `tl.make_tensor_descriptor(base,
    shape, strides, block_shape)`: writes `value`, a tensor of the block's
    shape, as the block whose first element is at `offsets` in the tensor
    of `shape` and `strides` (elements, outermost first; the last stride
    is 1) at `base`. Elements outside the tensor are not written. As
    `tile.descriptor_load`, the op keeps the descriptor's structure up to
    `tile-lower-descriptors`, which turns it into a `tile.tensormap_store`
    where TMA stores the block and into the masked `tile.store` of its
    elements everywhere else.

    ```mlir
    tile.descriptor_store %base[%i, %j] shape(%m, %n) strides(%sm, %c1), %v : !tile.ptr<f16>, tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I64>:$shape, Variadic<I64>:$strides,
                       Variadic<I32>:$offsets, RankedTensorOf<[AnyType]>:$value);
  let assemblyFormat = [{
    $base `[` $offsets `]` `shape` `(` $shape `)` `strides` `(` $strides `)` `,` $value
    attr-dict `:` type($base) `,` type($value)
  }];
  let hasVerifier = 1;
}

def Tile_TensorMapStoreOp : Tile_Op<"tensormap_store", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Write one block through a TMA tensor map";
  let description = [{
    Writes `value` as the block whose first element is at `offsets`
    (elements, outermost first) in the tensor `map` describes; elements
    outside the tensor are not written. `map` is a kernel argument whose
    `tile.tensormap` attribute gives the tensor and the box each copy
    moves (`tile-lower-descriptors` makes both from a
    `tile.descriptor_store`). On the GPU the block goes to a shared
    buffer, from which one thread's `cp.async.bulk.tensor` copies write it
    (`tilegpu-lower-tensormap-stores`).

    ```mlir
    tile.tensormap_store %map[%i, %j], %v : tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$offsets,
                       RankedTensorOf<[AnyType]>:$value);
  let assemblyFormat = "$map `[` $offsets `]` `,` $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [Tile_SameOperandsAndResultEncoding,
    MemoryEffects<[MemWrite<DefaultResource>]>,
    TypesMatchWith<"value matches the pointee of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    OptionalTypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask",
                   "::tilec::tile::getI1TypeLike($_self)">]> {
  let summary = "Store to global memory, optionally masked";
  let description = [{
    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$value, Optional<Tile_BoolLike>:$mask,
                       DefaultValuedAttr<Tile_CacheModifierAttr, "::tilec::tile::CacheModifier::none">:$cache,
                       DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilec::tile::EvictionPolicy::normal">:$evict);
  let assemblyFormat = "$ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def Tile_AtomicKindAttr : I32EnumAttr<"AtomicKind", "read-modify-write operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"umax", 2>,
    I32EnumAttrCase<"min", 3>, I32EnumAttrCase<"umin", 4>, I32EnumAttrCase<"and_", 5, "and">,
    I32EnumAttrCase<"or_", 6, "or">, I32EnumAttrCase<"xor_", 7, "xor">,
    I32EnumAttrCase<"xchg", 8>]> {
  let cppNamespace = "::tilec::tile";
}
def Tile_MemSemanticAttr : I32EnumAttr<"MemSemantic", "memory ordering of an atomic", [
    I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
    I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>]> {
  let cppNamespace = "::tilec::tile";
}
def Tile_MemScopeAttr : I32EnumAttr<"MemScope", "threads an atomic synchronises with", [
    I32EnumAttrCase<"cta", 0>, I32EnumAttrCase<"gpu", 1>, I32EnumAttrCase<"sys", 2>]> {
  let cppNamespace = "::tilec::tile";
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [Tile_SameOperandsAndResultEncoding,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    TypesMatchWith<"value matches the pointee of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    OptionalTypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask",
                   "::tilec::tile::getI1TypeLike($_self)">]> {
  let summary = "Atomically combine a value into global memory";
  let description = [{
    For each element whose `mask` is true, atomically replaces `*ptr` with
    `kind(*ptr, value)` and returns the old `*ptr`; masked-off elements
    return 0 and touch nothing. Elements are independent atomics (two
    elements at one address both apply, in some order). `max`/`min`
    compare signed integers or floats (a NaN value changes nothing),
    `umax`/`umin` unsigned integers; `and`, `or`, `xor` need integers;
    `xchg` stores `value`. `sem` orders the access with the thread's other
    accesses and `scope` says which threads it synchronises with, as PTX's
    `atom` qualifiers do.

    ```mlir
    %old = tile.atomic_rmw add, %p, %v, %m {sem = acq_rel, scope = gpu} : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_PtrLike:$ptr, AnyType:$value,
                       Optional<Tile_BoolLike>:$mask,
                       DefaultValuedAttr<Tile_MemSemanticAttr, "::tilec::tile::MemSemantic::acq_rel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr, "::tilec::tile::MemScope::gpu">:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$kind `,` $ptr `,` $value (`,` $mask^)? attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [Tile_SameOperandsAndResultEncoding,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    TypesMatchWith<"cmp matches the pointee of ptr", "ptr", "cmp",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    TypesMatchWith<"value matches the pointee of ptr", "ptr", "value",
                   "::tilec::tile::getPointeeTypeLike($_self)">,
    TypesMatchWith<"result matches the pointee of ptr", "ptr", "result",
                   "::tilec::tile::getPointeeTypeLike($_self)">]> {
  let summary = "Atomic compare-and-swap in global memory";
  let description = [{
    For each element, atomically: `old = *ptr; if (old == cmp) *ptr =
    value;` and returns `old`. The comparison is of bits (floats too), as
    PTX's `atom.cas`.

    ```mlir
    %old = tile.atomic_cas %lock, %zero, %one {sem = acq_rel, scope = gpu} : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, AnyType:$cmp, AnyType:$value,
                       DefaultValuedAttr<Tile_MemSemanticAttr, "::tilec::tile::MemSemantic::acq_rel">:$sem,
                       DefaultValuedAttr<Tile_MemScopeAttr, "::tilec::tile::MemScope::gpu">:$scope);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$ptr `,` $cmp `,` $value attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SingleBlock,
    DeclareOpInterfaceMethods<Tile_SliceLayoutOpInterface>]> {
  let summary = "Combine the elements of tensors along one axis";
  let description = [{
    Reduces N tensors of one shape along `axis` with the combiner in the
    region: its block takes 2N scalars (the N values of two partial results)
    and returns N. The results have the operands' shape without `axis`
    (scalars when the operands are 1-D). The combiner must be associative
    and commutative; the lowering combines in a fixed order, so the result
    is deterministic.

    ```mlir
    %s = tile.reduce %x {axis = 1 : i32} : tensor<8x64xf32> -> tensor<8xf32> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce.return %c : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "$srcs attr-dict `:` type($srcs) `->` type($results) $combiner";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return", [Pure, Terminator,
    ReturnLike, HasParent<"ReduceOp">]> {
  let summary = "The combined values of a tile.reduce combiner";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SingleBlock,
    Tile_SameOperandsAndResultEncoding]> {
  let summary = "Inclusive prefix combination of tensors along one axis";
  let description = [{
    `tl.cumsum`, `tl.cumprod`, `tl.associative_scan`. Element i along
    `axis` of each result combines elements 0..i of the operands, in
    order, with the combiner in the region (2N scalars in, N out, as for
    tile.reduce). The results have the operands' types. The combiner must
    be associative; the lowering groups the combinations in a fixed way
    (in each thread, then across lanes, then across warps), so the result
    is deterministic.

    ```mlir
    %c = tile.scan %x {axis = 0 : i32} : tensor<128xf32> -> tensor<128xf32> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.scan.return %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = "$srcs attr-dict `:` type($srcs) `->` type($results) $combiner";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return", [Pure, Terminator,
    ReturnLike, HasParent<"ScanOp">]> {
  let summary = "The combined values of a tile.scan combiner";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def Tile_InputPrecisionAttr : I32EnumAttr<"InputPrecision",
    "how a dot of f32 operands rounds them", [
    I32EnumAttrCase<"tf32", 0>, I32EnumAttrCase<"tf32x3", 1>,
    I32EnumAttrCase<"ieee", 2>]> {
  let cppNamespace = "::tilec::tile";
}

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>,
    DeclareOpInterfaceMethods<Tile_AccumulatorOpInterface>]> {
  let summary = "Matrix product accumulated into a tile: d = a @ b + c";
  let description = [{
    `a` is M x K, `b` K x N, `c` and `d` M x N; with rank 3 the leading
    dimension is a batch that all four share. Operand element types, and
    the accumulator's:

    | a, b | c, d |
    |---|---|
    | f16 | f32 or f16 |
    | bf16 | f32 |
    | f32 | f32 |
    | i8 | i32 |

    M, N and K are at least 16. `inputPrecision` says how f32 operands
    are multiplied: `tf32` rounds each to tf32 (10 fraction bits, to
    nearest, ties away from zero) and multiplies on tensor cores; `tf32x3`
    splits each into a tf32 high part and a tf32 remainder and adds the
    three largest of the four products (close to f32 accuracy on tensor
    cores); `ieee` is an f32 fused multiply-add per term. Other operand
    types ignore it. Products are summed in the accumulator's type.
    `maxNumImpreciseAcc` (tl.dot's `max_num_imprecise_acc`, fp8 only): at
    most that many K elements (but at least one instruction's) are summed
    in a tensor core's reduced-precision accumulator before being added to
    the f32 one; absent, the instruction's own accumulation is used
    throughout (Hopper's wgmma; mma.sync sums every product in f32).

    `x + dot(a, b, 0)` canonicalises to `dot(a, b, x)`, so that
    `acc += tl.dot(a, b)` accumulates in the instruction itself.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c,
                       DefaultValuedAttr<Tile_InputPrecisionAttr,
                         "::tilec::tile::InputPrecision::tf32">:$inputPrecision,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$maxNumImpreciseAcc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($d)
  }];
  let hasVerifier = 1;  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Compiler hints
//===----------------------------------------------------------------------===//

def Tile_AssumeMultipleOp : Tile_Op<"assume_multiple", [Pure, SameOperandsAndResultType]> {
  let summary = "Promise that every element is a multiple of `divisor`";
  let description = [{
    `tl.multiple_of(x, 16)`. Feeds the axis-info analysis; lowers to nothing.

    ```mlir
    %y = tile.assume_multiple %x {divisor = 16 : i64} : i32
    ```
  }];
  let arguments = (ins Tile_IntLike:$src, ConfinedAttr<I64Attr, [IntPositive]>:$divisor);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Tile_AssumeContiguousOp : Tile_Op<"assume_contiguous", [Pure, SameOperandsAndResultType]> {
  let summary = "Promise runs of `size` consecutive integers along the last axis";
  let description = [{
    `tl.max_contiguous(x, 128)`.

    ```mlir
    %y = tile.assume_contiguous %x {size = 128 : i64} : tensor<128xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnySignlessInteger]>:$src,
                       ConfinedAttr<I64Attr, [IntPositive]>:$size);
  let results = (outs RankedTensorOf<[AnySignlessInteger]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Code from outside the language: inline PTX, CUDA C++ device functions
//===----------------------------------------------------------------------===//

def Tile_InlineAsmOp : Tile_Op<"inline_asm", [Tile_SameOperandsAndResultEncoding,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline PTX applied elementwise";
  let description = [{
    `tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure,
    pack)`: `asm` runs once per `pack` elements of every operand (which
    ones share an invocation is unspecified), with LLVM's inline-assembly
    `constraints` naming its outputs first (`=r,...`), then its inputs.
    Per invocation each result and operand of fewer than 32 bits takes
    `pack / min(pack, 32 / bits)` registers, each a vector of the
    elements it packs (four i8 in one `r`), and a wider one `pack`
    registers. Operands and results have one shape (all scalars when
    `pack` is 1). Not `pure`: it may read and write memory, so it is never
    moved or removed.

    ```mlir
    %y = tile.inline_asm "shl.b32 $0, $1, 3;", "=r,r", %x
        {pure = true, pack = 1 : i32} : (tensor<128xi32>) -> tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$pack, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $asm_string `,` $constraints (`,` $args^)? attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Registers one invocation gives a value of `element`'s type, and the
    /// elements each packs (see the description).
    static unsigned elementsPerRegister(::mlir::Type element, unsigned pack);
    /// What is wrong with the operand references (`$N`, `${N...}`, `$$`,
    /// `$(`, `$|`, `$)`) of `asm` for `operands` registers; empty when
    /// nothing is (LLVM's inline-asm printer aborts on a bad one).
    static std::string checkOperandReferences(::llvm::StringRef asm_, unsigned operands);
    static unsigned registersPerInvocation(::mlir::Type element, unsigned pack) {
      return pack / elementsPerRegister(element, pack);
    }
  }];
}

def Tile_CudaCallOp : Tile_Op<"cuda_call", [Tile_SameOperandsAndResultEncoding,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "A CUDA C++ device function applied elementwise";
  let description = [{
    `tl.cuda_device_call(source, name, args, dtype, is_pure)`: the
    `extern "C" __device__` function `callee`, defined in one of the CUDA
    C++ sources the module lists in its `tile.cuda_sources` attribute,
    called once per element with the operands' elements (integers of 8 to
    64 bits or f16, bf16, f32, f64; all tensors of one shape, or all
    scalars). NVRTC compiles the sources to PTX after the kernel's, and the
    two are linked as one PTX module. Not `pure`: it may read and write
    memory, so it is never moved or removed.

    ```mlir
    %y = tile.cuda_call @cube(%x) {pure = true} : (tensor<128xf32>) -> tensor<128xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, BoolAttr:$pure, Variadic<AnyType>:$args);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$callee `(` $args `)` attr-dict `:` functional-type($args, $result)";
  let hasVerifier = 1;
}

include "compiler/Dialect/Tile/TileDebugOps.td"
include "compiler/Dialect/Tile/TileOverlapOps.td"

#endif // TILEC_TILE_OPS
