// RUN: tilec-opt %s -split-input-file -tile-check-bounds | FileCheck %s

// Every pointer argument gets an extent argument, after all arguments and
// in their order; each load and store from one pointer argument asserts
// that its unmasked elements' bytes lie in [0, extent) from it.

// CHECK-LABEL: func.func @copy
// CHECK-SAME: %[[X:[^:]*]]: !tile.ptr<f32> {tile.arg_name = "x"}, %[[N:[^:]*]]: i32, %[[Y:[^:]*]]: !tile.ptr<f16> {tile.arg_name = "y"},
// CHECK-SAME: %[[XE:[^:]*]]: i64 {tile.extent_of = 0 : i64}, %[[YE:[^:]*]]: i64 {tile.extent_of = 2 : i64})
func.func @copy(%x: !tile.ptr<f32> {tile.arg_name = "x"}, %n: i32,
                %y: !tile.ptr<f16> {tile.arg_name = "y"}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ns = tile.splat %n : tensor<64xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %xs = tile.splat %x : tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // CHECK: %[[BASE:.*]] = tile.ptr_to_int %[[X]] : !tile.ptr<f32> -> i64
  // CHECK: %[[ADDR:.*]] = tile.ptr_to_int %{{.*}} : tensor<64x!tile.ptr<f32>> -> tensor<64xi64>
  // CHECK: %[[BASES:.*]] = tile.splat %[[BASE]] : tensor<64xi64>
  // CHECK: %[[OFF:.*]] = arith.subi %[[ADDR]], %[[BASES]] : tensor<64xi64>
  // CHECK: %[[EXT:.*]] = tile.splat %[[XE]] : tensor<64xi64>
  // CHECK: %[[LAST:.*]] = arith.subi %[[EXT]], %{{.*}} : tensor<64xi64>
  // CHECK: %[[GE:.*]] = arith.cmpi sge, %[[OFF]], %{{.*}} : tensor<64xi64>
  // CHECK: %[[LE:.*]] = arith.cmpi sle, %[[OFF]], %[[LAST]] : tensor<64xi64>
  // CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : tensor<64xi1>
  // A negative extent: the runtime did not know it, everything passes.
  // CHECK: %[[UNKNOWN:.*]] = arith.cmpi slt, %[[EXT]], %{{.*}} : tensor<64xi64>
  // CHECK: %[[KNOWN_OK:.*]] = arith.ori %[[IN]], %[[UNKNOWN]] : tensor<64xi1>
  // CHECK: %[[OFFMASK:.*]] = arith.xori %{{.*}}, %{{.*}} : tensor<64xi1>
  // CHECK: %[[OK:.*]] = arith.ori %[[KNOWN_OK]], %[[OFFMASK]] : tensor<64xi1>
  // CHECK: tile.assert %[[OK]], %[[OFF]], %[[EXT]] {details = ["byte offset ", " outside the ", " bytes it points to"], message = "out-of-bounds load from 'x'", valuesSigned = array<i1: true, true>}
  // CHECK-NEXT: tile.load
  %v = tile.load %xp, %m : tensor<64x!tile.ptr<f32>>
  %h = arith.truncf %v : tensor<64xf32> to tensor<64xf16>
  %ys = tile.splat %y : tensor<64x!tile.ptr<f16>>
  %yp = tile.addptr %ys, %r : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  // The fp16 elements: 2 bytes each; no mask, so no "or not masked".
  // CHECK: %[[TWO:.*]] = arith.constant dense<2> : tensor<64xi64>
  // CHECK: arith.subi %{{.*}}, %[[TWO]]
  // CHECK-NOT: arith.xori
  // CHECK: tile.assert {{.*}} message = "out-of-bounds store to 'y'"
  // CHECK-NEXT: tile.store
  tile.store %yp, %h : tensor<64x!tile.ptr<f16>>
  return
}

// -----

// Pointers carried by a loop, advanced or not by a select, stay derived
// from their argument (a dataflow fixpoint: any number of steps); a select
// between two arguments is not checked, nor is a private helper.
// CHECK-LABEL: func.func @carried
func.func @carried(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %k: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %as = tile.splat %a : tensor<32x!tile.ptr<f32>>
  %p0 = tile.addptr %as, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  // CHECK: scf.for
  // CHECK: tile.assert {{.*}} message = "out-of-bounds load from argument 1"
  // CHECK-NEXT: tile.load
  %p = scf.for %i = %c0 to %k step %c1 iter_args(%q = %p0) -> (tensor<32x!tile.ptr<f32>>) : i32 {
    %v = tile.load %q : tensor<32x!tile.ptr<f32>>
    %step = tile.splat %k : tensor<32xi32>
    %next = tile.addptr %q, %step : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
    %maybe = arith.select %c, %next, %q : tensor<32x!tile.ptr<f32>>
    scf.yield %maybe : tensor<32x!tile.ptr<f32>>
  }
  // After the loop: still derived from %a.
  // CHECK: tile.assert {{.*}} message = "out-of-bounds store to argument 1"
  // CHECK-NEXT: tile.store
  %one = arith.constant dense<1.0> : tensor<32xf32>
  tile.store %p, %one : tensor<32x!tile.ptr<f32>>
  // Either argument: not checked.
  %bs = tile.splat %b : tensor<32x!tile.ptr<f32>>
  %either = arith.select %c, %as, %bs : tensor<32x!tile.ptr<f32>>
  // CHECK-NOT: tile.assert
  // CHECK: tile.store
  tile.store %either, %one : tensor<32x!tile.ptr<f32>>
  return
}

// A helper (private) gets no extents and no checks.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: !tile.ptr<f32>)
// CHECK-NOT: tile.assert
// CHECK: return
func.func private @helper(%a: !tile.ptr<f32>) {
  %one = arith.constant 1.0 : f32
  tile.store %a, %one : !tile.ptr<f32>
  return
}
