// RUN: tilec-opt %s -tile-axis-info -split-input-file 2>&1 | FileCheck %s

// A loop-carried pointer advanced by 256 elements (1 KiB) each iteration:
// on entry it is a 16-byte aligned run of 256, after each step too, so at
// the fixpoint the iteration argument keeps both facts. The induction
// variable is a multiple of what its lower bound and step are.
func.func @pointer_increment(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                             %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %xs = tile.splat %x : tensor<256x!tile.ptr<f32>>
  %xp0 = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %step = tile.splat %c256 : tensor<256xi32>
  // (Remarks come in walk order: the loop's body, then the loop.)
  // CHECK: [[@LINE+4]]:10: remark: contiguity = [1], divisibility = [256], constancy = [1]
  // CHECK: [[@LINE+4]]:11: remark: contiguity = [256], divisibility = [16], constancy = [1]
  // CHECK: [[@LINE+1]]:10: remark: contiguity = [256], divisibility = [16], constancy = [1]
  %res = scf.for %i = %c0 to %n step %c256 iter_args(%xp = %xp0) -> (tensor<256x!tile.ptr<f32>>) : i32 {
    %j = arith.addi %i, %c0 : i32
    %xn = tile.addptr %xp, %step : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    scf.yield %xn : tensor<256x!tile.ptr<f32>>
  }
  return
}

// -----

// Advanced by 3 elements (12 bytes) each iteration the pointer is only
// 4-byte aligned after the first step: the fixpoint keeps the weaker fact.
func.func @misaligned_step(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                           %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %xs = tile.splat %x : tensor<256x!tile.ptr<f32>>
  %xp0 = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %step = arith.constant dense<3> : tensor<256xi32>
  // CHECK: [[@LINE+1]]:10: remark: contiguity = [256], divisibility = [4], constancy = [1]
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%xp = %xp0) -> (tensor<256x!tile.ptr<f32>>) : i32 {
    %xn = tile.addptr %xp, %step : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
    scf.yield %xn : tensor<256x!tile.ptr<f32>>
  }
  return
}

// -----

// Where the arms of an scf.if meet, the facts of both hold: runs of 64
// (the shorter), divisible by 16 (the smaller).
func.func @join(%c: i1, %a: i32 {tile.divisibility = 16 : i64}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %s = tile.splat %a : tensor<128xi32>
  %c64 = arith.constant dense<64> : tensor<128xi32>
  // CHECK: [[@LINE+1]]:8: remark: contiguity = [64], divisibility = [16], constancy = [1]
  %v = scf.if %c -> (tensor<128xi32>) {
    %w = arith.addi %s, %r : tensor<128xi32>
    scf.yield %w : tensor<128xi32>
  } else {
    %m = arith.remsi %r, %c64 : tensor<128xi32>
    %w = arith.addi %m, %s : tensor<128xi32>
    scf.yield %w : tensor<128xi32>
  }
  return
}
