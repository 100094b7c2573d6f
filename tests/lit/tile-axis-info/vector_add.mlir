// RUN: tilec-opt %s -tile-axis-info -split-input-file 2>&1 | FileCheck %s

// The facts of `pid * 1024 + arange(0, 1024)` with 16-divisible arguments:
// runs of 1024 consecutive offsets starting at multiples of 1024, a mask
// `offs < n` constant over runs of 16, and 16-byte aligned pointer runs.
func.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
               %n: i32 {tile.divisibility = 16 : i64}) {
  // CHECK: remark: arg 0: contiguity = [1], divisibility = [16], constancy = [1]
  // CHECK: remark: arg 1: contiguity = [1], divisibility = [16], constancy = [1]
  %pid = tile.program_id 0 : i32
  // CHECK: remark: contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024
  %c1024 = arith.constant 1024 : i32
  // CHECK: remark: contiguity = [1], divisibility = [1024], constancy = [1]
  %start = arith.muli %pid, %c1024 : i32
  // CHECK: remark: contiguity = [1024], divisibility = [1073741824], constancy = [1]
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  // CHECK: remark: contiguity = [1], divisibility = [1024], constancy = [1024]
  %s = tile.splat %start : tensor<1024xi32>
  // CHECK: remark: contiguity = [1024], divisibility = [1024], constancy = [1]
  %offs = arith.addi %s, %r : tensor<1024xi32>
  // CHECK: remark: contiguity = [1], divisibility = [16], constancy = [1024]
  %ns = tile.splat %n : tensor<1024xi32>
  // CHECK: remark: contiguity = [1], divisibility = [1], constancy = [16]
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // CHECK: remark: contiguity = [1], divisibility = [16], constancy = [1024]
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  // CHECK: remark: contiguity = [1024], divisibility = [16], constancy = [1]
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  return
}

// -----

// Without specialisation facts nothing is known about the arguments, and
// a stride multiplies away contiguity.
func.func @strided(%x: !tile.ptr<f32>, %stride: i32) {
  // CHECK: remark: arg 0: contiguity = [1], divisibility = [1], constancy = [1]
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %s = tile.splat %stride : tensor<64xi32>
  // CHECK: remark: contiguity = [1], divisibility = [1], constancy = [1]
  %offs = arith.muli %r, %s : tensor<64xi32>
  // Along the new dimension each element is a run of its own, and r's
  // elements (0, 1, ..., 63) are multiples of 1 only: a run of
  // consecutive integers promises its divisibility of its first element
  // alone. (Promising 2^30 there made rows `stride` apart look 16-byte
  // aligned along them: r[:, None] * stride.)
  // CHECK: remark: contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 1]
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // CHECK: remark: contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 32]
  %b = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x32xi32>
  %se = tile.splat %stride : tensor<64x1xi32>
  // CHECK: remark: contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1]
  %rows = arith.muli %e, %se : tensor<64x1xi32>
  return
}
