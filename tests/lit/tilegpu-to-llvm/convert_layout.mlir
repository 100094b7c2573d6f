// RUN: tilec-opt %s -tilegpu-to-llvm -split-input-file -verify-diagnostics | FileCheck %s

// Only registers move: the lanes and warps of both layouts hold the same
// elements, so the conversion is a permutation of the struct's fields and
// touches neither other lanes nor memory.
#a = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @permute
  // CHECK: %[[R0:.*]] = llvm.extractvalue %{{.*}}[0]
  // CHECK: %[[R1:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK: %[[R2:.*]] = llvm.extractvalue %{{.*}}[2]
  // CHECK: %[[R3:.*]] = llvm.extractvalue %{{.*}}[3]
  // CHECK: llvm.insertvalue %[[R0]], %{{.*}}[0]
  // CHECK: llvm.insertvalue %[[R2]], %{{.*}}[1]
  // CHECK: llvm.insertvalue %[[R1]], %{{.*}}[2]
  // CHECK: llvm.insertvalue %[[R3]], %{{.*}}[3]
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: !llvm.ptr<3>
  // CHECK: llvm.return
  func.func @permute(%x: tensor<2x64xi32, #a>, %p: !tile.ptr<i32>) {
    %c = tilegpu.convert_layout %x : tensor<2x64xi32, #a> -> tensor<2x64xi32, #b>
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #b}>>
    %e = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #b}>> -> tensor<1x64xi32, #b>
    %eb = tile.broadcast %e : tensor<1x64xi32, #b> -> tensor<2x64xi32, #b>
    %ps = tile.splat %p : tensor<2x64x!tile.ptr<i32>, #b>
    %pp = tile.addptr %ps, %eb : tensor<2x64x!tile.ptr<i32>, #b>, tensor<2x64xi32, #b>
    tile.store %pp, %c : tensor<2x64x!tile.ptr<i32>, #b>
    return
  }
}

// -----

// Elements move between lanes of one warp (lanes along columns first, then
// along rows first); every warp holds a copy of the 4x8 tile, so no warp
// needs another's: one shfl.sync.idx per register, no shared memory.
#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @shuffle
  // CHECK: nvvm.shfl.sync {{ *}}idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: !llvm.ptr<3>
  // CHECK: llvm.return
  func.func @shuffle(%x: tensor<4x8xf32, #a>, %p: !tile.ptr<f32>) {
    %c = tilegpu.convert_layout %x : tensor<4x8xf32, #a> -> tensor<4x8xf32, #b>
    %ps = tile.splat %p : tensor<4x8x!tile.ptr<f32>, #b>
    tile.store %ps, %c : tensor<4x8x!tile.ptr<f32>, #b>
    return
  }
}

// -----

// Moving rows between warps needs shared memory, which only
// tilegpu-decompose-conversions provides.
#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @between_warps(%x: tensor<32x32xf32, #a>) {
    // expected-error @+1 {{moves elements between warps: run tilegpu-decompose-conversions first}}
    %c = tilegpu.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x32xf32, #b>
    return
  }
}

// -----

// Pointers move between lanes as 64-bit integers.
#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @pointers
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
  // CHECK-COUNT-2: nvvm.shfl.sync {{ *}}idx
  // CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
  func.func @pointers(%x: tensor<4x8x!tile.ptr<f32>, #a>, %v: tensor<4x8xf32, #b>) {
    %c = tilegpu.convert_layout %x : tensor<4x8x!tile.ptr<f32>, #a> -> tensor<4x8x!tile.ptr<f32>, #b>
    tile.store %c, %v : tensor<4x8x!tile.ptr<f32>, #b>
    return
  }
}
