// RUN: tilec-opt %s -split-input-file -tile-to-tilegpu=num-warps=4 -tilegpu-accelerate-matmul | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-to-tilegpu="num-warps=8 target=sm_80" -tilegpu-accelerate-matmul | FileCheck %s --check-prefix=W8

// f16 on sm_90a: wgmma. Each operand is written, from the layout it was
// computed in, into a buffer in wgmma's layout: A (64 x 32, K contiguous
// in its registers) with 64-byte rows, B (whose registers run along
// neither dimension longer) kept K-major; the accumulator is a version-3
// mma layout of one warpgroup. On sm_80 (W8) the same dot is mma.sync.
// CHECK-DAG: #[[ACC:mma[0-9]*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
// CHECK-LABEL: func.func @f16
// CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>>
// CHECK: %[[B:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[D:.*]] = tilegpu.warp_group_dot %[[A]], %[[B]], %[[C]]
// CHECK: tilegpu.convert_layout %[[D]]
// W8: #tilegpu.mma<{version = 2, warpsPerCTA = [2, 4], instrShape = [16, 8]}>
func.func @f16(%x: f16, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x32xf16>
  %b = tile.splat %x : tensor<32x64xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A tall tile puts the warps along M; tf32 has one element per register.
// CHECK: #[[TALL:mma[0-9]*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK: #tilegpu.dot_op<{opIdx = 0, parent = #[[TALL]], kWidth = 1}>
// CHECK-LABEL: func.func @tf32_tall
// CHECK: tile.dot {{.*}} -> tensor<128x16xf32, #[[TALL]]>
func.func @tf32_tall(%x: f32, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<128x16xf32>
  %b = tile.splat %x : tensor<16x16xf32>
  %c = tile.splat %y : tensor<128x16xf32>
  %d = tile.dot %a, %b, %c : tensor<128x16xf32>, tensor<16x16xf32> -> tensor<128x16xf32>
  %ps = tile.splat %p : tensor<128x16x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<128x16x!tile.ptr<f32>>
  return
}

// -----

// ieee f32 has no tensor-core instruction: per-thread FMAs over a blocked
// accumulator of 4 x 4 elements per thread.
// CHECK: #[[P:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[PA:dot_op[0-9]*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[P]], kWidth = 1}>
// CHECK-LABEL: func.func @ieee
// CHECK: tile.dot {{.*}} {inputPrecision = 2 : i32} : tensor<64x32xf32, #[[PA]]>, {{.*}} -> tensor<64x64xf32, #[[P]]>
func.func @ieee(%x: f32, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x32xf32>
  %b = tile.splat %x : tensor<32x64xf32>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c {inputPrecision = 2 : i32} : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// i8 with K = 16: m16n8k32 cannot take it, so FMAs in i32.
// CHECK-LABEL: func.func @i8_short_k
// CHECK-NOT: #tilegpu.mma
// CHECK: tile.dot {{.*}} -> tensor<32x32xi32, #blocked
func.func @i8_short_k(%x: i8, %y: i32, %p: !tile.ptr<i32>) {
  %a = tile.splat %x : tensor<32x16xi8>
  %b = tile.splat %x : tensor<16x32xi8>
  %c = tile.splat %y : tensor<32x32xi32>
  %d = tile.dot %a, %b, %c : tensor<32x16xi8>, tensor<16x32xi8> -> tensor<32x32xi32>
  %ps = tile.splat %p : tensor<32x32x!tile.ptr<i32>>
  tile.store %ps, %d : tensor<32x32x!tile.ptr<i32>>
  return
}

// -----

// A batch takes the warps first.
// CHECK: #[[BM:mma[0-9]*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1, 2], instrShape = [1, 16, 8]}>
// CHECK-LABEL: func.func @batched
// CHECK: tile.dot {{.*}} -> tensor<2x32x32xf32, #[[BM]]>
func.func @batched(%x: bf16, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<2x32x16xbf16>
  %b = tile.splat %x : tensor<2x16x32xbf16>
  %c = tile.splat %y : tensor<2x32x32xf32>
  %d = tile.dot %a, %b, %c : tensor<2x32x16xbf16>, tensor<2x16x32xbf16> -> tensor<2x32x32xf32>
  %ps = tile.splat %p : tensor<2x32x32x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<2x32x32x!tile.ptr<f32>>
  return
}

// -----

// Where wgmma does not fit, sm_90a keeps mma.sync: 32 rows are half a
// warpgroup's 64, and a tile carried into the loop's next iteration in
// registers (as tile-prefetch-loads carries tiles cp.async cannot copy)
// would be stored into a buffer and waited for in every iteration.
// CHECK-LABEL: func.func @short_m
// CHECK: tile.dot {{.*}} -> tensor<32x64xf32, #mma{{[0-9]*}}>
// CHECK-NOT: warp_group_dot
// CHECK-LABEL: func.func @carried
// CHECK: scf.for
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #mma{{[0-9]*}}>
// CHECK-NOT: warp_group_dot
func.func @short_m(%x: f16, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<32x32xf16>
  %b = tile.splat %x : tensor<32x64xf16>
  %c = tile.splat %y : tensor<32x64xf32>
  %d = tile.dot %a, %b, %c : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  %ps = tile.splat %p : tensor<32x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<32x64x!tile.ptr<f32>>
  return
}
func.func @carried(%x: f16, %y: f32, %n: i32, %p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a0 = tile.splat %x : tensor<64x32xf16>
  %b = tile.splat %x : tensor<32x64xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %acc = %c) -> (tensor<64x32xf16>, tensor<64x64xf32>) : i32 {
    %d = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %next = arith.addf %a, %a : tensor<64x32xf16>
    scf.yield %next, %d : tensor<64x32xf16>, tensor<64x64xf32>
  }
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %r#1 : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// x @ W^T and X^T @ y: a tl.trans'd operand is read through a transposed
// view of its tile's buffer. W's tile (64 x 32) is buffered as it is, with
// its own contiguous dimension (K, dimension 1), and the view (32 x 64,
// order [0, 1]) is a K-major B. X's 32 x 64 tile runs along neither
// dimension longer in its registers, so K (its dimension 0) is kept
// contiguous, and the view is a K-major A. (The column-major tiles of
// test_dot_trans.py give the M- and N-major views.)
// CHECK-LABEL: func.func @trans_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>>
// CHECK: %[[W:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>>
// CHECK: %[[WT:.*]] = tilegpu.memdesc_trans %[[W]] : {{.*}} -> !tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>>
// CHECK: tilegpu.warp_group_dot %[[A]], %[[WT]], %{{.*}}
// CHECK-NOT: tile.dot
// CHECK-LABEL: func.func @trans_a
// CHECK: %[[X:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>>
// CHECK: %[[XT:.*]] = tilegpu.memdesc_trans %[[X]] : {{.*}} -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>>
// CHECK: tilegpu.warp_group_dot %[[XT]], %{{.*}}, %{{.*}}
// W8-LABEL: func.func @trans_b
// W8: tile.trans
// W8: tile.dot
// W8-NOT: memdesc_trans
func.func @trans_b(%x: f16, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x32xf16>
  %w = tile.splat %x : tensor<64x32xf16>
  %b = tile.trans %w {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}
func.func @trans_a(%x: f16, %y: f32, %p: !tile.ptr<f32>) {
  %xt = tile.splat %x : tensor<32x64xf16>
  %a = tile.trans %xt {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
  %b = tile.splat %x : tensor<32x64xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// The transpose of a tile the loop produces in registers keeps mma.sync,
// as the tile itself would.
// CHECK-LABEL: func.func @trans_carried
// CHECK: scf.for
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #mma{{[0-9]*}}>
// CHECK-NOT: warp_group_dot
func.func @trans_carried(%x: f16, %y: f32, %n: i32, %p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.splat %x : tensor<64x32xf16>
  %w0 = tile.splat %x : tensor<64x32xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%w = %w0, %acc = %c) -> (tensor<64x32xf16>, tensor<64x64xf32>) : i32 {
    %b = tile.trans %w {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %a, %b, %acc : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %next = arith.addf %w, %w : tensor<64x32xf16>
    scf.yield %next, %d : tensor<64x32xf16>, tensor<64x64xf32>
  }
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %r#1 : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A chained dot: the loop computes the second dot's A (the first's
// product, rounded to f16) in registers; it is converted to the
// accumulator's operand-A layout and multiplied from there, while B (and
// both operands of the first dot, from outside the loop) are buffers.
// CHECK: #[[OPA:dot_op[0-9]*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[ACC:mma[0-9]*]], kWidth = 2}>
// CHECK-LABEL: func.func @chained
// CHECK: scf.for
// CHECK: tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} : !tilegpu.memdesc{{.*}} -> tensor<64x64xf32, #[[ACC]]>
// CHECK: %[[P:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<64x64xf16, #[[OPA]]>
// CHECK: tilegpu.warp_group_dot %[[P]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[OPA]]>, !tilegpu.memdesc
// W8-LABEL: func.func @chained
// W8-NOT: warp_group_dot
func.func @chained(%x: f16, %y: f32, %n: i32, %p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.splat %x : tensor<64x32xf16>
  %k = tile.splat %x : tensor<32x64xf16>
  %v = tile.splat %x : tensor<64x64xf16>
  %zero = tile.splat %y : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %s = tile.dot %q, %k, %zero : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    %pr = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
    %d = tile.dot %pr, %v, %acc : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %r : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// Two dots reading one tile in the same layout (gate and up projections
// of one x) share its buffer: one local_alloc of A, one of each B.
// CHECK-LABEL: func.func @shared_operand
// CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x32xf16
// CHECK-NOT: tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x32xf16
// CHECK: tilegpu.warp_group_dot %[[A]],
// CHECK: tilegpu.warp_group_dot %[[A]],
func.func @shared_operand(%x: f16, %z: f16, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x32xf16>
  %b = tile.splat %x : tensor<32x64xf16>
  %e = tile.splat %z : tensor<32x64xf16>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %f = tile.dot %a, %e, %d : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %f : tensor<64x64x!tile.ptr<f32>>
  return
}
