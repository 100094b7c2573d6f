// The reduced divisions give what arith's do, on the CPU: every pair of a
// list of edge cases (powers of two, their neighbours, INT_MIN, INT_MAX,
// -1, 0 as a dividend) and 300000 pseudo-random pairs of every magnitude,
// signed and unsigned, quotients and remainders, against the same
// divisions outside any loop (which the pass leaves alone).
// REQUIRES: mlir-runner
// RUN: tilec-opt %s -tilegpu-strength-reduce-divisions \
// RUN:   | FileCheck %s --check-prefix=REDUCED
// RUN: tilec-opt %s -tilegpu-strength-reduce-divisions \
// RUN:   | mlir-opt -convert-scf-to-cf -convert-math-to-llvm \
// RUN:       -convert-arith-to-llvm -convert-cf-to-llvm -convert-func-to-llvm \
// RUN:       -reconcile-unrealized-casts \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN:   | FileCheck %s

// REDUCED-LABEL: func.func @reduced
// REDUCED: scf.for
// REDUCED-NOT: arith.divsi
// REDUCED-NOT: arith.remsi
// REDUCED-NOT: arith.divui
// REDUCED-NOT: arith.remui
// REDUCED: scf.yield
// REDUCED-LABEL: func.func @reference
// REDUCED: arith.divsi

// CHECK: mismatches
// CHECK-NEXT: 0
// CHECK-NEXT: pairs
// CHECK-NEXT: 300756

func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)

llvm.mlir.global internal constant @edges(dense<[
  0, 1, -1, 2, -2, 3, -3, 5, 7, -7, 8, 10, 64, 100, 641, 1000, 65535, 65536,
  65537, 1073741823, 1073741824, 1073741825, 2147483646, 2147483647,
  -2147483648, -2147483647, -1073741824, -65536]> : tensor<28xi32>) {addr_space = 0 : i32}
  : !llvm.array<28 x i32>

func.func @edge(%i: index) -> i32 {
  %table = llvm.mlir.addressof @edges : !llvm.ptr
  %at = arith.index_cast %i : index to i64
  %p = llvm.getelementptr %table[0, %at] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<28 x i32>
  %v = llvm.load %p : !llvm.ptr -> i32
  return %v : i32
}

// n / d and n % d, signed and unsigned, in a loop (of a trip count the
// pass cannot see) that does not change d: reduced by the pass.
func.func @reduced(%n: i32, %d: i32, %trips: i32) -> (i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:4 = scf.for %i = %c0 to %trips step %c1 iter_args(%a = %c0, %b = %c0, %c = %c0, %e = %c0) -> (i32, i32, i32, i32) : i32 {
    %q = arith.divsi %n, %d : i32
    %m = arith.remsi %n, %d : i32
    %uq = arith.divui %n, %d : i32
    %um = arith.remui %n, %d : i32
    scf.yield %q, %m, %uq, %um : i32, i32, i32, i32
  }
  return %r#0, %r#1, %r#2, %r#3 : i32, i32, i32, i32
}

// The same, outside any loop: left alone.
func.func @reference(%n: i32, %d: i32) -> (i32, i32, i32, i32) {
  %q = arith.divsi %n, %d : i32
  %m = arith.remsi %n, %d : i32
  %uq = arith.divui %n, %d : i32
  %um = arith.remui %n, %d : i32
  return %q, %m, %uq, %um : i32, i32, i32, i32
}

// 1 when any of the four differ; a signed pair that overflows (INT_MIN
// / -1) compares its unsigned results only.
func.func @differs(%n: i32, %d: i32) -> i64 {
  %trips = arith.constant 3 : i32
  %a:4 = call @reduced(%n, %d, %trips) : (i32, i32, i32) -> (i32, i32, i32, i32)
  %b:4 = call @reference(%n, %d) : (i32, i32) -> (i32, i32, i32, i32)
  %x0 = arith.cmpi ne, %a#0, %b#0 : i32
  %x1 = arith.cmpi ne, %a#1, %b#1 : i32
  %x2 = arith.cmpi ne, %a#2, %b#2 : i32
  %x3 = arith.cmpi ne, %a#3, %b#3 : i32
  %s = arith.ori %x0, %x1 : i1
  %u = arith.ori %x2, %x3 : i1
  %any = arith.ori %s, %u : i1
  %r = arith.extui %any : i1 to i64
  return %r : i64
}

