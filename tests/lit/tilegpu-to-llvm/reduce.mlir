// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-to-llvm -split-input-file | FileCheck %s

// (The allocator gives cross-warp scratch its offset; the lowering reads it.)

// Along the fastest dimension 8 lanes hold a row: three butterfly steps
// (lane masks 1, 2, 4), no shared memory since one warp owns each row.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @rows
  // CHECK: %[[M1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}bfly %{{.*}}, %{{.*}}, %[[M1]], %{{.*}} : i32 -> i32
  // CHECK: %[[M2:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}bfly %{{.*}}, %{{.*}}, %[[M2]], %{{.*}} : i32 -> i32
  // CHECK: %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  func.func @rows(%x: tensor<16x32xf32, #blocked>, %p: !tile.ptr<f32>) {
    %s = tile.reduce %x {axis = 1 : i32} : tensor<16x32xf32, #blocked> -> tensor<16xf32, #slice> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce.return %c : f32
    }
    %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #slice>
    %ps = tile.splat %p : tensor<16x!tile.ptr<f32>, #slice>
    %pp = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>, #slice>, tensor<16xi32, #slice>
    tile.store %pp, %s : tensor<16x!tile.ptr<f32>, #slice>
    return
  }
}

// -----

// Along the slow dimension the partials of four lanes (masks 8, 16) and
// then of four warps meet: the warps go through shared memory, each thread
// combining them in warp order after a barrier. No barrier follows: a
// later user of the scratch gets one from tilegpu-insert-barriers.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 0, parent = #blocked}>
// CHECK: tilegpu.shared_bytes = 512
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // Four columns per thread, two butterfly steps each (lane masks 8, 16).
  // CHECK-LABEL: llvm.func @columns
  // CHECK-COUNT-8: nvvm.shfl.sync {{ *}}bfly
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK: llvm.call @__nv_fmaxf
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  func.func @columns(%x: tensor<16x32xf32, #blocked>, %p: !tile.ptr<f32>) {
    %s = tile.reduce %x {axis = 0 : i32} : tensor<16x32xf32, #blocked> -> tensor<32xf32, #slice> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tile.reduce.return %c : f32
    }
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #slice>
    %ps = tile.splat %p : tensor<32x!tile.ptr<f32>, #slice>
    %pp = tile.addptr %ps, %r : tensor<32x!tile.ptr<f32>, #slice>, tensor<32xi32, #slice>
    tile.store %pp, %s : tensor<32x!tile.ptr<f32>, #slice>
    return
  }
}
