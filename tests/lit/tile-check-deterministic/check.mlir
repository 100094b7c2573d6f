// RUN: tilec-opt %s -split-input-file -verify-diagnostics -tile-check-deterministic | FileCheck %s

// Accepted, and left unchanged: a float accumulation split by the program
// id and constants (its end a runtime size), integer atomics, float loads
// carried without being combined, a runtime-stepped loop of integers.

// CHECK-LABEL: func.func @fixed_split
// CHECK: scf.for
// CHECK: tile.atomic_rmw add
func.func @fixed_split(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %count: !tile.ptr<i32>,
                       %n: i32, %step: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c512 = arith.constant 512 : i32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %c512 : i32
  %end0 = arith.addi %start, %c512 : i32
  %end = arith.minsi %end0, %n : i32
  %sum = scf.for %i = %start to %end step %c64 iter_args(%acc = %zero) -> (f32) : i32 {
    %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  // Overwritten each iteration, never combined: any split.
  %last = scf.for %i = %c0 to %n step %step iter_args(%l = %zero) -> (f32) : i32 {
    %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    scf.yield %v : f32
  }
  // Integers are exact in any order.
  %isum = scf.for %i = %pid to %n step %step iter_args(%k = %c0) -> (i32) : i32 {
    %k1 = arith.addi %k, %i : i32
    scf.yield %k1 : i32
  }
  %old = tile.atomic_rmw add, %count, %isum : !tile.ptr<i32>
  %o = tile.addptr %out, %pid : !tile.ptr<f32>, i32
  %r = arith.addf %sum, %last : f32
  tile.store %o, %r : !tile.ptr<f32>
  return
}

// -----

func.func @float_atomic(%out: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{tl.atomic_add of floating-point values is not allowed with deterministic=True}}
  %old = tile.atomic_rmw add, %out, %v : !tile.ptr<f32>
  return
}

// -----

func.func @float_atomic_tensor(%out: !tile.ptr<bf16>, %v: tensor<64xbf16>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ps = tile.splat %out : tensor<64x!tile.ptr<bf16>>
  %p = tile.addptr %ps, %r : tensor<64x!tile.ptr<bf16>>, tensor<64xi32>
  // expected-error @+1 {{tl.atomic_max of floating-point values}}
  %old = tile.atomic_rmw max, %p, %v : tensor<64x!tile.ptr<bf16>>
  return
}

// -----

func.func @float_cas(%out: !tile.ptr<f32>, %c: f32, %v: f32) {
  // expected-error @+1 {{tl.atomic_cas of floating-point values}}
  %old = tile.atomic_cas %out, %c, %v : !tile.ptr<f32>
  return
}

// -----

// A grid-stride loop: each program's share of the sum depends on the grid.
func.func @grid_stride(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %pid = tile.program_id 0 : i32
  %np = tile.num_programs 0 : i32
  // expected-error @+1 {{this loop accumulates floating-point values and its step depends on the launch grid (tl.num_programs)}}
  %s = scf.for %i = %pid to %n step %np iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %p0 = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %ps = tile.splat %p0 : tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  return
}

// -----

// A split size passed at run time (as a batch-size heuristic would pick):
// the start depends on it even though the step is a constant.
func.func @runtime_split(%x: !tile.ptr<f32>, %n: i32, %split: i32) -> f32 {
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %split : i32
  %end = arith.addi %start, %split : i32
  // expected-error @+1 {{its start depends on a runtime value (a scalar argument or a loaded value)}}
  %s = scf.for %i = %start to %end step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  return %s : f32
}

// -----

// The accumulator updated inside an scf.if still accumulates; the inner
// loop's start comes from the outer induction variable, which a loaded
// value offsets.
func.func @nested(%x: !tile.ptr<f32>, %starts: !tile.ptr<i32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %zero = arith.constant 0.0 : f32
  %first = tile.load %starts : !tile.ptr<i32>
  // expected-error @+1 {{its start depends on a runtime value}}
  %s = scf.for %i = %first to %n step %c8 iter_args(%acc = %zero) -> (f32) : i32 {
    // expected-error @+1 {{its start depends on a runtime value}}
    %t = scf.for %j = %i to %n step %c8 iter_args(%inner = %acc) -> (f32) : i32 {
      %p = tile.addptr %x, %j : !tile.ptr<f32>, i32
      %v = tile.load %p : !tile.ptr<f32>
      %pos = arith.cmpf ogt, %v, %zero : f32
      %u = scf.if %pos -> (f32) {
        %a = arith.addf %inner, %v : f32
        scf.yield %a : f32
      } else {
        scf.yield %inner : f32
      }
      scf.yield %u : f32
    }
    scf.yield %t : f32
  }
  return %s : f32
}

