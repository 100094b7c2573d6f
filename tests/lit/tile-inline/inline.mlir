// RUN: tilec-opt %s -tile-inline -split-input-file -verify-diagnostics | FileCheck %s

// Helpers are spliced into the kernel, innermost first, and then dropped.
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: call
// CHECK: %[[R:.*]] = tile.make_range
// CHECK: %[[S:.*]] = arith.addi %[[R]], %[[R]]
// CHECK: arith.muli %[[S]], %[[S]]
// CHECK-NOT: func.func private
func.func private @double(%x: tensor<16xi32>) -> tensor<16xi32> {
  %y = arith.addi %x, %x : tensor<16xi32>
  return %y : tensor<16xi32>
}
func.func private @square_of_double(%x: tensor<16xi32>) -> tensor<16xi32> {
  %d = func.call @double(%x) : (tensor<16xi32>) -> tensor<16xi32>
  %y = arith.muli %d, %d : tensor<16xi32>
  return %y : tensor<16xi32>
}
func.func @kernel(%p: !tile.ptr<i32>) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %v = func.call @square_of_double(%r) : (tensor<16xi32>) -> tensor<16xi32>
  %ps = tile.splat %p : tensor<16x!tile.ptr<i32>>
  %pp = tile.addptr %ps, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %pp, %v : tensor<16x!tile.ptr<i32>>
  return
}

// -----

func.func private @loop(%x: i32) -> i32 {
  // expected-error @+1 {{recursive call to 'loop' cannot be inlined}}
  %y = func.call @loop(%x) : (i32) -> i32
  return %y : i32
}
func.func @kernel(%n: i32) {
  %y = func.call @loop(%n) : (i32) -> i32
  return
}
