// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @range_not_power_of_two() {
  // expected-error @+1 {{length 1000 is not a power of two}}
  %r = tile.make_range {start = 0 : i32, end = 1000 : i32} : tensor<1000xi32>
  return
}

// -----

func.func @range_wrong_length() {
  // expected-error @+1 {{result must be a 1-D tensor of 64 elements}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<32xi32>
  return
}

// -----

func.func @bad_broadcast(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{dimension 1 of size 8 cannot broadcast to 16}}
  %b = tile.broadcast %x : tensor<4x8xi32> -> tensor<4x16xi32>
  return
}

// -----

func.func @bad_expand(%x: tensor<8xi32>) {
  // expected-error @+1 {{result shape must be the operand's with a 1 inserted at axis 0}}
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  return
}

// -----

func.func @addptr_shapes(%p: tensor<8x!tile.ptr<f32>>, %o: tensor<16xi32>) {
  // expected-error @+1 {{pointer and offset shapes differ}}
  %q = tile.addptr %p, %o : tensor<8x!tile.ptr<f32>>, tensor<16xi32>
  return
}

// -----

func.func @other_without_mask(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'other' needs a mask}}
  %v = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1>} : (!tile.ptr<f32>, f32) -> f32
  return
}

// -----

// expected-error @+1 {{!tile.ptr must point at a scalar integer or float}}
func.func @pointer_to_tensor(%p: !tile.ptr<tensor<4xf32>>) {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32}}
func.func @bad_layout(%x: tensor<32xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout order must be a permutation of 0..1}}
func.func @bad_order(%x: tensor<32x32xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]}>>) {
  return
}

// -----

func.func @scan_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %s = tile.scan %x {axis = 1 : i32} : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.scan.return %c : f32
  }
  return
}

// -----

func.func @scan_result_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{each result must have its operand's type}}
  %s = tile.scan %x {axis = 0 : i32} : tensor<8xf32> -> tensor<8xf16> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.scan.return %c : f32
  }
  return
}

// -----

func.func @scan_combiner_arity(%x: tensor<8xi32>) {
  // expected-error @+1 {{combiner takes 2 arguments}}
  %s = tile.scan %x {axis = 0 : i32} : tensor<8xi32> -> tensor<8xi32> {
  ^bb0(%a: i32):
    tile.scan.return %a : i32
  }
  return
}
