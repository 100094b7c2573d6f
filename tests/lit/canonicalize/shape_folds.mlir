// RUN: tilec-opt %s -canonicalize -split-input-file | FileCheck %s

// trans and reshape folds: identities vanish, chains compose, splats stay
// splats.

// CHECK-LABEL: func.func @identity
// CHECK-NOT: tile.trans
// CHECK-NOT: tile.reshape
// CHECK: return %arg0
func.func @identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = tile.trans %x {order = array<i32: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %r = tile.reshape %t : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A square transpose has the operand's type but is no identity.
// CHECK-LABEL: func.func @square
// CHECK: %[[T:.*]] = tile.trans %arg0 {order = array<i32: 1, 0>}
// CHECK: return %[[T]]
func.func @square(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<8x8xf32> -> tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

// Transposing twice puts every dimension back.
// CHECK-LABEL: func.func @trans_trans
// CHECK-NOT: tile.trans
// CHECK: return %arg0
func.func @trans_trans(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %u = tile.trans %t {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  return %u : tensor<4x8xf32>
}

// -----

// Two permutations of a 3-D tensor make one: result dimension i of the
// outer is dimension inner.order[outer.order[i]] of x.
// CHECK-LABEL: func.func @compose
// CHECK: %[[T:.*]] = tile.trans %arg0 {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
// CHECK-NOT: tile.trans
// CHECK: return %[[T]]
func.func @compose(%x: tensor<2x4x8xf32>) -> tensor<4x8x2xf32> {
  %t = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %u = tile.trans %t {order = array<i32: 2, 0, 1>} : tensor<8x2x4xf32> -> tensor<4x8x2xf32>
  return %u : tensor<4x8x2xf32>
}

// -----

// Row-major reshapes compose, and come back to the start.
// CHECK-LABEL: func.func @reshapes
// CHECK: %[[R:.*]] = tile.reshape %arg0 : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NOT: tile.reshape
// CHECK: return %[[R]], %arg0
func.func @reshapes(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %b = tile.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %c = tile.reshape %b : tensor<2x16xf32> -> tensor<4x8xf32>
  return %b, %c : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// A splat moved around is a splat; a constant one stays constant.
// CHECK-LABEL: func.func @splats
// CHECK-DAG: %[[C:.*]] = arith.constant dense<3> : tensor<16x2xi32>
// CHECK-DAG: %[[S:.*]] = tile.splat %arg0 : tensor<32xi32>
// CHECK-NOT: tile.trans
// CHECK-NOT: tile.reshape
// CHECK: return %[[C]], %[[S]]
func.func @splats(%v: i32) -> (tensor<16x2xi32>, tensor<32xi32>) {
  %c = arith.constant dense<3> : tensor<2x16xi32>
  %t = tile.trans %c {order = array<i32: 1, 0>} : tensor<2x16xi32> -> tensor<16x2xi32>
  %s = tile.splat %v : tensor<4x8xi32>
  %r = tile.reshape %s : tensor<4x8xi32> -> tensor<32xi32>
  return %t, %r : tensor<16x2xi32>, tensor<32xi32>
}
