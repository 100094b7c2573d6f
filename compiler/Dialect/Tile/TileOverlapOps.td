// Operations of the tile dialect that let a kernel overlap the one before
// it on the stream: programmatic dependent launch's wait and release, and
// requests of memory into the L2 ahead of the loads that read it.
// Included by TileOps.td.
#ifndef TILEC_TILE_OVERLAP_OPS
#define TILEC_TILE_OVERLAP_OPS

// Programmatic dependent launch (sm_90+): a kernel launched with launch_pdl
// may start while the kernel before it on the stream still runs; these two
// say where it waits for that kernel and where it lets the next one start.
def Tile_GridDependencyWaitOp : Tile_Op<"grid_dependency_wait", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Wait until the grids this one depends on have finished";
  let description = [{
    `tl.extra.cuda.gdc_wait()`: `griddepcontrol.wait` on sm_90+, which
    returns once the kernel launched before this one (with launch_pdl) has
    finished and its memory writes are visible; what the program reads or
    writes of that kernel's data must come after it. Nothing where there
    is no such launch (before sm_90, the interpreter, which runs launches
    one after the other), nor where the launch had no launch_pdl.
  }];
  let assemblyFormat = "attr-dict";
}

// (A write of memory it does not order, so that nothing erases or moves it;
// a loop holding it is then not software-pipelined, as with a store.)
def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Let the next kernel on the stream start launching";
  let description = [{
    `tl.extra.cuda.gdc_launch_dependents()`: `griddepcontrol.launch_dependents`
    on sm_90+: once every program of this grid has run it (or finished),
    a kernel launched after it with launch_pdl may start, up to its own
    `grid_dependency_wait`. It orders no memory: the next kernel's wait
    still waits for this whole grid. Nothing before sm_90 or in the
    interpreter.
  }];
  let assemblyFormat = "attr-dict";
}

// What tile.prefetch_l2 writes: the cache's contents, which no load sees.
// That write keeps the op alive although nothing uses it, without making
// it a write of memory (a loop that prefetches is still
// software-pipelined); its read of memory keeps it in order with the
// writes and the grid_dependency_wait around it, while loads may move past
// it.
def Tile_CacheHint : Resource<"::tilec::tile::CacheHint">;

def Tile_PrefetchL2Op : Tile_Op<"prefetch_l2", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<Tile_CacheHint>]>]> {
  let summary = "Ask the L2 to fetch a range of global memory";
  let description = [{
    `tl.extra.cuda.prefetch_l2(pointer, count)`: the `count` elements from
    `pointer` on are requested into the L2, by one thread of the program,
    without waiting for them. A hint: no value changes, and the loads that
    read the range later find it there if it has arrived and stayed. Its
    use is before a `grid_dependency_wait`, where a kernel launched with
    launch_pdl fetches what the kernel before it does not write (its
    weights) while that kernel still runs.

    On sm_90+ one `cp.async.bulk.prefetch.L2` of the 16-byte-aligned bytes
    inside the range (none where it holds no whole aligned 16 bytes, or
    `count` <= 0; at most 4 GiB - 16), by thread 0; nothing before sm_90.
    The interpreter checks that the range lies inside the argument it
    points into, as for a load (a debug compile's bounds checks do not).

    ```mlir
    tile.prefetch_l2 %w, %n : !tile.ptr<bf16>
    ```
  }];
  let arguments = (ins Tile_Ptr:$ptr, I64:$count);
  let assemblyFormat = "$ptr `,` $count attr-dict `:` type($ptr)";
}

#endif // TILEC_TILE_OVERLAP_OPS
