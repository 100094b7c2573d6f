// RUN: tilec-opt %s -canonicalize -split-input-file | FileCheck %s

// A splat of a constant is a constant tensor; broadcasting it stays one.
// CHECK-LABEL: func.func @splat_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<7> : tensor<8x16xi32>
// CHECK-NOT: tile.splat
// CHECK-NOT: tile.broadcast
// CHECK: return %[[C]]
func.func @splat_of_constant() -> tensor<8x16xi32> {
  %c = arith.constant 7 : i32
  %s = tile.splat %c : tensor<1x16xi32>
  %b = tile.broadcast %s : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// -----

// broadcast(splat(x)) and expand_dims(splat(x)) are splats of x.
// CHECK-LABEL: func.func @shape_of_splat
// CHECK: %[[S:.*]] = tile.splat %arg0 : tensor<8x16xi32>
// CHECK-NOT: tile.broadcast
// CHECK-NOT: tile.expand_dims
func.func @shape_of_splat(%x: i32) -> tensor<8x16xi32> {
  %s = tile.splat %x : tensor<16xi32>
  %e = tile.expand_dims %s {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %b = tile.broadcast %e : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// -----

// Adding a zero offset is the pointer itself.
// CHECK-LABEL: func.func @addptr_zero
// CHECK-NOT: tile.addptr
// CHECK: return %arg0
func.func @addptr_zero(%p: tensor<16x!tile.ptr<f32>>) -> tensor<16x!tile.ptr<f32>> {
  %z = arith.constant dense<0> : tensor<16xi32>
  %q = tile.addptr %p, %z : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  return %q : tensor<16x!tile.ptr<f32>>
}
