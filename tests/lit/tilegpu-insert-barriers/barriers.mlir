// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-insert-barriers -split-input-file | FileCheck %s

#rows = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // A write then a read of the same buffer (read after write): a barrier
  // between. The second buffer reuses the first's bytes while the first's
  // read may still be running (write after read): a barrier before it.
  // CHECK-LABEL: func.func @two_conversions
  // CHECK: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NOT: tilegpu.barrier
  // CHECK: return
  func.func @two_conversions(%x: tensor<32x32xf32, #rows>) {
    %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %la = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
    %b = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %lb = tilegpu.local_load %b : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
    return
  }

  // Two buffers alive together have disjoint bytes: the second write needs
  // no barrier, one barrier orders both writes before both reads.
  // CHECK-LABEL: func.func @disjoint
  // CHECK: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NOT: tilegpu.barrier
  func.func @disjoint(%x: tensor<32x32xf32, #rows>) {
    %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %b = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %la = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
    %lb = tilegpu.local_load %b : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
    return
  }

  // Reading twice needs nothing between the reads.
  // CHECK-LABEL: func.func @two_reads
  // CHECK: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.local_load
  func.func @two_reads(%x: tensor<32x32xf32, #rows>) {
    %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %la = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
    %lb = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #rows>
    return
  }
}

// -----

// A mutable buffer written at the end of an iteration and read at the
// start of the next: the fixpoint through the loop puts a barrier before
// the read (the write of the previous iteration) and one before the write
// (this iteration's read). The write in the scf.if after the loop waits for
// the loop's last write, and the read after the scf.if for the write that
// one of its arms may have done.
#rows = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @loop
  // CHECK: scf.for
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_store
  // CHECK-NEXT: }
  // CHECK: scf.if
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_store
  // CHECK: }
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  func.func @loop(%x: tensor<32x32xf32, #rows>, %n: i32, %c: i1) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf32, #shared, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf32, #shared, mutable> -> tensor<32x32xf32, #rows>
      tilegpu.local_store %x, %buf : tensor<32x32xf32, #rows> -> !tilegpu.memdesc<32x32xf32, #shared, mutable>
    }
    scf.if %c {
      tilegpu.local_store %x, %buf : tensor<32x32xf32, #rows> -> !tilegpu.memdesc<32x32xf32, #shared, mutable>
    }
    %w = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf32, #shared, mutable> -> tensor<32x32xf32, #rows>
    return
  }
}

// -----

// Regions of ops that are neither loops nor scf.if are walked too: a write
// and a read inside scf.execute_region get a barrier between them, and a
// write in a case of scf.index_switch waits for the read before it.
#rows = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @regions
  // CHECK: scf.execute_region
  // CHECK: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK: scf.index_switch
  // CHECK: case 1 {
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  func.func @regions(%x: tensor<32x32xf32, #rows>, %i: index) {
    scf.execute_region {
      %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
      %la = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #rows>
      scf.yield
    }
    scf.index_switch %i
    case 1 {
      %b = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #shared>
      %lb = tilegpu.local_load %b : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #rows>
      scf.yield
    }
    default {
      scf.yield
    }
    return
  }
}

// -----

