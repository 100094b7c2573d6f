// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 | FileCheck %s

// Softmax's shape: the row maximum is the slice of the tile's layout, and
// broadcasting it back with [:, None] needs no conversion.
// CHECK-DAG: #[[B:blocked]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<{dim = 1, parent = #[[B]]}>
// CHECK-LABEL: func.func @row_max
// CHECK: tile.reduce %{{.*}} {axis = 1 : i32} : tensor<4x128xf32, #[[B]]> -> tensor<4xf32, #[[S]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<4xf32, #[[S]]> -> tensor<4x1xf32, #[[B]]>
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
