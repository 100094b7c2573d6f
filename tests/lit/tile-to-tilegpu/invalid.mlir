// RUN: tilec-opt %s -tile-to-tilegpu -verify-diagnostics -split-input-file
// RUN: not tilec-opt %s -tile-to-tilegpu=num-warps=3 -split-input-file 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not tilec-opt %s -tile-to-tilegpu=target=sm_75 -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET

// WARPS: num-warps must be a power of two between 1 and 32, got 3
// TARGET: unknown GPU target 'sm_75' (expected one of sm_80,

// Layouts are linear maps over the bits of coordinates: shapes must be
// powers of two (the DSL's tl.arange already demands it).
func.func @odd_shape() {
  // expected-error @+1 {{tensor dimensions must be powers of two, got 'tensor<3xf32>'}}
  %c = arith.constant dense<1.0> : tensor<3xf32>
  return
}

// -----

// expected-error @+1 {{kernel arguments cannot be tensors}}
func.func @tensor_argument(%x: tensor<4xf32>) {
  return
}
