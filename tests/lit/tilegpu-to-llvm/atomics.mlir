// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-to-llvm -split-input-file | FileCheck %s

// tile.atomic_rmw and tile.atomic_cas to PTX `atom` / `red` in inline
// assembly (AtomicOpToLLVM.cpp). The allocator gives a used result held by
// several threads its scratch.

// An unused result with relaxed semantics: `red`, nothing waits for the
// old value. One element per thread: no predicate but `true`.
// CHECK-LABEL: llvm.func @red_unused
// CHECK: llvm.inline_asm has_side_effects "@$0 red.relaxed.gpu.global.add.f32 [$1], $2;", "b,l,r"
// CHECK-NOT: atom.
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @red_unused(%x: !tile.ptr<f32>, %v: f32) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #blocked>
    %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %vs = tile.splat %v : tensor<128xf32, #blocked>
    %o = tile.atomic_rmw add, %xp, %vs {sem = 0 : i32} : tensor<128x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// A used result (default acq_rel, gpu): `atom`, its register zeroed
// first so that masked-off lanes read 0; the mask is the predicate.
// CHECK-LABEL: llvm.func @atom_used
// CHECK: %[[MASK:.*]] = llvm.icmp "slt"
// CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, 0;\0A@$1 atom.acq_rel.gpu.global.add.f32 $0, [$2], $3;", "=&r,b,l,r" %{{.*}}, %{{.*}}, %{{.*}} : (i1, !llvm.ptr<1>, i32) -> i32
// CHECK: %[[F:.*]] = llvm.bitcast %[[OLD]] : i32 to f32
// CHECK-NOT: red.
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @atom_used(%x: !tile.ptr<f32>, %v: f32, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #blocked>
    %ns = tile.splat %n : tensor<128xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #blocked>
    %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %vs = tile.splat %v : tensor<128xf32, #blocked>
    %o = tile.atomic_rmw add, %xp, %vs, %m : tensor<128x!tile.ptr<f32>, #blocked>
    tile.store %xp, %o : tensor<128x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// sm_90: four consecutive, 16-byte aligned f32 adds per thread are one
// `.v4.f32` instruction.
// CHECK-LABEL: llvm.func @vector
// CHECK: llvm.inline_asm has_side_effects "@$0 red.relaxed.gpu.global.add.v4.f32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r"
// CHECK-NOT: global.add
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @vector(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #blocked>
    %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tile.load %yp : tensor<512x!tile.ptr<f32>, #blocked>
    %o = tile.atomic_rmw add, %xp, %v {sem = 0 : i32} : tensor<512x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// sm_80 has no vector atomics: four scalar ones.
// CHECK-LABEL: llvm.func @vector80
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "@$0 red.relaxed.gpu.global.add.f32 [$1], $2;", "b,l,r"
// CHECK-NOT: global.add
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @vector80(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #blocked>
    %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %v = tile.load %yp : tensor<512x!tile.ptr<f32>, #blocked>
    %o = tile.atomic_rmw add, %xp, %v {sem = 0 : i32} : tensor<512x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// f32 max as integer atomics split on the sign: max.s32 where the value
// is non-negative, min.u32 where it is negative, an or of 0 (a read) for
// a NaN value.
// CHECK-LABEL: llvm.func @fmax
// CHECK: llvm.fcmp "uno"
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, 0;\0A@$1 atom.acq_rel.gpu.global.max.s32 $0, [$4], $5;\0A@$2 atom.acq_rel.gpu.global.min.u32 $0, [$4], $5;\0A@$3 atom.acq_rel.gpu.global.or.b32 $0, [$4], 0;\0A", "=&r,b,b,b,l,r"
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @fmax(%x: !tile.ptr<f32>, %v: f32) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #blocked>
    %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %vs = tile.splat %v : tensor<128xf32, #blocked>
    %o = tile.atomic_rmw max, %xp, %vs : tensor<128x!tile.ptr<f32>, #blocked>
    tile.store %xp, %o : tensor<128x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// f16 max has no PTX instruction: a compare-and-swap loop on 16 bits
// (an atom even though the result is unused).
// CHECK-LABEL: llvm.func @hmax
// CHECK: llvm.inline_asm has_side_effects "{{.*}}ld.global.b16 %old, [$2];\0ALOOP${:uid}:{{.*}}setp.gt.and.s16 %take, %kv, %ko, %ordered;{{.*}}atom.relaxed.gpu.global.cas.b16 $0, [$2], %old, %new;{{.*}}@%again bra LOOP${:uid};{{.*}}", "=&h,b,l,h"
// CHECK-NOT: red.
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @hmax(%x: !tile.ptr<f16>, %v: f16) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #blocked>
    %xs = tile.splat %x : tensor<128x!tile.ptr<f16>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f16>, #blocked>, tensor<128xi32, #blocked>
    %vs = tile.splat %v : tensor<128xf16, #blocked>
    %o = tile.atomic_rmw max, %xp, %vs {sem = 0 : i32} : tensor<128x!tile.ptr<f16>, #blocked>
    return
  }
}

// -----

// A scalar atomic whose result is used: thread 0 performs it and shares
// the old value through the op's shared scratch, after a barrier.
// CHECK: tilegpu.shared_bytes = 16
// CHECK-LABEL: llvm.func @scalar_used
// CHECK: %[[OWNER:.*]] = llvm.icmp "eq"
// CHECK: nvvm.barrier0
// CHECK: %[[OLD:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, 0;\0A@$1 atom.acq_rel.gpu.global.add.u32 $0, [$2], $3;", "=&r,b,l,r" %[[OWNER]], %arg0
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tilec_shared : !llvm.ptr<3>
// CHECK: %[[BITS:.*]] = llvm.bitcast %[[OLD]] : i32 to i32
// CHECK: llvm.inline_asm has_side_effects "@$0 st.shared.b32 [ $1 + 0 ], $2;", "b,r,r" %{{.*}}, %{{.*}}, %[[BITS]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[SHARED:.*]] = llvm.load %[[BASE]] : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.getelementptr inbounds %arg1[%[[SHARED]]]
// CHECK: llvm.return
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @scalar_used(%x: !tile.ptr<i32>, %y: !tile.ptr<i32>) {
    %c1 = arith.constant 1 : i32
    %o = tile.atomic_rmw add, %x, %c1 : !tile.ptr<i32>
    %ys = tile.addptr %y, %o : !tile.ptr<i32>, i32
    tile.store %ys, %o : !tile.ptr<i32>
    return
  }
}

