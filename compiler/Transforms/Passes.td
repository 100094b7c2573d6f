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

def TileWidenFP8 : Pass<"tile-widen-fp8", "mlir::ModuleOp"> {
  let summary = "Compute arithmetic on fp8 values in f32";
  let description = [{
    GPUs convert fp8 and multiply it in tensor cores, but have no fp8
    adds, compares or math functions. Every `arith` and `math` op on fp8
    values (scalars or tensors, reduction and scan combiners included),
    other than constants, selects, bitcasts and conversions between fp8
    and other floats, is rebuilt on f32: its fp8 operands extended with
    `arith.extf`, its fp8 results rounded back with `arith.truncf`. For
    `+ - * /` and `sqrt` of fp8 operands, f32 holds more than twice the
    bits fp8 needs, so rounding the f32 result once more gives the
    correctly rounded fp8 result; conversions to fp8 saturate, as the
    hardware's do. The interpreter computes fp8 the same way. Runs before
    the first canonicalisation, so that no fold computes on fp8 constants
    with APFloat's overflow rules.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileLowerDescriptors : Pass<"tile-lower-descriptors", "mlir::ModuleOp"> {
  let summary = "Read tensor descriptors' blocks through TMA where it pays, else through pointers";
  let description = [{
    With `tensor-maps` (sm_90 or newer, not a debug compile), a
    `tile.descriptor_load` (`desc.load`) becomes a `tile.tensormap_load`
    through a new last `!tile.tensormap` argument of the kernel, whose
    `tile.tensormap` attribute tells the launcher how to encode it from the
    kernel's other arguments (compiler/TensorMap.h), when: the block is
    2-D, of 8-, 16- or 32-bit elements, at most 256 rows of whole 16-byte
    multiples (tmaBlockLayout); the base is an argument known 16-byte
    aligned (`:16`); every size is an argument or a constant, every stride
    but the last (1) an argument or a constant whose bytes are known
    multiples of 16 (`:16`, or `:8` for 16-bit elements); NaN padding only
    for f16, bf16 and f32; and the block is an operand of a `tile.dot`
    wgmma can run on `num-warps` warps (directly or through `tile.trans`),
    where the copy lands in the shared buffer the tensor cores read.

    Every other one becomes the masked `tile.load` of its elements: the
    pointers base + sum over d of (offset_d + arange(block_d)) * stride_d,
    masked to 0 <= index_d < size_d, reading the padding (zero or NaN)
    outside. A stride of 1 adds no multiplication, so that the analyses see
    the block's rows contiguous. Runs after inlining, before the first
    canonicalisation.

    A `tile.descriptor_store` (`desc.store`) of a 2-D block with rows of 32
    bytes or more becomes a `tile.tensormap_store` through a map of its own
    when the same conditions on the base, sizes and strides hold for every
    store of its tensor, nothing else uses the tensor's base and the kernel
    has no atomic or volatile load; the rest become masked `tile.store`s.
    TMA ends a row's writes only at a 16-byte boundary, so a tensor whose
    last size is a constant leaving its rows short of one is written
    through pointers, and one whose last size is an argument not known to
    make whole chunks tests it once at the kernel's entry and takes, in
    every store, the pointer path (`scf.if`) where its rows are ragged.
  }];
  let options = [
    Option<"tensorMaps", "tensor-maps", "bool", "false",
           "Read blocks through TMA where it pays (sm_90 or newer)">,
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per CTA (whether a dot fits wgmma)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileCheckDeterministic : Pass<"tile-check-deterministic", "mlir::ModuleOp"> {
  let summary = "Reject what could make a kernel's floats depend on the grid or the batch";
  let description = [{
    The check of a `deterministic=True` compile (batch invariance: a row's
    result must not change with the other rows launched beside it, nor
    with the grid). Runs on the inlined tile IR and changes nothing; each
    violation is an error at the op's location:

    - a `tile.atomic_rmw` or `tile.atomic_cas` of floating-point values:
      which update lands when (and so the rounding of a sum) is timing's;
    - an `scf.for` that accumulates floats (carries a float each iteration
      combines with the last, or stores a float computed from a load of
      the same address) whose lower bound or step depends on
      `tile.num_programs` or on runtime data (a scalar argument, a loaded
      value), as the runtime-dependence analysis finds, or whose upper
      bound or other carried values depend on `tile.num_programs`: the
      partition of the sum, and so its rounding, would change with them;
    - an `scf.while` accumulating floats whose integer carried values (its
      counters) depend on either, or whose other carried values or
      condition depend on the grid.

    Reductions and scans over a tile combine in an order fixed at compile
    time and are always allowed, as are integer atomics (exact).
  }];
}

def TileCheckBounds : Pass<"tile-check-bounds", "mlir::ModuleOp"> {
  let summary = "Check every load and store against its pointer argument's buffer";
  let description = [{
    The bounds checks of a debug compile (Triton's debug=True). Every kernel
    gets one i64 argument more per pointer argument, after all of them and
    in their order (marked `tile.extent_of = <index>`): the bytes the
    caller's buffer holds from that pointer on, which the launcher passes.
    Every `tile.load` and `tile.store` whose addresses all come from one
    pointer argument (through addptr, splat, broadcast, expand_dims,
    reshape, trans, selects, and values carried by `scf.for` and `scf.if`
    that stay derived from it) is preceded by a `tile.assert` that each
    unmasked element's bytes lie inside that extent, reporting the byte
    offset and the extent. Accesses through pointers of other origins are
    not checked. The message names the argument by its `tile.arg_name`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TilePrefetchLoads : Pass<"tile-prefetch-loads", "mlir::ModuleOp"> {
  let summary = "Load the next iteration's dot operands while this one computes";
  let description = [{
    In an `scf.for` whose `tile.load`s feed a `tile.dot`, each such load
    whose pointer, mask and `other` can be recomputed for the next
    iteration from invariants, the induction variable and the iteration
    arguments (through pure ops) moves one iteration ahead: the loop
    carries the loaded tile, the first is loaded before the loop and the
    next at the top of each iteration, masked off when that iteration does
    not run. Two stages of software pipelining, through registers.

    With `async-copy` (the target has cp.async), loads that
    `tilegpu-pipeline-loads` can take (no `other`, or a zero one) in loops
    of two or more stages (`tile.num_stages`, else `num-stages`) are left
    to it, and so are loads that reach the dot through one `tile.trans`
    when the dot will run on tensor cores (wgmma or mma.sync: its types and
    K suit mma.sync), which read the transpose through a view of the tile's
    buffer.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "1",
           "Pipeline stages of loops without a tile.num_stages attribute">,
    Option<"asyncCopy", "async-copy", "bool", "false",
           "tilegpu-pipeline-loads will pipeline loops of 2+ stages">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
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
  let summary = "Give every tensor a default distributed layout";
  let description = [{
    Every tensor type gets the row-major `#tilegpu.blocked` layout of its
    shape with one element per thread; the sliced tensors of `expand_dims`
    and `reduce` get the `#tilegpu.slice` of their full tensors' layout, with
    a `tilegpu.convert_layout` to or from the default. The module records
    `tilegpu.num_warps` and `tilegpu.target`. Correct but slow:
    `tilegpu-coalesce` and `tilegpu-remove-layout-conversions` choose the
    layouts worth having.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "Warps per CTA">,
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "GPU target (sm_80, sm_86, sm_89, sm_90a, ...)">,
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUCoalesce : Pass<"tilegpu-coalesce", "mlir::ModuleOp"> {
  let summary = "Lay out global loads and stores for the widest coalesced accesses";
  let description = [{
    For each `tile.load` and `tile.store` of a pointer tensor: the blocked
    layout whose fastest dimension is the pointer's most contiguous one (by
    axis info) and whose `sizePerThread` there is the widest access
    contiguity and alignment allow (16 bytes at most). The op is rebuilt in
    that layout, between conversions from and to the layouts around it.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUAccelerateMatmul : Pass<"tilegpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Choose the instruction of every tile.dot and its layouts";
  let description = [{
    For each `tile.dot`: on a target with `mma.sync` (sm_80+), operands
    f16, bf16, i8, or f32 with `tf32`/`tf32x3` precision, and K a multiple
    of the instruction's K, the result and accumulator take an
    `#tilegpu.mma` layout (warps spread over M and N in proportion to the
    tile) and the operands `#tilegpu.dot_op` layouts of it. On sm_90a an
    f16/bf16 dot with an f32 accumulator whose tiles allow it becomes a
    `tilegpu.warp_group_dot` (wgmma) instead: its operands go into
    `#tilegpu.nvmma_shared` buffers (a `tl.trans`'d tile through a
    `tilegpu.memdesc_trans` view of its own), or, for an A the loop
    computes, stay in registers; the accumulator is `#tilegpu.mma`
    version 3. Otherwise
    (`ieee` f32, or a K the instruction does not divide) the dot becomes
    per-thread fused multiply-adds: a `#tilegpu.blocked` accumulator with
    a block of elements per thread, and `#tilegpu.dot_op` operands of that
    parent. Conversions join the new layouts to the old ones; later passes
    remove those that need not stay.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Spread the accesses' layouts to their neighbours, removing conversions";
  let description = [{
    Groups the tensors that must share a layout (by the ops' traits and
    interfaces: SameOperandsAndResultEncoding, Elementwise,
    RegionBranchOpInterface, SliceLayoutOpInterface), merges groups across
    each `tilegpu.convert_layout` unless they are anchored to different
    layouts, gives each group its layout and folds the conversions between
    equal types. Cheap index chains used by several ops are cloned per use
    first; conversions left whose operand is cheap to recompute are
    replaced by the computation in the wanted layout. An op with tensors
    and no layout rule is an error.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUDecomposeConversions
    : Pass<"tilegpu-decompose-conversions", "mlir::ModuleOp"> {
  let summary = "Route conversions between warps through a swizzled shared buffer";
  let description = [{
    A `tilegpu.convert_layout` that moves elements between warps becomes
    `tilegpu.local_alloc` + `tilegpu.local_load` through a buffer whose
    `#tilegpu.shared_linear` layout is computed from the two layouts: the
    vector both sides can move lowest, rows XOR-swizzled so that neither
    side has bank conflicts. Conversions within a warp stay.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUWarpSpecialize : Pass<"tilegpu-warp-specialize", "mlir::ModuleOp"> {
  let summary = "A producer warpgroup issuing a marked loop's TMA loads ahead of the compute warps";
  let description = [{
    For the `scf.for` marked `tile.warp_specialize` (`tl.range(...,
    warp_specialize=True)`, one per kernel, at its top level) whose dot
    operands are `tile.tensormap_load`s, on sm_90a: rings of S buffers
    (`tile.num_stages`, else `num-stages`; fewer where they would not fit)
    and full/empty mbarriers allocated and initialised at the kernel's
    entry; the kernel split by `tilegpu.warp_id` into an `scf.if` marked
    `tilegpu.warp_roles`. Its then-region is a producer warpgroup that
    gives registers back (`set_max_registers` 40) and whose first warp
    repeats the pure ops the coordinates need, then loops: wait for a free
    slot, announce its bytes, issue the TMA copies, from lane 0. Its
    else-region is the kernel's own code for the num_warps consumers,
    which take the registers, the loop waiting on each slot's full
    barrier, its dots reading the slot, and one `arrive_barrier` per warp
    freeing it. Sets the module's `tilegpu.producer_warps` (4). Before
    sm_90a, or where the operands are not all TMA reads, the mark is
    dropped; on sm_90a a marked loop of TMA reads it cannot specialise is
    an error.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3",
           "Stages of loops without a tile.num_stages attribute">,
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileGPUPipelineLoads : Pass<"tilegpu-pipeline-loads", "mlir::ModuleOp"> {
  let summary = "Software-pipeline a loop's dot operand loads through cp.async and a ring of buffers";
  let description = [{
    In an `scf.for` of S >= 2 stages (`tile.num_stages`, else `num-stages`)
    whose `tile.load`s reach a `tile.dot` through a `local_alloc` and
    `local_load`s, each such load becomes `tilegpu.async_copy_global_to_local`
    into one buffer of a ring of S (`tilegpu.memdesc_index`): the first S-1
    iterations' copies are started before the loop, each iteration waits
    for its own (`tilegpu.async_wait`) and starts those of the iteration
    S-1 ahead, masked off past the end. The ops computing the loads'
    addresses run S-1 iterations ahead. Loops that write global memory,
    loads with a nonzero `other` or narrower than 4-byte vectors, and
    addresses that feed anything else are left alone; S shrinks when the
    rings would not fit the target's shared memory. Needs sm_80+.
    `tile.tensormap_load`s of dot operands (sm_90) join the dots' loads as
    TMA copies into the rings, each slot completing on its own mbarrier,
    which each iteration waits on with the phase parity the loop carries.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3",
           "Stages of loops without a tile.num_stages attribute">,
  ];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPULowerTensorMapStores
    : Pass<"tilegpu-lower-tensormap-stores", "mlir::ModuleOp"> {
  let summary = "TMA stores of the tensormap_stores, through swizzled shared buffers";
  let description = [{
    Each `tile.tensormap_store` becomes a `local_alloc` of its value in the
    layout TMA reads (getTMABufferEncoding: 2-D, swizzled) and a
    `tilegpu.tma_store` of that buffer; tilegpu-insert-barriers orders the
    threads' writes before the copies and waits for the copies' reads
    before the bytes are written again (tilegpu.tma_store_wait). Runs before the passes that size loops' rings
    (warp specialisation, pipelining), so that they count the buffer.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPULowerTensorMapLoads
    : Pass<"tilegpu-lower-tensormap-loads", "mlir::ModuleOp"> {
  let summary = "TMA copies for the tensormap_loads no pipeline took";
  let description = [{
    Each remaining `tile.tensormap_load` becomes a mutable buffer in the
    layout TMA writes (getTMABufferEncoding), an mbarrier, and
    `init_barrier`, `barrier_expect` of the block's bytes,
    `async_tma_copy_global_to_local`, `wait_barrier` on phase 0 and
    `inval_barrier`. A `local_alloc` of the loaded tile in that same
    layout (the buffer of a wgmma operand) is replaced by the buffer
    itself, its transposed views rebuilt on it; other users read the
    buffer with a `local_load`.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect"];
}

def TileGPUStrengthReduceDivisions
    : Pass<"tilegpu-strength-reduce-divisions", "mlir::ModuleOp"> {
  let summary = "Divide by loop-invariant values with a reciprocal computed before the loop";
  let description = [{
    An `arith.divsi`, `divui`, `remsi` or `remui` of i32 inside a loop
    whose divisor is defined outside it (and is not a constant) becomes a
    multiply-high by a reciprocal and two shifts (Granlund and Montgomery's
    round-up method, exact for every dividend), signed ones on magnitudes
    with the sign put back; the reciprocal (a 32-step restoring division,
    no 64-bit divide: that is a call) is computed once, before the
    outermost loop the divisor is invariant in, dividing by 1 where the
    divisor is 0. Left alone: divisions that loops of known trip counts run
    fewer than 16 times, and loops of dots (`tile.dot`,
    `tilegpu.warp_group_dot`), which neither get the setup placed before
    them nor have theirs reduced.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileGPUAllocateShared : Pass<"tilegpu-allocate-shared", "mlir::ModuleOp"> {
  let summary = "Give every shared buffer and scratch an offset in one arena";
  let description = [{
    Buffers (`local_alloc`) live from their allocation to their last use,
    scratch (reductions and scans across warps) during its op; buffers
    alive at the same time never overlap. Sets `tilegpu.shared_offset` on
    each and the module's `tilegpu.shared_bytes`; a kernel that needs more
    than its target allows one block is an error.
  }];
}

def TileGPUInsertBarriers : Pass<"tilegpu-insert-barriers", "mlir::ModuleOp"> {
  let summary = "Insert the barriers shared-memory hazards need, and no others";
  let description = [{
    Tracks the byte ranges read and written since the last barrier through
    the kernel (both arms of an scf.if, loops to a fixpoint) and inserts a
    `tilegpu.barrier` before an access that would race with one of them
    (read after write, write after read or write). A TMA store's buffer is
    read until a `tilegpu.tma_store_wait`, which the pass puts before the
    barrier that precedes the bytes' next write, and at the kernel's end.
  }];
  let dependentDialects = ["::tilec::tilegpu::TileGPUDialect"];
}

def TileGPUToLLVM : Pass<"tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tilegpu IR to the LLVM and NVVM dialects";
  let description = [{
    Each distributed tensor becomes an LLVM struct of the registers one
    thread holds, read off its linear layout (compiler/Dialect/TileGPU/
    LinearLayout.h). Loads and stores become vector accesses as wide as the
    layout, contiguity, alignment and the mask's constancy allow, predicated
    when masked; `convert_layout` becomes a register permutation or warp
    shuffles; shared buffers and scratch use the offsets of
    `tilegpu-allocate-shared`; kernels become `llvm.func`s with
    `nvvm.kernel` and `nvvm.reqntid` (and `nvvm.maxnreg` with
    max-registers). The target comes from the module's `tilegpu.target`.
  }];
  let options = [
    Option<"maxRegisters", "max-registers", "unsigned", /*default=*/"0",
           "Most registers per thread the kernel may use (PTX .maxnreg, "
           "Triton's maxnreg); 0 leaves it to ptxas">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TilecAttachLineInfo : Pass<"tilec-attach-line-info", "mlir::ModuleOp"> {
  let summary = "Give the LLVM functions debug scopes, for .file/.loc in the PTX";
  let description = [{
    Attaches a compile unit of kind DebugDirectivesOnly and a subprogram to
    every `llvm.func` with a body, and rewrites the locations of its ops so
    that translation to LLVM IR gives each a debug location: an op written
    in an inlined helper (a call site whose callee `tile-inline` named after
    the helper) is scoped to a subprogram of that helper, inlined at the
    call. LLVM's NVPTX back end then writes `.file` and `.loc` for the
    kernel's lines, and `ptxas -lineinfo` (or the driver's
    CU_JIT_GENERATE_LINE_INFO) maps the machine code to them. Runs last, on
    the LLVM dialect, unless line info is turned off
    (TILEC_DISABLE_LINE_INFO=1, `tilec compile --no-line-info`).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TILEC_PASSES