// (INT_MIN / -1 is undefined for divsi: that pair divides unsigned only.)
func.func @check(%n: i32, %d: i32) -> i64 {
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %c1 = arith.constant 1 : i32
  %isMin = arith.cmpi eq, %n, %min : i32
  %isM1 = arith.cmpi eq, %d, %m1 : i32
  %overflow = arith.andi %isMin, %isM1 : i1
  // (Replacing d by 1 there still checks n / 1.)
  %safe = arith.select %overflow, %c1, %d : i32
  %r = call @differs(%n, %safe) : (i32, i32) -> i64
  return %r : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c28 = arith.constant 28 : index
  %zero64 = arith.constant 0 : i64
  %one64 = arith.constant 1 : i64
  // Every edge case by every nonzero one.
  %e:2 = scf.for %i = %c0 to %c28 step %c1 iter_args(%bad = %zero64, %count = %zero64) -> (i64, i64) {
    %n = func.call @edge(%i) : (index) -> i32
    %in:2 = scf.for %j = %c1 to %c28 step %c1 iter_args(%b2 = %bad, %k2 = %count) -> (i64, i64) {
      %d = func.call @edge(%j) : (index) -> i32
      %x = func.call @check(%n, %d) : (i32, i32) -> i64
      %b3 = arith.addi %b2, %x : i64
      %k3 = arith.addi %k2, %one64 : i64
      scf.yield %b3, %k3 : i64, i64
    }
    scf.yield %in#0, %in#1 : i64, i64
  }
  // Pseudo-random pairs (xorshift32); each divisor shifted right by a
  // random amount, so that every magnitude comes up; 0 becomes 1.
  %seed = arith.constant 2463534242 : i32
  %c13 = arith.constant 13 : i32
  %c17 = arith.constant 17 : i32
  %c5 = arith.constant 5 : i32
  %c31 = arith.constant 31 : i32
  %c1i = arith.constant 1 : i32
  %c0i = arith.constant 0 : i32
  %trials = arith.constant 300000 : index
  %r:4 = scf.for %t = %c0 to %trials step %c1 iter_args(%s = %seed, %bad = %e#0, %count = %e#1, %dummy = %c0i) -> (i32, i64, i64, i32) {
    %a1 = arith.shli %s, %c13 : i32
    %s1 = arith.xori %s, %a1 : i32
    %a2 = arith.shrui %s1, %c17 : i32
    %s2 = arith.xori %s1, %a2 : i32
    %a3 = arith.shli %s2, %c5 : i32
    %s3 = arith.xori %s2, %a3 : i32
    %b1 = arith.shli %s3, %c13 : i32
    %u1 = arith.xori %s3, %b1 : i32
    %b2 = arith.shrui %u1, %c17 : i32
    %u2 = arith.xori %u1, %b2 : i32
    %b3 = arith.shli %u2, %c5 : i32
    %u3 = arith.xori %u2, %b3 : i32
    %shift = arith.andi %u3, %c31 : i32
    %raw = arith.shrsi %u3, %shift : i32
    %isZero = arith.cmpi eq, %raw, %c0i : i32
    %d = arith.select %isZero, %c1i, %raw : i32
    %x = func.call @check(%s3, %d) : (i32, i32) -> i64
    %bad2 = arith.addi %bad, %x : i64
    %count2 = arith.addi %count, %one64 : i64
    scf.yield %u3, %bad2, %count2, %c0i : i32, i64, i64, i32
  }
  %mismatches = llvm.mlir.addressof @mismatches_text : !llvm.ptr
  func.call @printString(%mismatches) : (!llvm.ptr) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%r#1) : (i64) -> ()
  func.call @printNewline() : () -> ()
  %pairs = llvm.mlir.addressof @pairs_text : !llvm.ptr
  func.call @printString(%pairs) : (!llvm.ptr) -> ()
  func.call @printNewline() : () -> ()
  func.call @printI64(%r#2) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

llvm.mlir.global internal constant @mismatches_text("mismatches\00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @pairs_text("pairs\00") {addr_space = 0 : i32}
