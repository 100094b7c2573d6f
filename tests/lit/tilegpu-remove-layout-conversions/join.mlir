// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -tilegpu-coalesce -tilegpu-remove-layout-conversions -canonicalize -split-input-file | FileCheck %s

// join moves no data: its result holds, beside each register of the
// operands' layout, the other operand's element.

// tl.interleave of two loaded vectors (join, then the last two dimensions
// as one): each thread holds 8 consecutive floats of the result, which
// the store takes as they are (two 128-bit stores a thread) rather than
// its own 4, so nothing converts.
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[J:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[I:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @interleave
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.join {{.*}} : tensor<1024xf32, #[[V]]> -> tensor<1024x2xf32, #[[J]]>
// CHECK: tile.reshape {{.*}} -> tensor<2048xf32, #[[I]]>
// CHECK: tile.store {{.*}} : tensor<2048x!tile.ptr<f32>, #[[I]]>
func.func @interleave(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                      %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %b = tile.load %yp : tensor<1024x!tile.ptr<f32>>
  %j = tile.join %a, %b : tensor<1024xf32> -> tensor<1024x2xf32>
  %i = tile.reshape %j : tensor<1024x2xf32> -> tensor<2048xf32>
  %r2 = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %zs = tile.splat %z : tensor<2048x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r2 : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  tile.store %zp, %i : tensor<2048x!tile.ptr<f32>>
  return
}

// -----

// tl.cat of two loaded vectors (join, the new dimension moved first, the
// two dimensions as one): the store's layout, traced back through the
// reshape and the trans, puts the second operand in the thread's higher
// registers; the join is recomputed with its new dimension there, and
// nothing converts.
// CHECK: // -----
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[J:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
// CHECK-LABEL: func.func @cat
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.join {{.*}} : tensor<1024xf32, #[[V]]> -> tensor<1024x2xf32, #[[J]]>
// CHECK: tile.store {{.*}} : tensor<2048x!tile.ptr<f32>, #[[V]]>
func.func @cat(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %z: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %b = tile.load %yp : tensor<1024x!tile.ptr<f32>>
  %j = tile.join %a, %b : tensor<1024xf32> -> tensor<1024x2xf32>
  %t = tile.trans %j {order = array<i32: 1, 0>} : tensor<1024x2xf32> -> tensor<2x1024xf32>
  %f = tile.reshape %t : tensor<2x1024xf32> -> tensor<2048xf32>
  %r2 = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %zs = tile.splat %z : tensor<2048x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r2 : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  tile.store %zp, %f : tensor<2048x!tile.ptr<f32>>
  return
}
