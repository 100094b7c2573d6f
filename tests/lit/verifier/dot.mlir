// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @inner_mismatch(%a: tensor<32x16xf16>, %b: tensor<32x32xf16>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{the inner dimensions differ}}
  %d = tile.dot %a, %b, %c : tensor<32x16xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  return
}

// -----

func.func @acc_shape(%a: tensor<32x16xf16>, %b: tensor<16x64xf16>, %c: tensor<32x32xf32>) {
  // expected-error @+1 {{the accumulator must be 32x64}}
  %d = tile.dot %a, %b, %c : tensor<32x16xf16>, tensor<16x64xf16> -> tensor<32x32xf32>
  return
}

// -----

func.func @too_small(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{M, N and K must be at least 16, got 8, 16, 16}}
  %d = tile.dot %a, %b, %c : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf32>
  return
}

// -----

func.func @mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operands must have one element type, got 'f16' and 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @bf16_into_bf16(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xbf16>) {
  // expected-error @+1 {{no dot of 'bf16' operands into a 'bf16' accumulator}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xbf16>
  return
}

// -----

func.func @batch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{operands must share the batch dimension}}
  %d = tile.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @rank(%a: tensor<16xf16>, %b: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error @+1 {{operands must be 2-D, or 3-D with a leading batch dimension, got rank 1}}
  %d = tile.dot %a, %b, %c : tensor<16xf16>, tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

// expected-error @+1 {{mma version 4 is not supported (2: mma.sync, 3: wgmma)}}
func.func @mma_version(%x: tensor<16x16xf32, #tilegpu.mma<{version = 4, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>) {
  return
}

// -----

// expected-error @+1 {{mma version 2 has instrShape [16, 8]}}
func.func @mma_shape(%x: tensor<16x16xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{dot_op kWidth of an mma parent must be 1, 2 or 4, got 3}}
func.func @kwidth(%x: tensor<16x16xf16, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 3}>>) {
  return
}

// -----

// expected-error @+1 {{dot_op parent must be an #tilegpu.mma or #tilegpu.blocked layout}}
func.func @parent(%x: tensor<16x16xf16, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1, 1, 1], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]}>}>, kWidth = 2}>>) {
  return
}

// -----

func.func @imprecise_f16(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{maxNumImpreciseAcc bounds the accumulation of fp8 products only, not of 'f16'}}
  %d = tile.dot %a, %b, %c {maxNumImpreciseAcc = 16 : i32} : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @imprecise_above_k(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x16xf8E4M3FN>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{maxNumImpreciseAcc must be at most K (32), got 64}}
  %d = tile.dot %a, %b, %c {maxNumImpreciseAcc = 64 : i32} : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  return
}
