// RUN: tilec-opt %s -tile-axis-info 2>&1 | FileCheck %s

// Facts move with their dimensions through a trans; a reshape keeps the
// runs along the last dimension, cut to its new length (a cut run starts
// at the run's divisibility and the new length), and knows nothing of the
// other dimensions.
func.func @rearrange(%pid: i32) {
  // CHECK: remark: contiguity = [1], divisibility = [64], constancy = [1], constant = 64
  %c64 = arith.constant 64 : i32
  // CHECK: remark: contiguity = [1], divisibility = [64], constancy = [1]
  %start = arith.muli %pid, %c64 : i32
  // CHECK: remark: contiguity = [2048], divisibility = [1073741824], constancy = [1]
  %r = tile.make_range {start = 0 : i32, end = 2048 : i32} : tensor<2048xi32>
  // CHECK: remark: contiguity = [1], divisibility = [64], constancy = [2048]
  %s = tile.splat %start : tensor<2048xi32>
  // CHECK: remark: contiguity = [2048], divisibility = [64], constancy = [1]
  %offs = arith.addi %s, %r : tensor<2048xi32>
  // CHECK: remark: contiguity = [1, 128], divisibility = [1, 64], constancy = [1, 1]
  %m = tile.reshape %offs : tensor<2048xi32> -> tensor<16x128xi32>
  // CHECK: remark: contiguity = [1, 16], divisibility = [1, 16], constancy = [1, 1]
  %n = tile.reshape %offs : tensor<2048xi32> -> tensor<128x16xi32>
  // CHECK: remark: contiguity = [128, 1], divisibility = [64, 1], constancy = [1, 1]
  %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<16x128xi32> -> tensor<128x16xi32>
  // CHECK: remark: contiguity = [1, 1, 16], divisibility = [1, 1, 16], constancy = [1, 1, 1]
  %q = tile.reshape %offs : tensor<2048xi32> -> tensor<8x16x16xi32>
  // CHECK: remark: contiguity = [1, 16, 1], divisibility = [1, 16, 1], constancy = [1, 1, 1]
  %qt = tile.trans %q {order = array<i32: 0, 2, 1>} : tensor<8x16x16xi32> -> tensor<8x16x16xi32>
  return
}
