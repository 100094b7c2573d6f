// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.trans and tile.reshape: shapes, permutations, element counts, and
// the layouts of their tensors in tilegpu IR.

func.func @trans_order_length(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order has 3 entries for an operand of rank 2}}
  %t = tile.trans %x {order = array<i32: 2, 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_not_a_permutation(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %t = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @trans_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of 0..1}}
  %t = tile.trans %x {order = array<i32: -1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{result shape must be the operand's permuted by the order}}
  %t = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x4x2xf32>
  return
}

// -----

func.func @trans_element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{operand of 32 elements cannot become a result of 64}}
  %r = tile.reshape %x : tensor<4x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %r = tile.reshape %x : tensor<4x8xi32> -> tensor<32xf32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_half_layout(%x: tensor<32x64xf32, #b>) {
  // expected-error @+1 {{operand and result must both have a layout, or neither}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32, #b> -> tensor<64x32xf32>
  return
}

// -----

// The result of a trans is the operand's layout with its dimensions
// permuted; the same blocked layout for the transposed shape is not it.
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @trans_wrong_layout(%x: tensor<32x64xf32, #b>) {
  // expected-error @+1 {{result layout must be the operand's rearranged, #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>, not}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32, #b> -> tensor<64x32xf32, #b>
  return
}

// -----

// A reshape keeps every element in its register: flattening this blocked
// tile puts the column repetition (register bit 2) at element 32.
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wrong = #tilegpu.linear<{register = [[1], [2], [512], [1024]], lane = [[4], [8], [16], [64], [128]], warp = [[256], [32]]}>
func.func @reshape_wrong_layout(%x: tensor<32x64xf32, #b>) {
  // expected-error @+1 {{result layout must be the operand's rearranged, #tilegpu.linear<{register = [[1], [2], [32], [1024]], lane = [[4], [8], [16], [64], [128]], warp = [[256], [512]]}>, not}}
  %r = tile.reshape %x : tensor<32x64xf32, #b> -> tensor<2048xf32, #wrong>
  return
}

// -----

// Any spelling of the right layout is accepted: here the #linear form of
// the transposed blocked layout.
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#t = #tilegpu.linear<{register = [[1, 0], [2, 0], [32, 0], [0, 16]], lane = [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]], warp = [[0, 4], [0, 8]]}>
func.func @trans_linear_spelling(%x: tensor<32x64xf32, #b>) -> tensor<64x32xf32, #t> {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x64xf32, #b> -> tensor<64x32xf32, #t>
  return %t : tensor<64x32xf32, #t>
}
