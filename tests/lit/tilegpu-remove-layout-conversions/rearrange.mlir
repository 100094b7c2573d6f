// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -tilegpu-coalesce -tilegpu-remove-layout-conversions -canonicalize -split-input-file | FileCheck %s

// trans and reshape move no data: their results take the operand's layout
// rearranged (#blocked where one describes it, #linear otherwise), and a
// layout decided on either side spreads through them.

// A flattened transpose: each thread keeps its elements through the
// reshapes and the trans, so the transposed vector is laid out with its
// lanes a row apart (#linear). The store keeps its own 128-bit layout: one
// conversion, where the elements really move.
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[L:linear[0-9]*]] = #tilegpu.linear<{register = {{\[\[32\], \[64\], \[8\], \[16\]\]}}, lane = {{\[\[128\], \[256\], \[512\], \[1024\], \[1\]\]}}, warp = {{\[\[2\], \[4\]\]}}}>
// CHECK-LABEL: func.func @flat_transpose
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[X:.*]] = tile.load {{.*}} : tensor<2048x!tile.ptr<f32>, #[[V]]>
// CHECK: %[[M:.*]] = tile.reshape %[[X]] : tensor<2048xf32, #[[V]]> -> tensor<32x64xf32, #[[ROWS]]>
// CHECK: %[[T:.*]] = tile.trans %[[M]] {order = array<i32: 1, 0>} : tensor<32x64xf32, #[[ROWS]]> -> tensor<64x32xf32, #[[COLS]]>
// CHECK: %[[F:.*]] = tile.reshape %[[T]] : tensor<64x32xf32, #[[COLS]]> -> tensor<2048xf32, #[[L]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[F]] : tensor<2048xf32, #[[L]]> -> tensor<2048xf32, #[[V]]>
// CHECK: tile.store %{{.*}}, %[[C]] : tensor<2048x!tile.ptr<f32>, #[[V]]>
func.func @flat_transpose(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                          %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %xs = tile.splat %x : tensor<2048x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  %v = tile.load %xp : tensor<2048x!tile.ptr<f32>>
  %m = tile.reshape %v : tensor<2048xf32> -> tensor<32x64xf32>
  %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %f = tile.reshape %t : tensor<64x32xf32> -> tensor<2048xf32>
  %ys = tile.splat %y : tensor<2048x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  tile.store %yp, %f : tensor<2048x!tile.ptr<f32>>
  return
}

// -----

// A transposed tile stored where its columns are contiguous: the axis
// info follows the offsets through their trans, the store wants the
// column-major layout, which is the loaded rows transposed. No conversion.
// CHECK: // -----
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-LABEL: func.func @transposed_store
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[X:.*]] = tile.load {{.*}} : tensor<32x64x!tile.ptr<f32>, #[[ROWS]]>
// CHECK: %[[T:.*]] = tile.trans %[[X]] {{.*}} -> tensor<64x32xf32, #[[COLS]]>
// CHECK: tile.store %{{.*}}, %[[T]] : tensor<64x32x!tile.ptr<f32>, #[[COLS]]>
func.func @transposed_store(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                            %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<32x1xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %xs = tile.splat %x : tensor<32x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %v = tile.load %xp : tensor<32x64x!tile.ptr<f32>>
  %t = tile.trans %v {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %toffs = tile.trans %offs {order = array<i32: 1, 0>} : tensor<32x64xi32> -> tensor<64x32xi32>
  %ys = tile.splat %y : tensor<64x32x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %toffs : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %yp, %t : tensor<64x32x!tile.ptr<f32>>
  return
}

// -----

// A layout decided after a reshape flows back through it: the range is
// laid out so that its reshape is the store's 128-bit rows (the range's
// group, which nothing else constrains, derives its layout from the
// reshape's result instead of the other way round). No conversion.
// CHECK: // -----
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @range_tile
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.make_range {{.*}} : tensor<2048xi32, #[[V]]>
// CHECK: tile.reshape %{{.*}} : tensor<2048xi32, #[[V]]> -> tensor<32x64xi32, #[[ROWS]]>
// CHECK: tile.store {{.*}} : tensor<32x64x!tile.ptr<i32>, #[[ROWS]]>
func.func @range_tile(%y: !tile.ptr<i32> {tile.divisibility = 16 : i64}) {
  %i = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %v = tile.reshape %i : tensor<2048xi32> -> tensor<32x64xi32>
  %sq = arith.muli %v, %v : tensor<32x64xi32>
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<32x1xi32>
  %cols = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %ys = tile.splat %y : tensor<32x64x!tile.ptr<i32>>
  %yp = tile.addptr %ys, %offs : tensor<32x64x!tile.ptr<i32>>, tensor<32x64xi32>
  tile.store %yp, %sq : tensor<32x64x!tile.ptr<i32>>
  return
}

// -----

// A 3-D permutation between a load and a store whose addresses are
// permuted alike: every layout follows, no conversion.
// CHECK: // -----
// CHECK-DAG: #[[IN:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 8, 4], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>
// CHECK-DAG: #[[OUT:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1, 1], threadsPerWarp = [4, 1, 8], warpsPerCTA = [1, 4, 1], order = [0, 2, 1]}>
// CHECK-LABEL: func.func @permute3d
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[X:.*]] = tile.load {{.*}} : tensor<4x8x16x!tile.ptr<f32>, #[[IN]]>
// CHECK: %[[T:.*]] = tile.trans %[[X]] {order = array<i32: 2, 0, 1>} : tensor<4x8x16xf32, #[[IN]]> -> tensor<16x4x8xf32, #[[OUT]]>
// CHECK: tile.store %{{.*}}, %[[T]] : tensor<16x4x8x!tile.ptr<f32>, #[[OUT]]>
func.func @permute3d(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                     %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %i = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %offs = tile.reshape %i : tensor<512xi32> -> tensor<4x8x16xi32>
  %xs = tile.splat %x : tensor<4x8x16x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<4x8x16x!tile.ptr<f32>>, tensor<4x8x16xi32>
  %v = tile.load %xp : tensor<4x8x16x!tile.ptr<f32>>
  %t = tile.trans %v {order = array<i32: 2, 0, 1>} : tensor<4x8x16xf32> -> tensor<16x4x8xf32>
  %toffs = tile.trans %offs {order = array<i32: 2, 0, 1>} : tensor<4x8x16xi32> -> tensor<16x4x8xi32>
  %ys = tile.splat %y : tensor<16x4x8x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %toffs : tensor<16x4x8x!tile.ptr<f32>>, tensor<16x4x8xi32>
  tile.store %yp, %t : tensor<16x4x8x!tile.ptr<f32>>
  return
}

