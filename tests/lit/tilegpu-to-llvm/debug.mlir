// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s

// tile.print: one vprintf per register, its format Triton's ("pid (X, Y, Z)
// idx (I)<prefix>(operand N) <value>", indices padded to their dimension's
// digits, floats through %f as doubles, signed i8 through %i); a '%' of the
// prefix is escaped. An operand that has fewer elements than the CTA has
// threads is printed only by the threads that own its elements (one
// branch), so that each element prints once; a scalar or a message alone,
// by the first thread. tile.debug_barrier is bar.sync.
//
// tile.assert: the registers are folded by selects into "some element
// failed" and the first failing element's index and values, then one branch
// prints that line and calls __assertfail(message, file, line, function).

// CHECK-DAG: llvm.mlir.global internal constant @[[X0:tilec_str_[0-9a-f]+]]("pid (%u, %u, %u) idx (%3u) x: (operand 0) %f\0A\00") {addr_space = 1 : i32
// CHECK-DAG: llvm.mlir.global internal constant @[[X1:tilec_str_[0-9a-f]+]]("pid (%u, %u, %u) idx (%2u) x: (operand 1) %i\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[HI:tilec_str_[0-9a-f]+]]("pid (%u, %u, %u) 100%%\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[LINE:tilec_str_[0-9a-f]+]]("pid (%u, %u, %u) idx (%3u): x < y: left %f, right %f\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[MSG:tilec_str_[0-9a-f]+]]("x < y\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[FILE:tilec_str_[0-9a-f]+]]("{{.*}}debug.mlir\00")
// CHECK-DAG: llvm.mlir.global internal constant @[[FN:tilec_str_[0-9a-f]+]]("check\00")
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)

#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @print
  // Each argument layout gets one buffer, in the entry block.
  // CHECK-COUNT-3: llvm.alloca
  // CHECK-NOT: llvm.alloca
  // Two registers of f32, no branch: every element has one owner.
  // CHECK-NOT: llvm.cond_br
  // CHECK: llvm.fpext %{{.*}} : f32 to f64
  // CHECK: llvm.mlir.addressof @[[X0]]
  // CHECK: llvm.call @vprintf
  // CHECK: llvm.fpext %{{.*}} : f32 to f64
  // CHECK: llvm.mlir.addressof @[[X0]]
  // CHECK: llvm.call @vprintf
  // 64 elements over 128 threads: the owners print.
  // CHECK: llvm.cond_br %{{.*}}, ^[[OWN:bb[0-9]+]], ^[[AFTER:bb[0-9]+]]
  // CHECK: ^[[OWN]]:
  // CHECK: llvm.sext %{{.*}} : i8 to i32
  // CHECK: llvm.mlir.addressof @[[X1]]
  // CHECK: llvm.call @vprintf
  // CHECK: llvm.br ^[[AFTER]]
  // CHECK: ^[[AFTER]]:
  // A message alone: the first thread prints it.
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK: llvm.icmp "eq"
  // CHECK: llvm.cond_br
  // CHECK: llvm.mlir.addressof @[[HI]]
  // CHECK: llvm.call @vprintf
  // CHECK: nvvm.barrier0
  func.func @print(%x: tensor<256xf32, #blocked>, %i: tensor<64xi8, #wide>) {
    tile.print %x, %i : tensor<256xf32, #blocked>, tensor<64xi8, #wide> {argsSigned = array<i1: false, true>, hex = false, prefix = " x: "}
    tile.print {argsSigned = array<i1>, hex = false, prefix = " 100%"}
    tile.debug_barrier
    return
  }

  // CHECK-LABEL: llvm.func @check
  // CHECK-COUNT-2: llvm.fcmp "olt"
  // CHECK-NOT: llvm.cond_br
  // CHECK-COUNT-3: llvm.select
  // CHECK: llvm.or
  // CHECK-COUNT-3: llvm.select
  // CHECK: llvm.cond_br %{{.*}}, ^[[FAIL:bb[0-9]+]], ^[[OK:bb[0-9]+]]
  // CHECK: ^[[FAIL]]:
  // CHECK: llvm.mlir.addressof @[[LINE]]
  // CHECK: llvm.call @vprintf
  // CHECK: llvm.mlir.addressof @[[MSG]]
  // CHECK: llvm.mlir.addressof @[[FILE]]
  // CHECK: llvm.mlir.constant([[#LINE_NO:]] : i32)
  // CHECK: llvm.mlir.addressof @[[FN]]
  // CHECK: llvm.call @__assertfail
  // CHECK: llvm.br ^[[OK]]
  func.func @check(%x: tensor<256xf32, #blocked>, %y: tensor<256xf32, #blocked>) {
    %c = arith.cmpf olt, %x, %y : tensor<256xf32, #blocked>
    tile.assert %c, %x, %y {details = ["left ", ", right ", ""], message = "x < y", valuesSigned = array<i1: false, false>} : tensor<256xi1, #blocked>, tensor<256xf32, #blocked>, tensor<256xf32, #blocked>
    return
  }
}
