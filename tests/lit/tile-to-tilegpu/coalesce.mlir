// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -split-input-file | FileCheck %s

// 16-byte aligned contiguous fp32: four elements per thread along the only
// dimension, and every tensor of the computation in that one layout.
// CHECK: #[[L:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {tilegpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @aligned
// CHECK: tile.make_range {{.*}} : tensor<1024xi32, #[[L]]>
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[L]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[L]]>
func.func @aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Without the alignment fact one element per thread is all that is safe.
// CHECK: #[[L:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @unaligned
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[L]]>
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// A 2-D tile `rows[:, None] * stride + cols[None, :]`: the columns are the
// contiguous dimension (order [1, 0]); the 1-D ranges take slices of the
// 2-D layout, one per expand_dims, so no layout conversion is needed even
// though rows and columns share one tl.arange.
// CHECK: #[[B:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S1:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #[[B]]}>
// CHECK-DAG: #[[S0:slice[0-9]*]] = #tilegpu.slice<{dim = 0, parent = #[[B]]}>
// CHECK-LABEL: func.func @tile2d
// CHECK-NOT: tilegpu.convert_layout
// CHECK-DAG: tile.expand_dims {{.*}} {axis = 1 : i32} : tensor<32xi32, #[[S1]]> -> tensor<32x1xi32, #[[B]]>
// CHECK-DAG: tile.expand_dims {{.*}} {axis = 0 : i32} : tensor<32xi32, #[[S0]]> -> tensor<1x32xi32, #[[B]]>
// CHECK: tile.load {{.*}} : tensor<32x32x!tile.ptr<f32>, #[[B]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @tile2d(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                  %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ss = tile.splat %stride : tensor<32x1xi32>
  %ro = arith.muli %rows, %ss : tensor<32x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rb, %cb : tensor<32x32xi32>
  %xs = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %v = tile.load %xp : tensor<32x32x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// A 1-D value produced by a load cannot be recomputed in another layout:
// the second expand_dims gets a convert_layout.
// CHECK-LABEL: func.func @conflict
// CHECK: %[[V:.*]] = tile.load
// CHECK: tile.expand_dims %[[V]] {axis = 1 : i32}
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<32xi32, #{{.*}}> -> tensor<32xi32, #{{.*}}>
// CHECK: tile.expand_dims %[[C]] {axis = 0 : i32}
func.func @conflict(%x: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %xs = tile.splat %x : tensor<32x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %r : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  %v = tile.load %xp : tensor<32x!tile.ptr<i32>>
  %a = tile.expand_dims %v {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %b = tile.expand_dims %v {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ab = tile.broadcast %a : tensor<32x1xi32> -> tensor<32x32xi32>
  %bb = tile.broadcast %b : tensor<1x32xi32> -> tensor<32x32xi32>
  %s = arith.addi %ab, %bb : tensor<32x32xi32>
  %ys = tile.splat %x : tensor<32x32x!tile.ptr<i32>>
  %yp = tile.addptr %ys, %s : tensor<32x32x!tile.ptr<i32>>, tensor<32x32xi32>
  tile.store %yp, %s : tensor<32x32x!tile.ptr<i32>>
  return
}
