// RUN: tilec-opt %s -split-input-file -tilegpu-widen-fp8 -verify-diagnostics | FileCheck %s

// Arithmetic on fp8 runs in f32 and rounds back; compares read extended
// operands; selects, constants and fp8 <-> f32 conversions stay; a
// conversion from fp8 to f16 goes through f32; reduction combiners too.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @arith
  func.func @arith(%x: tensor<64xf8E4M3FN, #blocked>, %y: tensor<64xf8E4M3FN, #blocked>,
                   %s: f8E5M2) -> (tensor<64xf8E4M3FN, #blocked>, tensor<64xf16, #blocked>, f8E5M2) {
    // The fp8 constant folds into its extension.
    // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
    // CHECK-DAG: %[[XW:.*]] = arith.extf %arg0 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    // CHECK-DAG: %[[YW:.*]] = arith.extf %arg1 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    // CHECK: %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : tensor<64xf32, #blocked>
    // CHECK: %[[PN:.*]] = arith.truncf %[[P]] : tensor<64xf32, #blocked> to tensor<64xf8E4M3FN, #blocked>
    %p = arith.mulf %x, %y : tensor<64xf8E4M3FN, #blocked>
    // CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : tensor<64xf32, #blocked>
    %c = arith.cmpf ogt, %p, %y : tensor<64xf8E4M3FN, #blocked>
    // CHECK: arith.select %{{.*}}, %[[PN]], %arg1 : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    %r = arith.select %c, %p, %y : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    // CHECK: %[[H:.*]] = arith.extf %arg0 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    // CHECK-NEXT: arith.truncf %[[H]] : tensor<64xf32, #blocked> to tensor<64xf16, #blocked>
    %h = arith.extf %x : tensor<64xf8E4M3FN, #blocked> to tensor<64xf16, #blocked>
    // CHECK: arith.negf %{{.*}} : f32
    // CHECK: arith.addf %{{.*}}, %[[ONE]] : f32
    // CHECK: arith.truncf %{{.*}} : f32 to f8E5M2
    %one = arith.constant 1.0 : f8E5M2
    %n = arith.negf %s : f8E5M2
    %t = arith.addf %n, %one : f8E5M2
    return %r, %h, %t : tensor<64xf8E4M3FN, #blocked>, tensor<64xf16, #blocked>, f8E5M2
  }

  // CHECK-LABEL: func.func @combiner
  func.func @combiner(%x: tensor<64xf8E5M2, #blocked>) -> f8E5M2 {
    // CHECK: tile.reduce
    // CHECK: ^bb0(%[[A:.*]]: f8E5M2, %[[B:.*]]: f8E5M2):
    // CHECK-DAG: arith.extf %[[A]] : f8E5M2 to f32
    // CHECK-DAG: arith.extf %[[B]] : f8E5M2 to f32
    // CHECK: %[[M:.*]] = arith.maxnumf %{{.*}}, %{{.*}} : f32
    // CHECK: %[[MN:.*]] = arith.truncf %[[M]] : f32 to f8E5M2
    // CHECK: tile.reduce.return %[[MN]] : f8E5M2
    %m = "tile.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f8E5M2, %b: f8E5M2):
      %r = arith.maxnumf %a, %b : f8E5M2
      tile.reduce.return %r : f8E5M2
    }) : (tensor<64xf8E5M2, #blocked>) -> f8E5M2
    return %m : f8E5M2
  }
}

// -----

// sm_80 has no fp8 conversions or fp8 mma.sync: a located error.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
  func.func @old(%x: tensor<64xf8E4M3FN, #blocked>) -> tensor<64xf32, #blocked> {
    // expected-error @below {{converting fp8 values needs sm_89 or newer (the target is sm_80)}}
    %w = arith.extf %x : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    return %w : tensor<64xf32, #blocked>
  }
}

// -----

// Moving fp8 bits needs no fp8 instruction, on any target.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
  // CHECK-LABEL: func.func @moves
  // CHECK-NOT: arith.extf
  // CHECK: arith.select
  func.func @moves(%c: tensor<64xi1, #blocked>, %x: tensor<64xf8E4M3FN, #blocked>,
                   %y: tensor<64xf8E4M3FN, #blocked>) -> tensor<64xf8E4M3FN, #blocked> {
    %r = arith.select %c, %x, %y : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    return %r : tensor<64xf8E4M3FN, #blocked>
  }
}