// -----

// A scan runs along its axis as registers, consecutive lanes, consecutive
// warps, repetitions; the flattened transpose does not (its lanes are a
// row apart). The scan's group keeps out of the transposed one and takes
// the store's layout: one conversion, before the scan.
// CHECK: // -----
// CHECK-DAG: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[L:linear[0-9]*]] = #tilegpu.linear<
// CHECK-LABEL: func.func @scan_flat_transpose
// CHECK: %[[F:.*]] = tile.reshape %{{.*}} : tensor<64x32xf32, #{{.*}}> -> tensor<2048xf32, #[[L]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[F]] : tensor<2048xf32, #[[L]]> -> tensor<2048xf32, #[[V]]>
// CHECK-NEXT: %[[S:.*]] = tile.scan %[[C]] {axis = 0 : i32} : tensor<2048xf32, #[[V]]> -> tensor<2048xf32, #[[V]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store %{{.*}}, %[[S]] : tensor<2048x!tile.ptr<f32>, #[[V]]>
func.func @scan_flat_transpose(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                               %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %xs = tile.splat %x : tensor<2048x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  %v = tile.load %xp : tensor<2048x!tile.ptr<f32>>
  %m = tile.reshape %v : tensor<2048xf32> -> tensor<32x64xf32>
  %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %f = tile.reshape %t : tensor<64x32xf32> -> tensor<2048xf32>
  %c = tile.scan %f {axis = 0 : i32} : tensor<2048xf32> -> tensor<2048xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.scan.return %s : f32
  }
  %ys = tile.splat %y : tensor<2048x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<2048x!tile.ptr<f32>>, tensor<2048xi32>
  tile.store %yp, %c : tensor<2048x!tile.ptr<f32>>
  return
}

// -----

// When nothing decides a layout before the groups meet, the scan can end
// up in the transposed one; it then converts around itself to the default
// layout of its shape.
// CHECK: // -----
// CHECK-DAG: #[[D:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[L:linear[0-9]*]] = #tilegpu.linear<
// CHECK-LABEL: func.func @scan_of_range
// CHECK: %[[F:.*]] = tile.reshape %{{.*}} -> tensor<2048xi32, #[[L]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[F]] : tensor<2048xi32, #[[L]]> -> tensor<2048xi32, #[[D]]>
// CHECK-NEXT: %[[S:.*]] = tile.scan %[[C]] {axis = 0 : i32} : tensor<2048xi32, #[[D]]> -> tensor<2048xi32, #[[D]]>
// CHECK: tilegpu.convert_layout %[[S]] : tensor<2048xi32, #[[D]]> -> tensor<2048xi32, #[[L]]>
func.func @scan_of_range(%y: !tile.ptr<i32>) {
  %r = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  %m = tile.reshape %r : tensor<2048xi32> -> tensor<32x64xi32>
  %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xi32> -> tensor<64x32xi32>
  %f = tile.reshape %t : tensor<64x32xi32> -> tensor<2048xi32>
  %c = tile.scan %f {axis = 0 : i32} : tensor<2048xi32> -> tensor<2048xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.scan.return %s : i32
  }
  %max = tile.reduce %c {axis = 0 : i32} : tensor<2048xi32> -> i32 {
  ^bb0(%a: i32, %b: i32):
    %s = arith.maxsi %a, %b : i32
    tile.reduce.return %s : i32
  }
  tile.store %y, %max : !tile.ptr<i32>
  return
}