// -----

// Compare-and-swap: compare value, then the new value; thread 0 performs
// a scalar one. Its result is unused but it stays an atom. The program
// acquires through it: a barrier follows (none before: it does not release).
// CHECK-LABEL: llvm.func @cas
// CHECK: %[[OWNER:.*]] = llvm.icmp "eq"
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, 0;\0A@$1 atom.acquire.cta.global.cas.b32 $0, [$2], $3, $4;", "=&r,b,l,r,r" %[[OWNER]], %arg0, %arg1, %arg2
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.return
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @cas(%x: !tile.ptr<i32>, %c: i32, %v: i32) {
    %o = tile.atomic_cas %x, %c, %v {sem = 1 : i32, scope = 0 : i32} : !tile.ptr<i32>
    return
  }
}

// -----

// 16 elements over 128 threads: each element's owner performs it
// (umax on u64, sys scope), the old values go through 16 x 8 bytes of
// scratch to every thread holding a copy.
// CHECK: tilegpu.shared_bytes = 128
// CHECK-LABEL: llvm.func @copies
// CHECK-COUNT-1: atom.acq_rel.sys.global.max.u64 $0, [$2], $3;", "=&l,b,l,l"
// CHECK: st.shared.b64
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> i64
// CHECK-NOT: atom.
// CHECK: llvm.return
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @copies(%x: !tile.ptr<i64>, %v: i64) {
    %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #blocked>
    %xs = tile.splat %x : tensor<16x!tile.ptr<i64>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<16x!tile.ptr<i64>, #blocked>, tensor<16xi32, #blocked>
    %vs = tile.splat %v : tensor<16xi64, #blocked>
    %o = tile.atomic_rmw umax, %xp, %vs {scope = 2 : i32} : tensor<16x!tile.ptr<i64>, #blocked>
    tile.store %xp, %o : tensor<16x!tile.ptr<i64>, #blocked>
    return
  }
}