#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // A ring of two buffers filled by asynchronous copies, as
  // tilegpu-pipeline-loads builds it. A copy writes when a wait completes
  // it, so the read after the wait needs a barrier, and the copy that
  // refills the ring while the loop reads it needs one too (after the
  // wait, before the copy: one per iteration); the read that follows the
  // copies needs none. After the loop the drained ring's bytes are written
  // for the buffer that reuses them: a barrier before it.
  // CHECK-LABEL: func.func @ring
  // CHECK: tilegpu.async_copy_global_to_local
  // CHECK-NOT: tilegpu.barrier
  // CHECK: scf.for
  // CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
  // CHECK-NOT: tilegpu.barrier
  // CHECK: tilegpu.memdesc_index
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.async_copy_global_to_local
  // CHECK-NEXT: tilegpu.async_commit_group
  // CHECK-NEXT: tilegpu.memdesc_index
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: scf.yield
  // CHECK: tilegpu.async_wait {pending = 0 : i32}
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_alloc %{{.*}} {tilegpu.shared_offset = 0 : i32}
  func.func @ring(%p: tensor<32x32x!tile.ptr<f16>, #rows>, %m: tensor<32x32xi1, #rows>,
                  %x: tensor<32x32xf16, #rows>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x32x32xf16, #shared, mutable>
    %first = tilegpu.memdesc_index %ring[%c0] : !tilegpu.memdesc<2x32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tilegpu.async_copy_global_to_local %p, %first mask %m : tensor<32x32x!tile.ptr<f16>, #rows> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>, tensor<32x32xi1, #rows>
    tilegpu.async_commit_group
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%slot = %c0) -> (i32) : i32 {
      tilegpu.async_wait {pending = 0 : i32}
      %next = arith.subi %c1, %slot : i32
      %fill = tilegpu.memdesc_index %ring[%next] : !tilegpu.memdesc<2x32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      tilegpu.async_copy_global_to_local %p, %fill mask %m : tensor<32x32x!tile.ptr<f16>, #rows> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>, tensor<32x32xi1, #rows>
      tilegpu.async_commit_group
      %read = tilegpu.memdesc_index %ring[%slot] : !tilegpu.memdesc<2x32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %t = tilegpu.local_load %read : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #cols>
      scf.yield %next : i32
    }
    tilegpu.async_wait {pending = 0 : i32}
    %after = tilegpu.local_alloc %x : (tensor<32x32xf16, #rows>) -> !tilegpu.memdesc<32x32xf16, #shared>
    %u = tilegpu.local_load %after : !tilegpu.memdesc<32x32xf16, #shared> -> tensor<32x32xf16, #cols>
    return
  }
}

// -----

// A TMA store's buffer is read by TMA until a tma_store_wait: the wait
// comes before the barrier that precedes the buffer's next write, in the
// next iteration after the read of another buffer; the barrier at the
// start of the iteration (for that read) does not end TMA's read. A read
// of the buffer after the loop needs neither, and the kernel waits before
// it returns.
#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @tma_store_reads
  // CHECK: scf.for
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.tma_store_wait
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.local_store
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.tma_store {{.*}}mutable>{{$}}
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.local_load
  // CHECK-NEXT: tilegpu.tma_store_wait
  // CHECK-NEXT: return
  func.func @tma_store_reads(%map: !tile.tensormap, %x: tensor<64x64xf16, #rows>, %n: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %in = tilegpu.local_alloc %x : (tensor<64x64xf16, #rows>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = tilegpu.local_load %in : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #rows>
      tilegpu.local_store %v, %buf : tensor<64x64xf16, #rows> -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
      tilegpu.tma_store %map[%i, %i] %buf : !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    }
    %last = tilegpu.local_load %buf : !tilegpu.memdesc<64x64xf16, #nvmma, mutable> -> tensor<64x64xf16, #rows>
    return
  }
}

// -----

// The bytes a TMA store reads, reused by an mbarrier once the buffer is
// dead: its init (one thread's write of the word) waits for TMA's read and
// a barrier, as any other write of them.
#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @tma_store_then_mbarrier
  // CHECK: tilegpu.tma_store
  // CHECK-NEXT: tilegpu.local_alloc {tilegpu.shared_offset = 0 : i32}
  // CHECK-NEXT: tilegpu.tma_store_wait
  // CHECK-NEXT: tilegpu.barrier
  // CHECK-NEXT: tilegpu.init_barrier
  func.func @tma_store_then_mbarrier(%map: !tile.tensormap, %x: tensor<64x64xf16, #rows>, %i: i32) {
    %buf = tilegpu.local_alloc %x : (tensor<64x64xf16, #rows>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    tilegpu.tma_store %map[%i, %i] %buf : !tilegpu.memdesc<64x64xf16, #nvmma>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.inval_barrier %b : !tilegpu.memdesc<1xi64, #bar, mutable>
    return
  }
}
