// RUN: tilec-opt %s -tile-lower-descriptors -split-input-file | FileCheck %s

// A 2-D block at (%i, %j) of an M x K tensor with row stride %s: per
// dimension the index offset + arange, sign-extended; the row index times
// the stride, the column index as it is (stride 1: no multiplication, so
// the rows stay contiguous for the axis analysis); both indices checked
// against 0 and the sizes; zeros outside.
// CHECK-LABEL: func.func @block
// CHECK: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: %[[ROW:.*]] = tile.expand_dims {{.*}} {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
// CHECK: %[[ROW64:.*]] = arith.extsi %[[ROW]] : tensor<64x1xi32> to tensor<64x1xi64>
// CHECK: arith.muli %[[ROW64]]
// CHECK: arith.cmpi sge, %[[ROW]]
// CHECK: arith.cmpi slt, %[[ROW64]]
// CHECK: tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[COL:.*]] = tile.expand_dims {{.*}} {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK: %[[COL64:.*]] = arith.extsi %[[COL]] : tensor<1x32xi32> to tensor<1x32xi64>
// CHECK-NOT: arith.muli
// CHECK: tile.broadcast %[[COL64]] : tensor<1x32xi64> -> tensor<64x32xi64>
// CHECK: %[[PTRS:.*]] = tile.addptr
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xf16>
// CHECK: tile.load %[[PTRS]], %{{.*}}, %[[ZERO]] : tensor<64x32x!tile.ptr<f16>>
// CHECK-NOT: tile.descriptor_load
func.func @block(%base: !tile.ptr<f16>, %m: i64, %k: i64, %s: i64, %i: i32, %j: i32) -> tensor<64x32xf16> {
  %one = arith.constant 1 : i64
  %t = tile.descriptor_load %base[%i, %j] shape(%m, %k) strides(%s, %one) : !tile.ptr<f16> -> tensor<64x32xf16>
  return %t : tensor<64x32xf16>
}

// -----

// NaN padding reads NaN outside the tensor; a 1-D block needs no
// broadcast.
// CHECK-LABEL: func.func @nan_row
// CHECK-NOT: tile.broadcast
// CHECK: %[[NAN:.*]] = arith.constant dense<0x7FC00000> : tensor<128xf32>
// CHECK: tile.load %{{.*}}, %{{.*}}, %[[NAN]] : tensor<128x!tile.ptr<f32>>
func.func @nan_row(%base: !tile.ptr<f32>, %n: i64, %i: i32) -> tensor<128xf32> {
  %one = arith.constant 1 : i64
  %t = tile.descriptor_load %base[%i] shape(%n) strides(%one) {nanPadding} : !tile.ptr<f32> -> tensor<128xf32>
  return %t : tensor<128xf32>
}

// -----

// A block written: the same pointers and bounds as a read, the value
// stored under the mask (elements outside the tensor are not written).
// Without tensor maps (the default) even an aligned block goes this way.
// CHECK-LABEL: func.func @written
// CHECK: %[[ROWOK:.*]] = arith.andi {{.*}} : tensor<64x1xi1>
// CHECK: %[[COLOK:.*]] = arith.andi {{.*}} : tensor<1x64xi1>
// CHECK: %[[MASK:.*]] = arith.andi {{.*}} : tensor<64x64xi1>
// CHECK: %[[PTRS:.*]] = tile.addptr
// CHECK: tile.store %[[PTRS]], %arg6, %[[MASK]] : tensor<64x64x!tile.ptr<f16>>
// CHECK-NOT: tile.descriptor_store
func.func @written(%base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %m: i64, %n: i64,
                   %s: i64 {tile.divisibility = 16 : i64}, %i: i32, %j: i32, %v: tensor<64x64xf16>) {
  %one = arith.constant 1 : i64
  tile.descriptor_store %base[%i, %j] shape(%m, %n) strides(%s, %one), %v : !tile.ptr<f16>, tensor<64x64xf16>
  return
}
