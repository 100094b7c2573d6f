// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -tilegpu-coalesce -tilegpu-remove-layout-conversions -canonicalize -split-input-file -allow-unregistered-dialect -verify-diagnostics | FileCheck %s

// A 2-D tile `rows[:, None] * stride + cols[None, :]`: the load's coalesced
// layout spreads over the whole computation; the 1-D ranges take slices of
// it, one per expand_dims (the shared tl.arange is cloned), so no
// conversion is left.
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

// Softmax's shape: the row maximum is the slice of the tile's layout, and
// broadcasting it back with [:, None] needs no conversion.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #[[B]]}>
// CHECK-LABEL: func.func @row_max
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.reduce %{{.*}} {axis = 1 : i32} : tensor<4x128xf32, #[[B]]> -> tensor<4xf32, #[[S]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<4xf32, #[[S]]> -> tensor<4x1xf32, #[[B]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @row_max(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  %c = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c128 = arith.constant dense<128> : tensor<4x1xi32>
  %ro = arith.muli %re, %c128 : tensor<4x1xi32>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %ro : tensor<4x1xi32> -> tensor<4x128xi32>
  %cb = tile.broadcast %ce : tensor<1x128xi32> -> tensor<4x128xi32>
  %offs = arith.addi %rb, %cb : tensor<4x128xi32>
  %xs = tile.splat %x : tensor<4x128x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<4x128x!tile.ptr<f32>>, tensor<4x128xi32>
  %v = tile.load %xp : tensor<4x128x!tile.ptr<f32>>
  %m = tile.reduce %v {axis = 1 : i32} : tensor<4x128xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %mx = arith.maxnumf %a, %b : f32
    tile.reduce.return %mx : f32
  }
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %mb = tile.broadcast %me : tensor<4x1xf32> -> tensor<4x128xf32>
  %d = arith.subf %v, %mb : tensor<4x128xf32>
  tile.store %xp, %d : tensor<4x128x!tile.ptr<f32>>
  return
}

// -----

// A 1-D value produced by a load cannot be recomputed in another layout:
// the second expand_dims keeps a conversion.
// CHECK-LABEL: func.func @conflict
// CHECK: %[[V:.*]] = tile.load
// CHECK-DAG: tile.expand_dims %[[V]] {axis = 1 : i32}
// CHECK-DAG: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<32xi32, #{{.*}}> -> tensor<32xi32, #{{.*}}>
// CHECK-DAG: tile.expand_dims %[[C]] {axis = 0 : i32}
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

// -----

// out[i, j] = x[i, j] + y[j, i]: x and out want rows, y wants columns. The
// addresses, mask and `other` of y's load are recomputed in y's layout (no
// conversion for them); one conversion is left, of y's loaded tile.
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 4], {{.*}} order = [1, 0]}>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4, 1], {{.*}} order = [0, 1]}>
// CHECK-LABEL: func.func @transpose_add
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[Y:.*]] = tile.load {{.*}} : tensor<32x32x!tile.ptr<f32>, #[[COLS]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[T:.*]] = tilegpu.convert_layout %[[Y]] : tensor<32x32xf32, #[[COLS]]> -> tensor<32x32xf32, #[[ROWS]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.addf {{.*}}%[[T]]
// CHECK: tile.store {{.*}} : tensor<32x32x!tile.ptr<f32>, #[[ROWS]]>
func.func @transpose_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                         %y: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                         %stride: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ss = tile.splat %stride : tensor<32x1xi32>
  %ro = arith.muli %rows, %ss : tensor<32x1xi32>
  %ss2 = tile.splat %stride : tensor<1x32xi32>
  %co = arith.muli %cols, %ss2 : tensor<1x32xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<32x32xi32>
  %xoffs = arith.addi %rb, %cb : tensor<32x32xi32>
  %cob = tile.broadcast %co : tensor<1x32xi32> -> tensor<32x32xi32>
  %rwb = tile.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
  %yoffs = arith.addi %cob, %rwb : tensor<32x32xi32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %true = arith.constant dense<true> : tensor<32x32xi1>
  %xs = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %xoffs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %ys = tile.splat %y : tensor<32x32x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %yoffs : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %a = tile.load %xp, %true, %zero : tensor<32x32x!tile.ptr<f32>>
  %b = tile.load %yp, %true, %zero : tensor<32x32x!tile.ptr<f32>>
  %s = arith.addf %a, %b : tensor<32x32xf32>
  tile.store %xp, %s : tensor<32x32x!tile.ptr<f32>>
  return
}

// -----

// A loop-carried accumulator takes the layout of the loads it sums: no
// conversion inside the loop.
// CHECK: #[[V:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @accumulate
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #[[V]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
func.func @accumulate(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<1024xf32>) : i32 {
    %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
    %s = arith.addf %a, %v : tensor<1024xf32>
    scf.yield %s : tensor<1024xf32>
  }
  tile.store %xp, %acc : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// An op with tensors and no layout rule is an error, not a silent guess.
func.func @unknown(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-error @+1 {{tilegpu-remove-layout-conversions has no layout rule for 'test.mystery'}}
  %m = "test.mystery"(%r) : (tensor<128xi32>) -> tensor<128xi32>
  return
}
