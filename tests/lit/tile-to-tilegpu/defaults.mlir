// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -split-input-file | FileCheck %s

// Every tensor of a shape gets the same row-major layout, one element per
// thread; the module records its warps and target.
// CHECK: #[[L:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"}
// CHECK-LABEL: func.func @add
// CHECK: tile.make_range {{.*}} : tensor<1024xi32, #[[L]]>
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[L]]>
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #[[L]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %s = arith.addf %v, %v : tensor<1024xf32>
  tile.store %xp, %s : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// expand_dims needs its operand in the slice of its result's layout, and a
// reduction produces the slice of its operand's: conversions join them to
// the defaults. broadcast shares one layout across two shapes whose
// defaults differ: its operand is converted.
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-LABEL: func.func @slices
// CHECK: %[[C:.*]] = tilegpu.convert_layout %{{.*}} : tensor<4xi32, #[[B1]]> -> tensor<4xi32, #[[S:slice[0-9]*]]>
// CHECK: tile.expand_dims %[[C]] {axis = 1 : i32} : tensor<4xi32, #[[S]]> -> tensor<4x1xi32, #[[B2]]>
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<4x1xi32, #[[B2]]> -> tensor<4x1xi32, #[[B]]>
// CHECK: tile.broadcast %{{.*}} : tensor<4x1xi32, #[[B]]> -> tensor<4x128xi32, #[[B]]>
// CHECK: %[[M:.*]] = tile.reduce %{{.*}} {axis = 1 : i32} : tensor<4x128xi32, #[[B]]> -> tensor<4xi32, #[[S1:slice[0-9]*]]>
// CHECK: tilegpu.convert_layout %[[M]] : tensor<4xi32, #[[S1]]> -> tensor<4xi32, #[[B1]]>
func.func @slices(%x: !tile.ptr<i32>) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %rb = tile.broadcast %re : tensor<4x1xi32> -> tensor<4x128xi32>
  %m = tile.reduce %rb {axis = 1 : i32} : tensor<4x128xi32> -> tensor<4xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.reduce.return %s : i32
  }
  %xs = tile.splat %x : tensor<4x!tile.ptr<i32>>
  %xp = tile.addptr %xs, %r : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.store %xp, %m : tensor<4x!tile.ptr<i32>>
  return
}

// -----

// trans and reshape: the result takes the operand's layout rearranged.
// The defaults are row-major, so a reshape of a default layout is the
// default of its new shape; a trans is not, and its result is converted
// back to the default for its users.
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[A:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[AT:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @rearrange
// CHECK: %[[M:.*]] = tile.reshape %{{.*}} : tensor<2048xf32, #[[V]]> -> tensor<32x64xf32, #[[A]]>
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[M]] {order = array<i32: 1, 0>} : tensor<32x64xf32, #[[A]]> -> tensor<64x32xf32, #[[AT]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[T]] : tensor<64x32xf32, #[[AT]]> -> tensor<64x32xf32, #[[B]]>
// CHECK-NEXT: tile.reshape %[[C]] : tensor<64x32xf32, #[[B]]> -> tensor<2048xf32, #[[V]]>
func.func @rearrange(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %xs = tile.splat %x : tensor<2048x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  %v = tile.load %xp : tensor<2048x!tile.ptr<f32>>
  %m = tile.reshape %v : tensor<2048xf32> -> tensor<32x64xf32>
  %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %f = tile.reshape %t : tensor<64x32xf32> -> tensor<2048xf32>
  tile.store %xp, %f : tensor<2048x!tile.ptr<f32>>
  return
}
