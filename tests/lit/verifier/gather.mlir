// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.gather: one rank, the same extents but along the axis, the indices'
// shape and the source's element type for the result.

func.func @ok(%src: tensor<32x64xf32>, %idx: tensor<32x16xi32>) {
  %g = tile.gather %src, %idx {axis = 1 : i32} : tensor<32x64xf32>, tensor<32x16xi32> -> tensor<32x16xf32>
  return
}

// -----

func.func @rank(%src: tensor<32x64xf32>, %idx: tensor<16xi32>) {
  // expected-error @+1 {{source and indices must have one rank}}
  %g = tile.gather %src, %idx {axis = 0 : i32} : tensor<32x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return
}

// -----

func.func @other_dims(%src: tensor<32x64xf32>, %idx: tensor<16x16xi32>) {
  // expected-error @+1 {{source and indices must agree in every dimension but the axis}}
  %g = tile.gather %src, %idx {axis = 1 : i32} : tensor<32x64xf32>, tensor<16x16xi32> -> tensor<16x16xf32>
  return
}

// -----

func.func @axis(%src: tensor<32xf32>, %idx: tensor<32xi32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %g = tile.gather %src, %idx {axis = 1 : i32} : tensor<32xf32>, tensor<32xi32> -> tensor<32xf32>
  return
}

// -----

func.func @float_indices(%src: tensor<32xf32>, %idx: tensor<32xf32>) {
  // expected-error @+1 {{indices must be 32- or 64-bit integers (read as signed)}}
  %g = tile.gather %src, %idx {axis = 0 : i32} : tensor<32xf32>, tensor<32xf32> -> tensor<32xf32>
  return
}

// -----

func.func @result(%src: tensor<32xf32>, %idx: tensor<16xi32>) {
  // expected-error @+1 {{result must have the indices' shape and the source's element type}}
  %g = tile.gather %src, %idx {axis = 0 : i32} : tensor<32xf32>, tensor<16xi32> -> tensor<16xf16>
  return
}
