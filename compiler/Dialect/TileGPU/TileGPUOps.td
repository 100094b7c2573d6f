#ifndef TILEC_TILEGPU_OPS
#define TILEC_TILEGPU_OPS

include "compiler/Dialect/TileGPU/TileGPUAttrs.td"
include "compiler/Dialect/TileGPU/TileGPUTypes.td"
include "compiler/Dialect/Tile/TileDialect.td"
include "compiler/Dialect/Tile/TileInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

// The CTA's shared memory, as a resource of memory effects.
def TileGPU_SharedMemory : Resource<"::tilec::tilegpu::SharedMemory">;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Move a tensor's elements to another layout";
  let description = [{
    The same logical tensor, redistributed over the threads. The lowering
    compares the two linear layouts: when only registers move it is a
    register permutation, when elements move between lanes of one warp it
    is warp shuffles. Any other conversion is rewritten by
    `tilegpu-decompose-conversions` into a `local_alloc` and a `local_load`
    through a swizzled shared-memory buffer before lowering.

    ```mlir
    %b = tilegpu.convert_layout %a : tensor<64xi32, #l0> -> tensor<64xi32, #l1>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyType]>:$src);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    Tile_SameOperandsAndResultEncoding]> {
  let summary = "A shared-memory buffer, optionally filled from a tensor";
  let description = [{
    Allocates a buffer of the result's shape. With `src`, every element of
    the tensor is written to it (each by one thread) and the buffer is
    immutable; without, the buffer is `mutable` and its contents undefined.
    `tilegpu-allocate-shared` gives it an offset (`tilegpu.shared_offset`)
    in the kernel's shared memory; its lifetime ends at its last use.

    ```mlir
    %buf = tilegpu.local_alloc %t : (tensor<64x64xf32, #blocked>) -> !tilegpu.memdesc<64x64xf32, #shared>
    ```
  }];
  let arguments = (ins Optional<RankedTensorOf<[AnyType]>>:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>,
    Tile_SameOperandsAndResultEncoding]> {
  let summary = "Read a shared-memory buffer into registers";
  let description = [{
    Every thread reads the elements the result's layout gives it. Accesses
    are as wide as the two layouts allow (16 bytes at most).

    ```mlir
    %t = tilegpu.local_load %buf : !tilegpu.memdesc<64x64xf32, #shared> -> tensor<64x64xf32, #blocked1>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>,
    Tile_SameOperandsAndResultEncoding]> {
  let summary = "Write registers into a mutable shared-memory buffer";
  let description = [{
    Every element of `src` is written once (threads holding copies do not
    write them again).

    ```mlir
    tilegpu.local_store %t, %buf : tensor<64x64xf32, #blocked> -> !tilegpu.memdesc<64x64xf32, #shared, mutable>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyType]>:$src, TileGPU_MemDescType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))";
  let hasVerifier = 1;
}

def TileGPU_LocalDeallocOp : TileGPU_Op<"local_dealloc", [
    MemoryEffects<[MemFree<TileGPU_SharedMemory>]>]> {
  let summary = "End a shared-memory buffer's lifetime";
  let description = [{
    Optional: without it a buffer lives until its last use. Its bytes may be
    reused by buffers allocated after it.

    ```mlir
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<64x64xf32, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
}

def TileGPU_BarrierOp : TileGPU_Op<"barrier"> {
  let summary = "Wait until every thread of the CTA arrives (bar.sync 0)";
  let description = [{
    Orders the shared-memory accesses before it against those after it, for
    all threads. `tilegpu-insert-barriers` places one wherever two accesses
    to overlapping shared memory could otherwise race.

    ```mlir
    tilegpu.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_ClusterBarrierOp : TileGPU_Op<"cluster_barrier"> {
  let summary = "Wait until every thread of every CTA of the cluster arrives";
  let description = [{
    `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`
    in every thread (sm_90): what any CTA of the cluster did before it
    (initialised its mbarriers) is seen by the others after it, and no CTA
    passes it while another has not reached it (a CTA must not end while
    its peers may still copy into its shared memory or arrive on its
    mbarriers). `tilegpu-warp-specialize` places one after the mbarriers'
    initialisation and one at the kernel's end, where the kernel's CTAs
    share copies (`tilegpu.num_ctas`).

    ```mlir
    tilegpu.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_MemDescIndexOp : TileGPU_Op<"memdesc_index", [Pure]> {
  let summary = "One buffer of a ring of shared-memory buffers";
  let description = [{
    Buffer `index` (from 0; anything else is undefined) of a ring
    (`!tilegpu.memdesc<N x shape...>`, see the type): the same bytes the
    ring holds at `index` times one buffer's size, with the ring's encoding
    and mutability. The software pipeline (`tilegpu-pipeline-loads`) fills
    one buffer of a ring while the loop reads another.

    ```mlir
    %b = tilegpu.memdesc_index %ring[%i] : !tilegpu.memdesc<3x64x32xf16, #shared, mutable> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src, I32:$index);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescTransOp : TileGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "A 2-D buffer viewed with its dimensions swapped";
  let description = [{
    The same bytes as `src`, indexed [j, i] where `src` is indexed [i, j]:
    the view `tl.trans` of a tile gives once the tile is in shared memory.
    One 2-D buffer (not a ring) has such a view; its layout is the source's
    with the dimensions renumbered (`order` swapped for
    `#tilegpu.nvmma_shared` and `#tilegpu.swizzled_shared`, each offset's
    coordinates swapped for `#tilegpu.shared_linear`): the same dimension
    of the data stays contiguous. `tilegpu.warp_group_dot` reads the
    transpose of a tile through it without moving it (`tl.dot(a,
    tl.trans(w))` reads the tile of `w` as a K-major B), and so does a
    `tilegpu.local_load` into an mma.sync operand. Mutability is the
    source's.

    ```mlir
    %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nvmma_k_last> -> !tilegpu.memdesc<64x128xf16, #nvmma_k_first>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$src), [{
    build($_builder, $_state,
          transposedType(::llvm::cast<MemDescType>(src.getType())), src);
  }]>];
  let extraClassDeclaration = [{
    /// The type of the transposed view of `src`: null unless `src` is a
    /// 2-D nvmma_shared buffer.
    static MemDescType transposedType(MemDescType src);
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCopyGlobalToLocalOp : TileGPU_Op<"async_copy_global_to_local", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Start copying a tile of global memory into a shared buffer";
  let description = [{
    Each thread starts copying the elements `ptr` gives it (in vectors of
    4, 8 or 16 bytes: `cp.async`) into their places in the mutable buffer
    `dst`, without passing through registers. Elements whose `mask` is
    false are not read and are written as zero. The copies a thread has
    started belong to its next `tilegpu.async_commit_group`; they are only
    known to have landed after a `tilegpu.async_wait` that covers that
    group, and other threads see them only after a barrier that follows the
    wait. `tilegpu-insert-barriers` counts the write at the wait.

    ```mlir
    tilegpu.async_copy_global_to_local %ptrs, %buf mask %m : tensor<64x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>, tensor<64x32xi1, #blocked>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Tile_Ptr]>:$ptr, TileGPU_MemDescType:$dst,
                       Optional<RankedTensorOf<[I1]>>:$mask);
  let assemblyFormat = [{
    $ptr `,` $dst (`mask` $mask^)? attr-dict `:` type($ptr) `->`
    qualified(type($dst)) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Close the group of the thread's copies started since the last";
  let description = [{
    `cp.async.commit_group`: the asynchronous copies this thread started
    since its previous commit form one group, which `tilegpu.async_wait`
    counts.

    ```mlir
    tilegpu.async_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait until at most `pending` of the thread's copy groups are in flight";
  let description = [{
    `cp.async.wait_group pending`: every group this thread committed except
    the `pending` most recent has landed in shared memory. Other threads'
    copies are only visible after a barrier that follows.

    ```mlir
    tilegpu.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}


def TileGPU_WarpGroupDotOp : TileGPU_Op<"warp_group_dot", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>, AllTypesMatch<["c", "d"]>,
    DeclareOpInterfaceMethods<Tile_AccumulatorOpInterface>]> {
  let summary = "d = a @ b + c on Hopper's warpgroup tensor cores (wgmma)";
  let description = [{
    `tile.dot` as `wgmma.mma_async` (sm_90a): `a` (M x K) and `b` (K x N)
    are shared-memory buffers in `#tilegpu.nvmma_shared` layouts (or `a` is
    in registers, below), read by
    the tensor cores through matrix descriptors; `c` and `d` are M x N in
    an `#tilegpu.mma` version-3 layout, each warpgroup holding 64 rows per
    instruction. The types are wgmma's: f16 or bf16 into f32 (k16), fp8
    e4m3/e5m2 in any pairing into f32 (k32), i8 into i32 (k32), f32 read as
    tf32 into f32 (k8). A buffer whose contiguous dimension is K is read as
    is; one whose contiguous dimension is M (of `a`) or N (of `b`) is read
    transposed, which the instruction does for 16-bit elements only: the
    other types need K-major buffers. For 16-bit elements `a` may
    instead be a tensor in registers, in the `#tilegpu.dot_op` layout of
    operand A of `d`'s layout with kWidth 2, or any layout that is the same
    linear layout (each warp's 16 rows as
    mma.sync's m16k16 fragment): a tile computed in registers, such as the
    first product of a chained `dot(dot(q, k), v)`, is multiplied where it
    is. Such an op cannot be left in flight (`pending = 1`).

    `maxNumImpreciseAcc` (fp8 only; tile.dot's): when it is at most K, each
    run of at most that many K elements (at least one k32 step) is
    multiplied into fresh registers and then added to `c` in f32, as
    Hopper's fp8 accumulator keeps fewer bits than f32; absent (or above
    K), the instructions accumulate into `c` themselves.

    With `pending = 0` (the default) the op is complete when it returns: the
    lowering waits for the instructions it issued, so the buffers may be
    overwritten and `d` read after it. With `pending = 1` it waits only
    until the previous warp_group_dot's instructions are done: its own keep
    reading `a` and `b` and writing `d` until the next warp_group_dot (or a
    `tilegpu.warp_group_dot_wait`) returns, and `d` may only feed that next
    dot's accumulator or that wait. `tilegpu-pipeline-loads` sets it in
    loops whose ring has a spare buffer, so that the tensor cores multiply
    one iteration's tiles while the next iteration's are being waited for.

    ```mlir
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #nvmma>, !tilegpu.memdesc<64x128xf16, #nvmma1>, tensor<128x128xf32, #mma3> -> tensor<128x128xf32, #mma3>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_MemDescType, RankedTensorOf<[F16, BF16]>]>:$a,
                       TileGPU_MemDescType:$b,
                       RankedTensorOf<[F32, I32]>:$c,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>,
                                         "0">:$pending,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntNonNegative]>>:$maxNumImpreciseAcc);
  let results = (outs RankedTensorOf<[F32, I32]>:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `,` qualified(type($b))
    `,` type($c) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the op adds its fp8 products into `c` in f32 run by run
    /// (maxNumImpreciseAcc at most K): it then waits for every run itself
    /// and is complete when it returns, whatever `pending` says.
    bool addsRunsInF32();
  }];
}

def TileGPU_WarpGroupDotWaitOp : TileGPU_Op<"warp_group_dot_wait", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>,
    AllTypesMatch<["acc", "result"]>, Tile_SameOperandsAndResultEncoding]> {
  let summary = "Wait for the tensor cores to finish warp_group_dots";
  let description = [{
    `wgmma.wait_group pending`: at most `pending` of this warpgroup's
    groups of wgmma instructions are still in flight when it returns.
    `acc`, an accumulator they write, is passed through (as is), so that
    its uses come after the wait; with `pending = 0` every dot that wrote
    it is complete and `result` holds its final value. It follows a loop
    whose warp_group_dots left their last group in flight (`pending = 1`).
    (It declares a write, so that it is never dropped as unused: the
    shared memory the dots read may be reused only after it.)

    ```mlir
    %r = tilegpu.warp_group_dot_wait %acc {pending = 0 : i32} : tensor<128x128xf32, #mma3>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, I32]>:$acc,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let results = (outs RankedTensorOf<[F32, I32]>:$result);
  let assemblyFormat = "$acc attr-dict `:` type($acc)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA (sm_90)
//===----------------------------------------------------------------------===//

// An mbarrier: one 8-byte word of shared memory, a buffer of one i64 (or a
// ring of them, indexed by memdesc_index).
def TileGPU_InitBarrierOp : TileGPU_Op<"init_barrier", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Make a shared-memory word an mbarrier expecting `count` arrivals";
  let description = [{
    `mbarrier.init` by one thread, then `fence.mbarrier_init`: the barrier
    starts in phase 0, which completes once `count` threads have arrived
    and every byte announced with `barrier_expect` has landed. Other
    threads may use it only after a CTA barrier (tilegpu-insert-barriers
    places one, since this writes the word and a wait reads it).

    ```mlir
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_InvalBarrierOp : TileGPU_Op<"inval_barrier", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "End an mbarrier, so that its word may be reused";
  let description = [{
    `mbarrier.inval` by one thread, after every thread's last wait on it
    (a CTA barrier before it, which tilegpu-insert-barriers places).

    ```mlir
    tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_BarrierExpectOp : TileGPU_Op<"barrier_expect", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Arrive on an mbarrier announcing `bytes` more to land";
  let description = [{
    `mbarrier.arrive.expect_tx` by one thread, when `pred` holds: the
    barrier's current phase now also waits for `bytes` bytes of
    asynchronous copies (the TMA copies that name it) to land.

    ```mlir
    tilegpu.barrier_expect %bar, 16384, %true : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, ConfinedAttr<I32Attr, [IntPositive]>:$bytes,
                       I1:$pred);
  let assemblyFormat = "$barrier `,` $bytes `,` $pred attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_ArriveBarrierOp : TileGPU_Op<"arrive_barrier", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Arrive on an mbarrier, once per warp";
  let description = [{
    `mbarrier.arrive` by lane 0 of every warp that reaches it: one arrival
    per warp, with release semantics, so that a barrier initialised with
    the count of the warps that arrive completes its phase once all have.
    A warp-specialised loop's consumers release a ring slot with it after
    the dot that read the slot has finished.

    ```mlir
    tilegpu.arrive_barrier %bar : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_SetMaxRegistersOp : TileGPU_Op<"set_max_registers"> {
  let summary = "Give the executing warpgroup's threads `count` registers each";
  let description = [{
    `setmaxnreg.inc` (`increase`) or `setmaxnreg.dec`, by every thread of
    a warpgroup (four warps) together (sm_90a): a warp-specialised
    kernel's producer warpgroup gives up registers it does not need, and
    its consumers take them. `count` is a multiple of 8 from 24 to 256.

    ```mlir
    tilegpu.set_max_registers 232 {increase}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<24>, IntMaxValue<256>]>:$count,
                       UnitAttr:$increase);
  let assemblyFormat = "$count attr-dict";
  let hasVerifier = 1;
}

def TileGPU_WarpIdOp : TileGPU_Op<"warp_id", [Pure]> {
  let summary = "The index of the executing warp in the CTA";
  let description = [{
    The thread index divided by 32: the same for every thread of a warp.
    A warp-specialised kernel chooses each warp's role with it.

    ```mlir
    %w = tilegpu.warp_id : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TileGPU_WaitBarrierOp : TileGPU_Op<"wait_barrier", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>]> {
  let summary = "Wait until an mbarrier's phase of parity `phase` completes";
  let description = [{
    `mbarrier.try_wait.parity` in a loop, by every thread: returns once the
    phase whose parity is `phase` (0 for the first) has completed, after
    which the bytes the TMA copies of that phase wrote are visible to this
    thread, without a CTA barrier.

    ```mlir
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyGlobalToLocalOp : TileGPU_Op<"async_tma_copy_global_to_local", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Start copying a block through a TMA tensor map into a shared buffer";
  let description = [{
    One thread (when `pred` holds) issues the `cp.async.bulk.tensor` copies
    that fill the mutable buffer `result` with the block whose first
    element is at `coords` (elements, outermost first) in the tensor `map`
    describes: one copy per column of the buffer's swizzle
    (`#tilegpu.nvmma_shared`; the whole block for an unswizzled buffer),
    each the box of the map's `tile.tensormap` attribute. The bytes land
    asynchronously and count towards `barrier`'s current phase, which a
    `barrier_expect` of the buffer's size must announce; a
    `wait_barrier` on that phase makes them visible.

    ```mlir
    tilegpu.async_tma_copy_global_to_local %map[%i, %j] %buf, %bar, %true : !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$coords,
                       TileGPU_MemDescType:$result, TileGPU_MemDescType:$barrier, I1:$pred);
  let assemblyFormat = [{
    $map `[` $coords `]` $result `,` $barrier `,` $pred attr-dict `:`
    qualified(type($result)) `,` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def TileGPU_TMAStoreOp : TileGPU_Op<"tma_store", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<DefaultResource>]>]> {
  let summary = "Write a shared buffer's block through a TMA tensor map";
  let description = [{
    One thread (thread 0 of the CTA, or lane 0 of its warp with
    `tilegpu.lane_zero`) issues the `cp.async.bulk.tensor` copies that
    write the 2-D block in `buffer` (laid out as TMA reads it: the
    `#tilegpu.nvmma_shared` swizzle of its map, one copy per column of it)
    to `coords` (elements, outermost first) in the tensor `map` describes;
    elements outside the tensor are not written. TMA reads the buffer
    after the op, asynchronously: it may be written again only after a
    `tilegpu.tma_store_wait` and then a CTA barrier (both placed by
    `tilegpu-insert-barriers`, before the next write of those bytes). The
    buffer's writers must have fenced the async proxy and met the issuing
    thread at a barrier before (a `local_alloc` into an
    `#tilegpu.nvmma_shared` buffer fences after its stores). The writes to
    global memory complete asynchronously: they are visible to later
    kernels, not to this kernel's own reads; the issuing thread's next
    `tma_store` first waits for them, so stores of one block land in
    program order.

    ```mlir
    tilegpu.tma_store %map[%i, %j] %buf : !tilegpu.memdesc<128x64xf16, #nvmma>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<I32>:$coords,
                       TileGPU_MemDescType:$buffer);
  let assemblyFormat = [{
    $map `[` $coords `]` $buffer attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

// (A write too: an op with reads alone and no results would be dead code.)
def TileGPU_TMAStoreWaitOp : TileGPU_Op<"tma_store_wait", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait until TMA has read the buffers of this thread's stores";
  let description = [{
    `cp.async.bulk.wait_group.read 0` in every thread: the thread that
    issued `tilegpu.tma_store`s waits until TMA has read all their
    buffers; the others have none to wait for. With a CTA barrier after
    it, every thread may write those buffers again. `tilegpu-insert-barriers`
    places it before the barrier that precedes such a write, and at the
    kernel's end (the CTA's shared memory must outlive the reads), so that
    the read overlaps whatever the kernel does in between.

    ```mlir
    tilegpu.tma_store_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILEC_TILEGPU_OPS
