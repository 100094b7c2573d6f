// RUN: tilec-opt %s -split-input-file -tile-to-tilegpu="num-warps=4 target=sm_80" -tilegpu-coalesce -tilegpu-accelerate-matmul -tilegpu-remove-layout-conversions -canonicalize | FileCheck %s

// A dot's accumulator carried by a loop keeps the dot's layout through the
// iterations even where an access after the loop (the load of a residual
// added to it) wants another: one conversion after the loop (of the
// residual: f32 stores straight from the accumulator), none in it. (The
// loop's values are a group of their own, joined to the accesses around
// the loop through conversions at its boundary, which merge after those
// inside the loop.)
// CHECK-DAG: #[[ACC:mma[0-9]*]] = #tilegpu.mma<{version = 2
// CHECK-LABEL: func.func @carried_accumulator
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<16x16xf32, #[[ACC]]>)
// CHECK-NOT: tilegpu.convert_layout {{.*}} -> tensor<16x16xf32
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #[[ACC]]>
// CHECK-NOT: tilegpu.convert_layout {{.*}} -> tensor<16x16xf32
// CHECK: scf.yield
// CHECK: %[[RV:.*]] = tile.load
// CHECK-NEXT: %[[RC:.*]] = tilegpu.convert_layout %[[RV]] : tensor<16x16xf32, #blocked{{[0-9]*}}> -> tensor<16x16xf32, #[[ACC]]>
// CHECK-NEXT: arith.addf %[[R]], %[[RC]]
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store
func.func @carried_accumulator(%x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                               %w: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                               %res: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                               %n: i32) {
  %r16 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ro = arith.muli %rows, %c64 : tensor<16x1xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %offs : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %ws = tile.splat %w : tensor<16x64x!tile.ptr<f16>>
  %wp = tile.addptr %ws, %offs : tensor<16x64x!tile.ptr<f16>>, tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<16x16xf32>) : i32 {
    %xv = tile.load %xp : tensor<16x64x!tile.ptr<f16>>
    %wv = tile.load %wp : tensor<16x64x!tile.ptr<f16>>
    %wt = tile.trans %wv {order = array<i32: 1, 0>} : tensor<16x64xf16> -> tensor<64x16xf16>
    %d = tile.dot %xv, %wt, %a : tensor<16x64xf16>, tensor<64x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %ro16 = arith.muli %rows, %c16 : tensor<16x1xi32>
  %cols16 = tile.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rb16 = tile.broadcast %ro16 : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb16 = tile.broadcast %cols16 : tensor<1x16xi32> -> tensor<16x16xi32>
  %o16 = arith.addi %rb16, %cb16 : tensor<16x16xi32>
  %rs = tile.splat %res : tensor<16x16x!tile.ptr<f32>>
  %rp = tile.addptr %rs, %o16 : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  %rv = tile.load %rp : tensor<16x16x!tile.ptr<f32>>
  %sum = arith.addf %acc, %rv : tensor<16x16xf32>
  tile.store %rp, %sum : tensor<16x16x!tile.ptr<f32>>
  return
}

// -----

// An accumulator loaded before the loop converts once, before it.
// CHECK-DAG: #[[ACC:mma[0-9]*]] = #tilegpu.mma<{version = 2
// CHECK-LABEL: func.func @loaded_accumulator
// CHECK: %[[C:.*]] = tile.load
// CHECK: %[[IN:.*]] = tilegpu.convert_layout %[[C]] : tensor<16x16xf32, #blocked{{[0-9]*}}> -> tensor<16x16xf32, #[[ACC]]>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[IN]]) -> (tensor<16x16xf32, #[[ACC]]>)
// CHECK-NOT: tilegpu.convert_layout {{.*}} -> tensor<16x16xf32
// CHECK: scf.yield
func.func @loaded_accumulator(%x: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                              %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                              %n: i32) {
  %r16 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c16 = arith.constant dense<16> : tensor<16x1xi32>
  %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ro = arith.muli %rows, %c16 : tensor<16x1xi32>
  %cols = tile.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rb = tile.broadcast %ro : tensor<16x1xi32> -> tensor<16x16xi32>
  %cb = tile.broadcast %cols : tensor<1x16xi32> -> tensor<16x16xi32>
  %offs = arith.addi %rb, %cb : tensor<16x16xi32>
  %xs = tile.splat %x : tensor<16x16x!tile.ptr<f16>>
  %xp = tile.addptr %xs, %offs : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
  %cs = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %offs : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  %init = tile.load %cp : tensor<16x16x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (tensor<16x16xf32>) : i32 {
    %xv = tile.load %xp : tensor<16x16x!tile.ptr<f16>>
    %d = tile.dot %xv, %xv, %a : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  tile.store %cp, %acc : tensor<16x16x!tile.ptr<f32>>
  return
}
