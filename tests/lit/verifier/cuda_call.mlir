// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.cuda_call: element types a C function takes, one shape, and the
// module's list of CUDA sources.

module attributes {tile.cuda_sources = ["extern \"C\" __device__ float f(float x) { return x; }"]} {
  func.func @pointers(%p: tensor<16x!tile.ptr<f32>>) {
    // expected-error @+1 {{operands and result must be integers of 8 to 64 bits or f16, bf16, f32, f64, got 'tensor<16x!tile.ptr<f32>>'}}
    %y = tile.cuda_call @f(%p) {pure = true} : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf32>
    return
  }
}

// -----

module attributes {tile.cuda_sources = ["extern \"C\" __device__ float f(float x) { return x; }"]} {
  func.func @bools(%x: tensor<16xi1>) {
    // expected-error @+1 {{operands and result must be integers of 8 to 64 bits}}
    %y = tile.cuda_call @f(%x) {pure = true} : (tensor<16xi1>) -> tensor<16xf32>
    return
  }
}

// -----

module attributes {tile.cuda_sources = ["extern \"C\" __device__ float f(float x) { return x; }"]} {
  func.func @shapes(%x: tensor<16xf32>) {
    // expected-error @+1 {{operands and result must have one shape}}
    %y = tile.cuda_call @f(%x) {pure = true} : (tensor<16xf32>) -> tensor<32xf32>
    return
  }
}

// -----

module attributes {tile.cuda_sources = ["extern \"C\" __device__ float f(float x) { return x; }"]} {
  func.func @mixed(%x: tensor<16xf32>, %s: f32) {
    // expected-error @+1 {{operands and result must be all tensors or all scalars}}
    %y = tile.cuda_call @f(%s) {pure = true} : (f32) -> tensor<16xf32>
    return
  }
}

// -----

func.func @no_sources(%x: tensor<16xf32>) {
  // expected-error @+1 {{needs the module's 'tile.cuda_sources' attribute to list its CUDA sources}}
  %y = tile.cuda_call @f(%x) {pure = true} : (tensor<16xf32>) -> tensor<16xf32>
  return
}