// -----

// A while loop counting by the grid.
func.func @while_grid(%x: !tile.ptr<f32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{this while loop accumulates floating-point values and the integers it carries depend on the launch grid (tl.num_programs) and on runtime values}}
  %r:2 = scf.while (%j = %c0, %acc = %zero) : (i32, f32) -> (i32, f32) {
    %c = arith.cmpi slt, %j, %n : i32
    scf.condition(%c) %j, %acc : i32, f32
  } do {
  ^bb0(%j: i32, %acc: f32):
    %p = tile.addptr %x, %j : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    %np = tile.num_programs 0 : i32
    %step = arith.muli %np, %n : i32
    %j1 = arith.addi %j, %step : i32
    scf.yield %j1, %a : i32, f32
  }
  return %r#1 : f32
}

// -----

// A while loop counting in constant steps from the program id: accepted,
// however its condition reads runtime values.
// CHECK-LABEL: func.func @while_fixed
// CHECK: scf.while
func.func @while_fixed(%x: !tile.ptr<f32>, %n: i32) -> f32 {
  %c64 = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id 0 : i32
  %start = arith.muli %pid, %c64 : i32
  %r:2 = scf.while (%j = %start, %acc = %zero) : (i32, f32) -> (i32, f32) {
    %c = arith.cmpi slt, %j, %n : i32
    scf.condition(%c) %j, %acc : i32, f32
  } do {
  ^bb0(%j: i32, %acc: f32):
    %p = tile.addptr %x, %j : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    %j1 = arith.addi %j, %c64 : i32
    scf.yield %j1, %a : i32, f32
  }
  return %r#1 : f32
}

// -----

// Each program's share is a grid-sized chunk: the loop starts at 0 but its
// end is a share of the grid.
func.func @grid_chunk(%x: !tile.ptr<f32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %np = tile.num_programs 0 : i32
  %chunk = arith.divsi %n, %np : i32
  %pid = tile.program_id 0 : i32
  %base = arith.muli %pid, %chunk : i32
  // expected-error @+1 {{this loop accumulates floating-point values and its end depends on the launch grid (tl.num_programs)}}
  %s = scf.for %i = %c0 to %chunk step %c16 iter_args(%acc = %zero) -> (f32) : i32 {
    %at = arith.addi %base, %i : i32
    %p = tile.addptr %x, %at : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  return %s : f32
}

// -----

// A counter the loop carries, stepped by the grid.
func.func @carried_grid_counter(%x: !tile.ptr<f32>, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id 0 : i32
  %np = tile.num_programs 0 : i32
  %stride = arith.muli %np, %c16 : i32
  // expected-error @+1 {{this loop accumulates floating-point values and the offsets it carries depend on the launch grid (tl.num_programs)}}
  %r:2 = scf.for %i = %c0 to %n step %c16 iter_args(%acc = %zero, %k = %pid) -> (f32, i32) : i32 {
    %p = tile.addptr %x, %k : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %a = arith.addf %acc, %v : f32
    %k1 = arith.addi %k, %stride : i32
    scf.yield %a, %k1 : f32, i32
  }
  return %r#0 : f32
}

// -----

// A sum kept in memory: loaded, added to and stored back in a grid-stride
// loop.
func.func @sum_in_memory(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id 0 : i32
  %np = tile.num_programs 0 : i32
  // expected-error @+1 {{its step depends on the launch grid}}
  scf.for %i = %pid to %n step %np : i32 {
    %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32>
    %old = tile.load %out : !tile.ptr<f32>
    %new = arith.addf %old, %v : f32
    tile.store %out, %new : !tile.ptr<f32>
  }
  return
}

// -----

// A persistent kernel: the outer loop hands out tiles by the grid and
// accumulates nothing; each tile's sum has a fixed split. Accepted.
// CHECK-LABEL: func.func @persistent
func.func @persistent(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %tiles: i32, %n: i32) {
  %c64 = arith.constant 64 : i32
  %c512 = arith.constant 512 : i32
  %zero = arith.constant 0.0 : f32
  %pid = tile.program_id 0 : i32
  %np = tile.num_programs 0 : i32
  scf.for %w = %pid to %tiles step %np : i32 {
    %start = arith.muli %w, %c512 : i32
    %end = arith.addi %start, %c512 : i32
    %s = scf.for %i = %start to %end step %c64 iter_args(%acc = %zero) -> (f32) : i32 {
      %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
      %v = tile.load %p : !tile.ptr<f32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %o = tile.addptr %out, %w : !tile.ptr<f32>, i32
    tile.store %o, %s : !tile.ptr<f32>
  }
  return
}
