// RUN: tilec-opt %s -canonicalize -split-input-file | FileCheck %s

// acc + dot(a, b, 0) accumulates in the dot itself.
// CHECK-LABEL: func.func @fold
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC:.*]] :
// CHECK-NOT: arith.addf
func.func @fold(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// -----

// A dot outside a loop whose one use is an add inside it stays outside:
// folding would recompute the product every iteration.
// CHECK-LABEL: func.func @no_sinking
// CHECK: tile.dot
// CHECK: scf.for
// CHECK-NOT: tile.dot
// CHECK: arith.addf
func.func @no_sinking(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %init: tensor<16x16xf32>, %n: i32) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %d = tile.dot %a, %b, %zero : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<16x16xf32>) : i32 {
    %s = arith.addf %acc, %d : tensor<16x16xf32>
    scf.yield %s : tensor<16x16xf32>
  }
  return %r : tensor<16x16xf32>
}

// -----

// A non-zero accumulator is not folded away.
// CHECK-LABEL: func.func @nonzero
// CHECK: tile.dot
// CHECK: arith.addf
func.func @nonzero(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %one : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// -----

// An fp8 dot folds with a run of its K (32): its products are still summed
// from zero and added to acc in f32, as unfolded; a count it has is kept.
// CHECK-LABEL: func.func @fp8_fold
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {maxNumImpreciseAcc = 32 : i32} : tensor<16x32xf8E4M3FN>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {maxNumImpreciseAcc = 16 : i32} : tensor<16x32xf8E5M2>
// CHECK-NOT: arith.addf
func.func @fp8_fold(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x16xf8E4M3FN>,
                    %a2: tensor<16x32xf8E5M2>, %b2: tensor<32x16xf8E5M2>,
                    %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E4M3FN> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  %d2 = tile.dot %a2, %b2, %zero {maxNumImpreciseAcc = 16 : i32} : tensor<16x32xf8E5M2>, tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  %s2 = arith.addf %s, %d2 : tensor<16x16xf32>
  return %s2 : tensor<16x16xf32>
}
