// RUN: tilec-opt %s -split-input-file -tile-prefetch-loads | FileCheck %s

// The loads of a dot's operands move one iteration ahead: the first before
// the loop (masked by lb < ub), the next at the top of the body from the
// advanced pointers (masked by iv + step < ub); the loop carries them.
// CHECK-LABEL: func.func @matmul_loop
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[LB:.*]], %[[UB:.*]] : i32
// CHECK: %[[G0:.*]] = tile.splat %[[FIRST]] : tensor<32x16xi1>
// CHECK: %[[A0:.*]] = tile.load %{{.*}}, %[[G0]] : tensor<32x16x!tile.ptr<f16>>
// CHECK: scf.for %[[IV:.*]] = %[[LB]] to %[[UB]] step %[[STEP:.*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}, %[[CUR:.*]] = %[[A0]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK: %[[PN:.*]] = tile.addptr %[[P]]
// CHECK: %[[G:.*]] = tile.splat %[[RUNS]] : tensor<32x16xi1>
// CHECK: %[[AN:.*]] = tile.load %[[PN]], %[[G]]
// CHECK: tile.dot %[[CUR]], %{{.*}}, %[[ACC]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[AN]]
func.func @matmul_loop(%pa: !tile.ptr<f16>, %b: tensor<16x16xf16>, %lb: i32, %ub: i32, %step: i32, %out: !tile.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<32x16xf32>
  %offs = arith.constant dense<16> : tensor<32x16xi32>
  %p0 = tile.splat %pa : tensor<32x16x!tile.ptr<f16>>
  %r:2 = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero, %p = %p0) -> (tensor<32x16xf32>, tensor<32x16x!tile.ptr<f16>>) : i32 {
    %a = tile.load %p : tensor<32x16x!tile.ptr<f16>>
    %d = tile.dot %a, %b, %acc : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %pn = tile.addptr %p, %offs : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    scf.yield %d, %pn : tensor<32x16xf32>, tensor<32x16x!tile.ptr<f16>>
  }
  %po = tile.splat %out : tensor<32x16x!tile.ptr<f32>>
  tile.store %po, %r#0 : tensor<32x16x!tile.ptr<f32>>
  return
}

// -----

// A load that feeds no dot stays where it is.
// CHECK-LABEL: func.func @no_dot
// CHECK: scf.for
// CHECK-NEXT: tile.load
func.func @no_dot(%pa: !tile.ptr<f32>, %lb: i32, %ub: i32, %step: i32) {
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %p0 = tile.splat %pa : tensor<32x!tile.ptr<f32>>
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero) -> (tensor<32xf32>) : i32 {
    %a = tile.load %p0 : tensor<32x!tile.ptr<f32>>
    %s = arith.addf %a, %acc : tensor<32xf32>
    scf.yield %s : tensor<32xf32>
  }
  tile.store %p0, %r : tensor<32x!tile.ptr<f32>>
  return
}

// -----

// An address that comes from another load in the loop cannot be computed
// ahead: the index load (invariant address) moves ahead, the load it
// addresses stays, reading through the carried indices.
// CHECK-LABEL: func.func @indirect
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[IDX:.*]] = %{{.*}})
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<16x16x!tile.ptr<i32>>
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %[[IDX]]
// CHECK-NEXT: tile.load %[[P]] : tensor<16x16x!tile.ptr<f16>>
func.func @indirect(%pi: !tile.ptr<i32>, %pa: !tile.ptr<f16>, %b: tensor<16x16xf16>, %lb: i32, %ub: i32, %step: i32, %out: !tile.ptr<f32>) {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %pis = tile.splat %pi : tensor<16x16x!tile.ptr<i32>>
  %pas = tile.splat %pa : tensor<16x16x!tile.ptr<f16>>
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
    %idx = tile.load %pis : tensor<16x16x!tile.ptr<i32>>
    %p = tile.addptr %pas, %idx : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
    %a = tile.load %p : tensor<16x16x!tile.ptr<f16>>
    %d = tile.dot %a, %b, %acc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %po = tile.splat %out : tensor<16x16x!tile.ptr<f32>>
  tile.store %po, %r : tensor<16x16x!tile.ptr<f32>>
  return
}

// -----

// A loop that stores may read back what it stored: nothing moves ahead.
// CHECK-LABEL: func.func @stores
// CHECK: scf.for
// CHECK-NEXT: tile.load
// CHECK-NOT: iter_args({{.*}}, {{.*}}, {{.*}})
func.func @stores(%pa: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %b: tensor<16x16xf16>, %lb: i32, %ub: i32, %step: i32) {
  %pas = tile.splat %pa : tensor<16x16x!tile.ptr<f16>>
  %pcs = tile.splat %pc : tensor<16x16x!tile.ptr<f32>>
  scf.for %i = %lb to %ub step %step : i32 {
    %a = tile.load %pas : tensor<16x16x!tile.ptr<f16>>
    %c = tile.load %pcs : tensor<16x16x!tile.ptr<f32>>
    %d = tile.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
    tile.store %pcs, %d : tensor<16x16x!tile.ptr<f32>>
  }
  return
}

// -----

// A device print (or assertion) in the loop writes the program's output,
// not memory: the loads still move ahead. A store would stop them.
// CHECK-LABEL: func.func @printing_loop
// CHECK: tile.load
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.print
// CHECK: tile.dot
func.func @printing_loop(%pa: !tile.ptr<f16>, %b: tensor<16x16xf16>, %lb: i32, %ub: i32, %step: i32) {
  %zero = arith.constant dense<0.0> : tensor<32x16xf32>
  %offs = arith.constant dense<16> : tensor<32x16xi32>
  %p0 = tile.splat %pa : tensor<32x16x!tile.ptr<f16>>
  %r:2 = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero, %p = %p0) -> (tensor<32x16xf32>, tensor<32x16x!tile.ptr<f16>>) : i32 {
    tile.print %i : i32 {argsSigned = array<i1: true>, hex = false, prefix = " i: "}
    %a = tile.load %p : tensor<32x16x!tile.ptr<f16>>
    %d = tile.dot %a, %b, %acc : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>
    %pn = tile.addptr %p, %offs : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    scf.yield %d, %pn : tensor<32x16xf32>, tensor<32x16x!tile.ptr<f16>>
  }
  return
}
