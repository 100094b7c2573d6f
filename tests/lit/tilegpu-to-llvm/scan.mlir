// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-to-llvm -split-input-file | FileCheck %s

// (The allocator gives cross-warp scratch its offset; the lowering reads it.)

// A row of 32 in one warp: each thread scans its 4 registers, then the 8
// lanes of the row climb a shfl.sync.up ladder (deltas 1, 2, 4), take the
// inclusive total of the lanes before them (delta 1 again), and nothing
// crosses warps: no shared memory, no barrier.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @rows
  // CHECK-COUNT-3: llvm.fadd
  // CHECK: %[[D1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}up %{{.*}}, %{{.*}}, %[[D1]], %{{.*}} : i32 -> i32
  // CHECK: %[[D2:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}up %{{.*}}, %{{.*}}, %[[D2]], %{{.*}} : i32 -> i32
  // CHECK: %[[D4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: nvvm.shfl.sync {{ *}}up %{{.*}}, %{{.*}}, %[[D4]], %{{.*}} : i32 -> i32
  // CHECK: nvvm.shfl.sync {{ *}}up
  // CHECK-COUNT-4: llvm.select
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  func.func @rows(%x: tensor<16x32xf32, #blocked>, %p: !tile.ptr<f32>) {
    %s = tile.scan %x {axis = 1 : i32} : tensor<16x32xf32, #blocked> -> tensor<16x32xf32, #blocked> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.scan.return %c : f32
    }
    // Keep the scan alive: the row maxima of the prefix sums.
    %m = tile.reduce %s {axis = 1 : i32} : tensor<16x32xf32, #blocked> -> tensor<16xf32, #slice> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.maxnumf %a, %b : f32
      tile.reduce.return %c : f32
    }
    %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #slice>
    %ps = tile.splat %p : tensor<16x!tile.ptr<f32>, #slice>
    %pp = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>, #slice>, tensor<16xi32, #slice>
    tile.store %pp, %m : tensor<16x!tile.ptr<f32>, #slice>
    return
  }
}

// -----

// 1-D over 4 warps and two repetitions (512 = 2 x 4 warps x 32 lanes x 2):
// lanes climb five shfl.sync.up steps, the last lane's total is broadcast
// with shfl.sync.idx, the warps' totals meet in shared memory (2 reps x 4
// warps x 4 bytes), and the second repetition adds the first's total.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: tilegpu.shared_bytes = 32
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @long_row
  // CHECK-COUNT-6: nvvm.shfl.sync {{ *}}up
  // CHECK: nvvm.shfl.sync {{ *}}idx
  // CHECK-COUNT-6: nvvm.shfl.sync {{ *}}up
  // CHECK: nvvm.shfl.sync {{ *}}idx
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  func.func @long_row(%x: tensor<512xi32, #blocked>, %p: !tile.ptr<i32>) {
    %s = tile.scan %x {axis = 0 : i32} : tensor<512xi32, #blocked> -> tensor<512xi32, #blocked> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan.return %c : i32
    }
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
    %ps = tile.splat %p : tensor<512x!tile.ptr<i32>, #blocked>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<i32>, #blocked>, tensor<512xi32, #blocked>
    tile.store %pp, %s : tensor<512x!tile.ptr<i32>, #blocked>
    return
  }
}
