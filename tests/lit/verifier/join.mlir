// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.join: two operands of one type, a result with a last dimension of
// 2, and in tilegpu IR a result layout that keeps each operand's elements
// where they are.

func.func @join_shape(%a: tensor<16xf32>) {
  // expected-error @+1 {{result shape must be the operands' with a last dimension of 2}}
  %j = tile.join %a, %a : tensor<16xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @join_types(%a: tensor<16xf32>, %b: tensor<16xf16>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %j = "tile.join"(%a, %b) : (tensor<16xf32>, tensor<16xf16>) -> tensor<16x2xf32>
  return
}

// -----

func.func @join_element_type(%a: tensor<16xf32>) {
  // expected-error @+1 {{result element type must be the operands'}}
  %j = tile.join %a, %a : tensor<16xf32> -> tensor<16x2xi32>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @join_half_a_layout(%a: tensor<512xf32, #b>) {
  // expected-error @+1 {{operands and result must all have a layout, or none}}
  %j = tile.join %a, %a : tensor<512xf32, #b> -> tensor<512x2xf32>
  return
}

// -----

// The new dimension in the lowest register bit (as the rule gives it), or
// in any other register bit: both keep every element in its thread.
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#lowest = #tilegpu.blocked<{sizePerThread = [4, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#highest = #tilegpu.linear<{register = [[1, 0], [2, 0], [0, 1]], lane = [[4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], warp = [[128, 0], [256, 0]]}>
func.func @join_layouts(%a: tensor<512xf32, #b>) -> (tensor<512x2xf32, #lowest>, tensor<512x2xf32, #highest>) {
  %j = tile.join %a, %a : tensor<512xf32, #b> -> tensor<512x2xf32, #lowest>
  %k = tile.join %a, %a : tensor<512xf32, #b> -> tensor<512x2xf32, #highest>
  return %j, %k : tensor<512x2xf32, #lowest>, tensor<512x2xf32, #highest>
}

// -----

// The new dimension across lanes would move elements between threads.
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#lanes = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @join_across_lanes(%a: tensor<512xf32, #b>) {
  // expected-error @+1 {{result layout must hold each operand's elements where the operands' layout}}
  %j = tile.join %a, %a : tensor<512xf32, #b> -> tensor<512x2xf32, #lanes>
  return
}
