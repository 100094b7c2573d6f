// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -tilegpu-coalesce -split-input-file | FileCheck %s

// 16-byte aligned contiguous fp32: four elements per thread. The load and
// the store are rebuilt in that layout between conversions from and to the
// default layout around them (tilegpu-remove-layout-conversions removes
// those).
// CHECK-DAG: #[[D:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @aligned
// CHECK: %[[P:.*]] = tilegpu.convert_layout %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[D]]> -> tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: %[[L:.*]] = tile.load %[[P]] : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: tilegpu.convert_layout %[[L]] : tensor<1024xf32, #[[V]]> -> tensor<1024xf32, #[[D]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
func.func @aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Without the alignment fact one element per thread is all that is safe:
// the default layout already is that, and nothing changes.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: tilegpu.convert_layout
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// `rows[None, :] * stride + cols[:, None]` with a 16-divisible stride: the
// addresses are contiguous along dimension 0, which becomes the fastest
// (order [0, 1]), with four fp32 elements per thread along it.
// CHECK: #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @column_major
func.func @column_major(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                        %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %cols = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rows = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %stride : tensor<1x32xi32>
  %ro = arith.muli %rows, %ss : tensor<1x32xi32>
  %rb = tile.broadcast %ro : tensor<1x32xi32> -> tensor<32x32xi32>
  %cb = tile.broadcast %cols : tensor<32x1xi32> -> tensor<32x32xi32>
  %offs = arith.addi %rb, %cb : tensor<32x32xi32>
  %xs = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %v = tile.load %xp : tensor<32x32x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// A pointer carried by a loop and advanced by 1024 elements (4 KiB) each
// iteration: the axis info reaches a fixpoint through scf.for that keeps
// its contiguity and alignment, so the access inside the loop is as wide
// as outside it.
// CHECK: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @pointer_increment
// CHECK: scf.for
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
func.func @pointer_increment(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                             %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                             %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp0 = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %yp0 = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %step = arith.constant dense<1024> : tensor<1024xi32>
  %res:2 = scf.for %i = %c0 to %n step %c1024 iter_args(%xp = %xp0, %yp = %yp0)
      -> (tensor<1024x!tile.ptr<f32>>, tensor<1024x!tile.ptr<f32>>) : i32 {
    %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
    tile.store %yp, %v : tensor<1024x!tile.ptr<f32>>
    %xn = tile.addptr %xp, %step : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %yn = tile.addptr %yp, %step : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    scf.yield %xn, %yn : tensor<1024x!tile.ptr<f32>>, tensor<1024x!tile.ptr<f32>>
  }
  return
}
