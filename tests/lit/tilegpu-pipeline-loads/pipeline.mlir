// RUN: tilec-opt %s -tilegpu-pipeline-loads -split-input-file | FileCheck %s
// RUN: tilec-opt %s -tilegpu-pipeline-loads=num-stages=1 -split-input-file | FileCheck %s --check-prefix=ONE

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#shared = #tilegpu.shared_linear<{rank = 2, offset = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [4, 8], [8, 0]]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 0, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // Three stages (the default): a ring of three 16x16 buffers per operand;
  // iterations 0 and 1 copied before the loop, masked by their own masks
  // and by whether they run; in the loop, iteration i+2's mask (the same
  // ops on i + 2 * step) and pointers (the carried ones, two steps ahead),
  // copied into buffer (slot + 2) % 3 = slot - 1, while buffer `slot` is
  // read; the advanced pointers yielded, the slot counted modulo 3.
  // CHECK-LABEL: func.func @pipelined
  // CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x16xf16, #shared, mutable>
  // CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x16xf16, #shared, mutable>
  // CHECK: %[[RUNS0:.*]] = arith.cmpi slt, %{{.*}}, %[[N:arg[0-9]+]] : i32
  // CHECK: %[[PA1:.*]] = tile.addptr %[[PA:[0-9]+]],
  // CHECK: %[[PB1:.*]] = tile.addptr %[[PB:[0-9]+]],
  // CHECK: %[[GUARD0:.*]] = tile.splat %[[RUNS0]] : tensor<16x16xi1, #blocked>
  // CHECK: %[[MASK0:.*]] = arith.andi %{{.*}}, %[[GUARD0]]
  // CHECK: %[[A0:.*]] = tilegpu.memdesc_index %[[A]][%c0_i32
  // CHECK: tilegpu.async_copy_global_to_local %[[PA]], %[[A0]] mask %[[MASK0]]
  // CHECK: tilegpu.async_copy_global_to_local %[[PB]],
  // CHECK-NEXT: tilegpu.async_commit_group
  // CHECK: %[[PA2:.*]] = tile.addptr %[[PA1]]
  // CHECK: %[[PB2:.*]] = tile.addptr %[[PB1]]
  // CHECK: tilegpu.memdesc_index %[[A]][%c1_i32
  // CHECK: tilegpu.async_copy_global_to_local %[[PA1]],
  // CHECK: tilegpu.async_commit_group
  // CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[PTRA:.*]] = %[[PA2]], %{{.*}} = %{{.*}}, %[[PTRB:.*]] = %[[PB2]], %[[SLOT:.*]] = %c0_i32
  // CHECK-NEXT: tilegpu.async_wait {pending = 1 : i32}
  // CHECK: %[[AHEAD:.*]] = arith.addi %[[I]], %{{.*}} : i32
  // CHECK: arith.cmpi slt, %[[AHEAD]], %[[N]]
  // CHECK: arith.subi %[[N]], %[[AHEAD]]
  // CHECK: %[[NEXTA:.*]] = tile.addptr %[[PTRA]]
  // CHECK: %[[NEXTB:.*]] = tile.addptr %[[PTRB]]
  // CHECK: %[[REFILL:.*]] = arith.select
  // CHECK: %[[FILLA:.*]] = tilegpu.memdesc_index %[[A]][%[[REFILL]]]
  // CHECK: tilegpu.async_copy_global_to_local %[[PTRA]], %[[FILLA]]
  // CHECK: tilegpu.async_copy_global_to_local %[[PTRB]]
  // CHECK-NEXT: tilegpu.async_commit_group
  // CHECK: %[[READA:.*]] = tilegpu.memdesc_index %[[A]][%[[SLOT]]]
  // CHECK: %[[READB:.*]] = tilegpu.memdesc_index %[[B]][%[[SLOT]]]
  // CHECK: tilegpu.local_load %[[READA]] {{.*}} -> tensor<16x16xf16, #dot_op>
  // CHECK: tilegpu.local_load %[[READB]] {{.*}} -> tensor<16x16xf16, #dot_op1>
  // CHECK-NOT: tile.load
  // CHECK: tile.dot
  // CHECK-NOT: tile.addptr
  // CHECK: %[[WRAP:.*]] = arith.select
  // CHECK: scf.yield %[[NEXTA]], %{{.*}}, %[[NEXTB]], %[[WRAP]]
  // CHECK: tilegpu.async_wait {pending = 0 : i32}
  // ONE-LABEL: func.func @pipelined
  // ONE-NOT: async
  // ONE: tile.load
  func.func @pipelined(%a_base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b_base: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                       %n: i32 {tile.divisibility = 16 : i64}) -> tensor<16x16xf32, #mma> {
    %r16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
    %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32, #slice1> -> tensor<16x1xi32, #blocked>
    %c16s = arith.constant dense<16> : tensor<16x1xi32, #blocked>
    %rowoff = arith.muli %rows, %c16s : tensor<16x1xi32, #blocked>
    %k16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %k = tile.expand_dims %k16 {axis = 0 : i32} : tensor<16xi32, #slice> -> tensor<1x16xi32, #blocked>
    %kb = tile.broadcast %k : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %rb = tile.broadcast %rowoff : tensor<16x1xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %off = arith.addi %rb, %kb : tensor<16x16xi32, #blocked>
    %bases = tile.splat %a_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pa = tile.addptr %bases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %bbases = tile.splat %b_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pb = tile.addptr %bbases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #mma>
    %step = arith.constant dense<16> : tensor<16x16xi32, #blocked>
    %r:3 = scf.for %i = %c0 to %n step %c16 iter_args(%a_ptrs = %pa, %acc = %acc0, %b_ptrs = %pb) -> (tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf32, #mma>, tensor<16x16x!tile.ptr<f16>, #blocked>) : i32 {
      %left = arith.subi %n, %i : i32
      %lefts = tile.splat %left : tensor<1x16xi32, #blocked>
      %in = arith.cmpi slt, %k, %lefts : tensor<1x16xi32, #blocked>
      %mask = tile.broadcast %in : tensor<1x16xi1, #blocked> -> tensor<16x16xi1, #blocked>
      %a = tile.load %a_ptrs, %mask, %zero : tensor<16x16x!tile.ptr<f16>, #blocked>
      %b = tile.load %b_ptrs : tensor<16x16x!tile.ptr<f16>, #blocked>
      %sa = tilegpu.local_alloc %a : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
      %sb = tilegpu.local_alloc %b : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
      %da = tilegpu.local_load %sa : !tilegpu.memdesc<16x16xf16, #shared> -> tensor<16x16xf16, #dot_op>
      %db = tilegpu.local_load %sb : !tilegpu.memdesc<16x16xf16, #shared> -> tensor<16x16xf16, #dot_op1>
      %d = tile.dot %da, %db, %acc : tensor<16x16xf16, #dot_op>, tensor<16x16xf16, #dot_op1> -> tensor<16x16xf32, #mma>
      %a_next = tile.addptr %a_ptrs, %step : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
      %b_next = tile.addptr %b_ptrs, %step : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
      scf.yield %a_next, %d, %b_next : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf32, #mma>, tensor<16x16x!tile.ptr<f16>, #blocked>
    }
    return %r#1 : tensor<16x16xf32, #mma>
  }

  // The loop's own tile.num_stages wins over the pass option, both ways.
  // CHECK-LABEL: func.func @two_stages
  // CHECK: memdesc<2x16x16xf16
  // CHECK: scf.for
  // CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
  // ONE-LABEL: func.func @two_stages
  // ONE: tilegpu.async_wait
  func.func @two_stages(%a_base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b_base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i32) -> tensor<16x16xf32, #mma> {
    %r16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
    %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32, #slice1> -> tensor<16x1xi32, #blocked>
    %c16s = arith.constant dense<16> : tensor<16x1xi32, #blocked>
    %rowoff = arith.muli %rows, %c16s : tensor<16x1xi32, #blocked>
    %k16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %k = tile.expand_dims %k16 {axis = 0 : i32} : tensor<16xi32, #slice> -> tensor<1x16xi32, #blocked>
    %kb = tile.broadcast %k : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %rb = tile.broadcast %rowoff : tensor<16x1xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %off = arith.addi %rb, %kb : tensor<16x16xi32, #blocked>
    %bases = tile.splat %a_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pa = tile.addptr %bases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %bbases = tile.splat %b_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pb = tile.addptr %bbases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #mma>
    %step = arith.constant dense<16> : tensor<16x16xi32, #blocked>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a_ptrs = %pa, %acc = %acc0, %b_ptrs = %pb) -> (tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf32, #mma>, tensor<16x16x!tile.ptr<f16>, #blocked>) : i32 {
      %a = tile.load %a_ptrs : tensor<16x16x!tile.ptr<f16>, #blocked>
      %b = tile.load %b_ptrs : tensor<16x16x!tile.ptr<f16>, #blocked>
      %sa = tilegpu.local_alloc %a : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
      %sb = tilegpu.local_alloc %b : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
      %da = tilegpu.local_load %sa : !tilegpu.memdesc<16x16xf16, #shared> -> tensor<16x16xf16, #dot_op>
      %db = tilegpu.local_load %sb : !tilegpu.memdesc<16x16xf16, #shared> -> tensor<16x16xf16, #dot_op1>
      %d = tile.dot %da, %db, %acc : tensor<16x16xf16, #dot_op>, tensor<16x16xf16, #dot_op1> -> tensor<16x16xf32, #mma>
      %a_next = tile.addptr %a_ptrs, %step : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
      %b_next = tile.addptr %b_ptrs, %step : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
      scf.yield %a_next, %d, %b_next : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf32, #mma>, tensor<16x16x!tile.ptr<f16>, #blocked>
    } {tile.num_stages = 2 : i32}
    return %r#1 : tensor<16x16xf32, #mma>
  }

  // A tile read by something other than a dot (here a second local_load
  // that is returned) is not the pipeliner's: left alone.
  // CHECK-LABEL: func.func @not_only_a_dot
  // CHECK-NOT: async
  // CHECK: return
  func.func @not_only_a_dot(%a_base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %b_base: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %n: i32) -> tensor<16x16xf16, #blocked> {
    %r16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
    %rows = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32, #slice1> -> tensor<16x1xi32, #blocked>
    %c16s = arith.constant dense<16> : tensor<16x1xi32, #blocked>
    %rowoff = arith.muli %rows, %c16s : tensor<16x1xi32, #blocked>
    %k16 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %k = tile.expand_dims %k16 {axis = 0 : i32} : tensor<16xi32, #slice> -> tensor<1x16xi32, #blocked>
    %kb = tile.broadcast %k : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %rb = tile.broadcast %rowoff : tensor<16x1xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %off = arith.addi %rb, %kb : tensor<16x16xi32, #blocked>
    %bases = tile.splat %a_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pa = tile.addptr %bases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %bbases = tile.splat %b_base : tensor<16x16x!tile.ptr<f16>, #blocked>
    %pb = tile.addptr %bbases, %off : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = arith.constant dense<0.000000e+00> : tensor<16x16xf16, #blocked>
    %step = arith.constant dense<16> : tensor<16x16xi32, #blocked>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a_ptrs = %pa, %last = %init) -> (tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf16, #blocked>) : i32 {
      %a = tile.load %a_ptrs : tensor<16x16x!tile.ptr<f16>, #blocked>
      %sa = tilegpu.local_alloc %a : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
      %back = tilegpu.local_load %sa : !tilegpu.memdesc<16x16xf16, #shared> -> tensor<16x16xf16, #blocked>
      %a_next = tile.addptr %a_ptrs, %step : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xi32, #blocked>
      scf.yield %a_next, %back : tensor<16x16x!tile.ptr<f16>, #blocked>, tensor<16x16xf16, #blocked>
    }
    return %r#1 : tensor<16x16xf16, #blocked>
  }
}
