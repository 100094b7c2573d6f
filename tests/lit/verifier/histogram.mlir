// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.histogram: a 1-D integer input, an optional mask of its shape, a
// 1-D i32 result (the bins).

func.func @ok(%x: tensor<1024xi32>, %m: tensor<1024xi1>) {
  %h = tile.histogram %x, %m : tensor<1024xi32>, tensor<1024xi1> -> tensor<64xi32>
  %g = tile.histogram %x : tensor<1024xi32> -> tensor<2048xi32>
  return
}

// -----

func.func @floats(%x: tensor<64xf32>) {
  // expected-error @+1 {{input must be a 1-D tensor of integers}}
  %h = tile.histogram %x : tensor<64xf32> -> tensor<64xi32>
  return
}

// -----

func.func @rank(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{input must be a 1-D tensor of integers}}
  %h = tile.histogram %x : tensor<8x8xi32> -> tensor<64xi32>
  return
}

// -----

func.func @mask(%x: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask must be booleans of the input's shape}}
  %h = tile.histogram %x, %m : tensor<64xi32>, tensor<32xi1> -> tensor<64xi32>
  return
}

// -----

func.func @result(%x: tensor<64xi32>) {
  // expected-error @+1 {{result must be a 1-D tensor of i32}}
  %h = tile.histogram %x : tensor<64xi32> -> tensor<64xi64>
  return
}
