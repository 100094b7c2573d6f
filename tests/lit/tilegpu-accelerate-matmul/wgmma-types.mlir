// RUN: tilec-opt %s -split-input-file -tile-to-tilegpu=num-warps=4 -tilegpu-accelerate-matmul | FileCheck %s
// RUN: tilec-opt %s -split-input-file -tile-to-tilegpu="num-warps=4 target=sm_89" -tilegpu-accelerate-matmul | FileCheck %s --check-prefix=SM89

// The types other than 16-bit: wgmma multiplies them only from K-major
// buffers (it transposes 16-bit operands alone) and never from A in
// registers. (sm_89, SM89, has mma.sync only.)

// fp8 (any pairing) and i8 on sm_90a: wgmma with both buffers K-major (as
// these tiles, whose registers run along neither dimension longer, are
// kept). The i8 accumulator is i32. f32 keeps mma.sync, whose tf32 rounds
// each operand to nearest in registers (wgmma would drop the low bits of
// what cp.async copied).
// CHECK-LABEL: func.func @fp8
// CHECK: tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x64xf8E4M3FN, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>>
// CHECK: tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x64xf8E5M2, #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [0, 1]}>>
// CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<64x64xf32, #mma
// CHECK-LABEL: func.func @i8
// CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<64x64xi32, #mma
// CHECK-LABEL: func.func @tf32
// CHECK-NOT: warp_group_dot
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #mma
// SM89-LABEL: func.func @fp8
// SM89-NOT: warp_group_dot
// SM89: tile.dot {{.*}} -> tensor<64x64xf32, #mma
func.func @fp8(%x: f8E4M3FN, %x2: f8E5M2, %y: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x64xf8E4M3FN>
  %b = tile.splat %x2 : tensor<64x64xf8E5M2>
  %c = tile.splat %y : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}
func.func @i8(%x: i8, %y: i32, %p: !tile.ptr<i32>) {
  %a = tile.splat %x : tensor<64x64xi8>
  %c = tile.splat %y : tensor<64x64xi32>
  %d = tile.dot %a, %a, %c : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<i32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<i32>>
  return
}
func.func @tf32(%x: f32, %p: !tile.ptr<f32>) {
  %a = tile.splat %x : tensor<64x32xf32>
  %b = tile.splat %x : tensor<32x64xf32>
  %c = tile.splat %x : tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// -----

// A chained fp8 dot: wgmma takes A from registers for 16-bit elements
// only, so the second product (its A the first's, rounded to fp8, in
// registers) keeps mma.sync while the first runs on wgmma.
// CHECK-LABEL: func.func @chained_fp8
// CHECK: scf.for
// CHECK: tilegpu.warp_group_dot
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #mma
// CHECK-NOT: warp_group_dot
func.func @chained_fp8(%x: f8E4M3FN, %y: f32, %n: i32, %p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %q = tile.splat %x : tensor<64x64xf8E4M3FN>
  %k = tile.splat %x : tensor<64x64xf8E4M3FN>
  %v = tile.splat %x : tensor<64x64xf8E4M3FN>
  %zero = tile.splat %y : tensor<64x64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %s = tile.dot %q, %k, %zero : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    %pr = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf8E4M3FN>
    %d = tile.dot %pr, %v, %acc : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>>
  tile.store %ps, %r : tensor<64x64x!tile.ptr<f32>>
  return
}
