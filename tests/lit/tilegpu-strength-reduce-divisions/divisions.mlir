// RUN: tilec-opt %s -tilegpu-strength-reduce-divisions -split-input-file | FileCheck %s

// A division by a loop argument in a loop: its reciprocal before the loop
// (32 steps of a restoring division; no 64-bit divide, which is a call),
// a multiply-high and shifts in it, the sign put back from n xor d.
// CHECK-LABEL: func.func @signed_in_loop
// CHECK-NOT: arith.divui
// CHECK: math.ctlz
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32_i32
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i32
// CHECK: scf.yield {{.*}} : i32, i32
// CHECK: scf.for
// CHECK-NOT: arith.divsi
// CHECK: arith.mului_extended
// CHECK: arith.shrui
// CHECK: arith.xori
// CHECK: arith.shrsi
// CHECK: scf.yield
func.func @signed_in_loop(%n: i32, %d: i32, %trips: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %x = arith.addi %n, %i : i32
    %q = arith.divsi %x, %d : i32
    %s = arith.addi %acc, %q : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// -----

// Unsigned: no magnitudes; a remainder is n - q d. Two divisions by one
// divisor share its reciprocal.
// CHECK-LABEL: func.func @unsigned_remainder
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32_i32
// CHECK-NOT: %c32_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg2
// CHECK-NOT: arith.remui
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.cmpi slt
// CHECK: arith.mului_extended
// CHECK: arith.muli
// CHECK: arith.subi
// CHECK: scf.yield
func.func @unsigned_remainder(%n: i32, %d: i32, %trips: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %trips step %c1 iter_args(%a = %c0, %b = %c0) -> (i32, i32) : i32 {
    %x = arith.addi %n, %i : i32
    %q = arith.divui %x, %d : i32
    %m = arith.remui %x, %d : i32
    scf.yield %q, %m : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// -----

// The pipeliner's guard of a divisor computed ahead, inside the loop:
// moved out, and the division reduced.
// CHECK-LABEL: func.func @guarded_divisor
// CHECK: arith.select
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg1
// CHECK-NOT: arith.divsi
// CHECK: arith.mului_extended
func.func @guarded_divisor(%d: i32, %trips: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %trips step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %zero = arith.cmpi eq, %d, %c0 : i32
    %safe = arith.select %zero, %c1, %d : i32
    %q = arith.divsi %i, %safe : i32
    scf.yield %q : i32
  }
  return %r : i32
}

// -----

// Left alone: a constant divisor (also behind the guard, which folds), a
// divisor the loop changes, a loop of two iterations (whose guard stays
// where it is), a division outside any loop, i64.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: arith.mului_extended
// CHECK: arith.divsi %{{.*}}, %c8
// CHECK: arith.divsi %{{.*}}, %c8
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.divsi {{.*}} : i64
// CHECK: scf.for
// CHECK-NEXT: arith.cmpi eq, %arg1
// CHECK-NEXT: arith.select
// CHECK-NEXT: arith.divsi
// CHECK: arith.divsi %arg0, %arg1 : i32
// CHECK-NOT: arith.mului_extended
func.func @left_alone(%n: i32, %d: i32, %wide: i64, %trips: i32) -> (i32, i32, i32, i32, i64, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  %c0_64 = arith.constant 0 : i64
  %r:4 = scf.for %i = %c0 to %trips step %c1 iter_args(%a = %c0, %b = %c0, %c = %c0, %e = %c0_64) -> (i32, i32, i32, i64) : i32 {
    %q = arith.divsi %i, %c8 : i32
    %zero = arith.cmpi eq, %c8, %c0 : i32
    %safe = arith.select %zero, %c1, %c8 : i32
    %g = arith.divsi %n, %safe : i32
    %changing = arith.addi %d, %i : i32
    %v = arith.divsi %n, %changing : i32
    %w = arith.divsi %wide, %wide : i64
    scf.yield %q, %g, %v, %w : i32, i32, i32, i64
  }
  %two = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %c0) -> (i32) : i32 {
    %zero2 = arith.cmpi eq, %d, %c0 : i32
    %safe2 = arith.select %zero2, %c1, %d : i32
    %q = arith.divsi %i, %safe2 : i32
    scf.yield %q : i32
  }
  %once = arith.divsi %n, %d : i32
  return %r#0, %r#1, %r#2, %two, %r#3, %once : i32, i32, i32, i32, i64, i32
}

// -----

// Nested loops: the reciprocal goes before the outermost loop the divisor
// is invariant in, even a short one (2 x a runtime count of runs); 4 x 4
// known runs are 16, enough; 2 x 4 are not.
// CHECK-LABEL: func.func @nested
// CHECK: to %c32_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg2
// CHECK: arith.mului_extended
// CHECK: to %c32_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK: arith.mului_extended
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2_i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4_i32
// CHECK-NEXT: arith.divsi
func.func @nested(%n: i32, %d: i32, %trips: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c4 = arith.constant 4 : i32
  %a = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %c0) -> (i32) : i32 {
    %b = scf.for %j = %c0 to %trips step %c1 iter_args(%y = %x) -> (i32) : i32 {
      %q = arith.divsi %j, %d : i32
      scf.yield %q : i32
    }
    scf.yield %b : i32
  }
  %e = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c0) -> (i32) : i32 {
    %f = scf.for %j = %c0 to %c4 step %c1 iter_args(%y = %x) -> (i32) : i32 {
      %q = arith.divsi %j, %d : i32
      scf.yield %q : i32
    }
    scf.yield %f : i32
  }
  %g = scf.for %i = %c0 to %c2 step %c1 iter_args(%x = %c0) -> (i32) : i32 {
    %h = scf.for %j = %c0 to %c4 step %c1 iter_args(%y = %x) -> (i32) : i32 {
      %q = arith.divsi %j, %d : i32
      scf.yield %q : i32
    }
    scf.yield %h : i32
  }
  return %a, %e, %g : i32, i32, i32
}
