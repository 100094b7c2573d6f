// RUN: tilec-opt %s -split-input-file -tile-widen-fp8 | FileCheck %s

// Arithmetic on fp8 runs in f32 and rounds back; compares read extended
// operands; selects, constants and conversions between fp8 and other
// floats stay; reduction combiners too. Nothing is folded (a fold would
// compute on fp8 constants with APFloat's overflow rules).
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @arith
  func.func @arith(%x: tensor<64xf8E4M3FN, #blocked>, %y: tensor<64xf8E4M3FN, #blocked>,
                   %s: f8E5M2) -> (tensor<64xf8E4M3FN, #blocked>, tensor<64xf16, #blocked>, f8E5M2) {
    // CHECK: %[[XW:.*]] = arith.extf %arg0 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    // CHECK: %[[YW:.*]] = arith.extf %arg1 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    // CHECK: %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : tensor<64xf32, #blocked>
    // CHECK: %[[PN:.*]] = arith.truncf %[[P]] : tensor<64xf32, #blocked> to tensor<64xf8E4M3FN, #blocked>
    %p = arith.mulf %x, %y : tensor<64xf8E4M3FN, #blocked>
    // CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : tensor<64xf32, #blocked>
    %c = arith.cmpf ogt, %p, %y : tensor<64xf8E4M3FN, #blocked>
    // CHECK: arith.select %{{.*}}, %[[PN]], %arg1 : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    %r = arith.select %c, %p, %y : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    // CHECK: arith.extf %arg0 : tensor<64xf8E4M3FN, #blocked> to tensor<64xf16, #blocked>
    %h = arith.extf %x : tensor<64xf8E4M3FN, #blocked> to tensor<64xf16, #blocked>
    // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f8E5M2
    // CHECK: arith.negf %{{.*}} : f32
    // CHECK: %[[ONEW:.*]] = arith.extf %[[ONE]] : f8E5M2 to f32
    // CHECK: arith.addf %{{.*}}, %[[ONEW]] : f32
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

// Moving fp8 bits and converting fp8 from other floats stay as they are.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
  // CHECK-LABEL: func.func @moves
  // CHECK-NEXT: arith.select
  // CHECK-NEXT: arith.truncf %arg3 : tensor<64xf16, #blocked> to tensor<64xf8E5M2, #blocked>
  // CHECK-NEXT: return
  func.func @moves(%c: tensor<64xi1, #blocked>, %x: tensor<64xf8E4M3FN, #blocked>,
                   %y: tensor<64xf8E4M3FN, #blocked>, %h: tensor<64xf16, #blocked>)
      -> (tensor<64xf8E4M3FN, #blocked>, tensor<64xf8E5M2, #blocked>) {
    %r = arith.select %c, %x, %y : tensor<64xi1, #blocked>, tensor<64xf8E4M3FN, #blocked>
    %e = arith.truncf %h : tensor<64xf16, #blocked> to tensor<64xf8E5M2, #blocked>
    return %r, %e : tensor<64xf8E4M3FN, #blocked>, tensor<64xf8E5M2, #blocked>
  }
}
