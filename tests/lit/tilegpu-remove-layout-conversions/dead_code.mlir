// RUN: tilec-opt %s -tile-to-tilegpu=num-warps=4 -tilegpu-remove-layout-conversions | FileCheck %s

// Dead index arithmetic that an earlier pass left behind (no canonicalizer
// ran in between) has no uses to give copies to: the pass must leave it
// alone, not read a use that is not there.
// CHECK-LABEL: func.func @dead_range
// CHECK: tile.store
func.func @dead_range(%p: !tile.ptr<f32>) {
  %dead = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  tile.store %pp, %v : tensor<128x!tile.ptr<f32>>
  return
}
