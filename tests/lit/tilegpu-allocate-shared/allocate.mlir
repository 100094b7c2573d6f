// RUN: tilec-opt %s -tilegpu-allocate-shared -split-input-file -verify-diagnostics | FileCheck %s

#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// Two buffers alive at once get separate bytes; a third, allocated after
// both are dead, reuses the first bytes. 32x32 fp32 is 4096 bytes.
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 8192 : i32
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @lifetimes
  // CHECK: %[[A:.*]] = tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 0 : i32
  // CHECK: %[[B:.*]] = tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 4096 : i32
  // CHECK: tilegpu.local_load %[[A]]
  // CHECK: tilegpu.local_load %[[B]]
  // CHECK: tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 0 : i32
  func.func @lifetimes(%x: tensor<32x32xf32, #blocked>) {
    %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %b = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %la = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #blocked1>
    %lb = tilegpu.local_load %b : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #blocked1>
    %c = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %lc = tilegpu.local_load %c : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #blocked1>
    return
  }
}

// -----

// A buffer read inside a loop lives through the whole loop: the scratch of
// a reduction inside the loop cannot take its bytes. Reducing a 32x32 tile
// along rows spread over four warps needs 4 warps x 32 rows x 4 bytes.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK: tilegpu.shared_bytes = 4608 : i32
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @loop
  // CHECK: tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 0 : i32
  // CHECK: tile.reduce {{.*}}tilegpu.shared_offset = 4096 : i32
  func.func @loop(%x: tensor<32x32xf32, #blocked>, %n: i32) {
    %a = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %v = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #cols>
      %s = tile.reduce %v {axis = 0 : i32} : tensor<32x32xf32, #cols> -> tensor<32xf32, #tilegpu.slice<{dim = 0, parent = #cols}>> {
      ^bb0(%p: f32, %q: f32):
        %r = arith.addf %p, %q : f32
        tile.reduce.return %r : f32
      }
    }
    return
  }
}

// -----

// More than the target allows one block is an error naming the kernel: a
// 256x256 fp32 buffer is 256 KiB, over sm_86's 99 KiB.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_86"} {
  // expected-error @+1 {{kernel 'too_big' needs 262144 bytes of shared memory, more than the 101376 sm_86 allows one block}}
  func.func @too_big(%x: tensor<256x256xf32, #blocked>) {
    %a = tilegpu.local_alloc %x : (tensor<256x256xf32, #blocked>) -> !tilegpu.memdesc<256x256xf32, #shared>
    return
  }
}

// -----

// A buffer carried through control flow would need a lifetime (and in a
// loop, copies) the allocator does not model: an error, not aliasing.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @yielded(%x: tensor<32x32xf32, #blocked>, %c: i1) {
    %a = scf.if %c -> !tilegpu.memdesc<32x32xf32, #shared> {
      %t = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
      // expected-error @+1 {{a shared buffer can only be used by local_load, local_store, local_dealloc, memdesc_index, memdesc_trans, async_copy_global_to_local, warp_group_dot and the TMA and mbarrier ops, not 'scf.yield'}}
      scf.yield %t : !tilegpu.memdesc<32x32xf32, #shared>
    } else {
      %t = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #shared>
      scf.yield %t : !tilegpu.memdesc<32x32xf32, #shared>
    }
    %l = tilegpu.local_load %a : !tilegpu.memdesc<32x32xf32, #shared> -> tensor<32x32xf32, #blocked>
    return
  }
}

// -----

// A buffer read through a transposed view lives until the view's last
// read: the second buffer, allocated before that read, gets its own bytes
// (8192 bytes past the first's 128 x 32 f16, on the 1024-byte alignment
// of nvmma_shared buffers).
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked_t = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#k_last = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
#k_first = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @transposed_view
  // CHECK: tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 0 : i32
  // CHECK: tilegpu.local_alloc {{.*}}tilegpu.shared_offset = 8192 : i32
  func.func @transposed_view(%x: tensor<128x32xf16, #blocked>) {
    %a = tilegpu.local_alloc %x : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #k_last>
    %t = tilegpu.memdesc_trans %a : !tilegpu.memdesc<128x32xf16, #k_last> -> !tilegpu.memdesc<32x128xf16, #k_first>
    %b = tilegpu.local_alloc %x : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #k_last>
    %lb = tilegpu.local_load %b : !tilegpu.memdesc<128x32xf16, #k_last> -> tensor<128x32xf16, #blocked>
    %lt = tilegpu.local_load %t : !tilegpu.memdesc<32x128xf16, #k_first> -> tensor<32x128xf16, #blocked_t>
    return
  }
}
