// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-insert-barriers -tilegpu-to-llvm -split-input-file | FileCheck %s

// A buffer written by 4-element rows and read back the same way: 16-byte
// shared stores and loads at the buffer's offset in the kernel's dynamic
// shared memory, a barrier between them.
#rows = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK: llvm.mlir.global external @tilec_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @round_trip
  // CHECK: llvm.mlir.addressof @tilec_shared
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  func.func @round_trip(%x: tensor<16x32xf32, #rows>, %p: !tile.ptr<f32>) {
    %buf = tilegpu.local_alloc %x : (tensor<16x32xf32, #rows>) -> !tilegpu.memdesc<16x32xf32, #shared>
    %y = tilegpu.local_load %buf : !tilegpu.memdesc<16x32xf32, #shared> -> tensor<16x32xf32, #rows>
    %ps = tile.splat %p : tensor<16x32x!tile.ptr<f32>, #rows>
    tile.store %ps, %y : tensor<16x32x!tile.ptr<f32>, #rows>
    return
  }
}

// -----

// 64 elements over 128 threads: half the threads hold copies, and only the
// owners store (a predicated st.shared), so no two threads write one
// address.
#small = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @copies
  // CHECK: llvm.inline_asm has_side_effects "@$0 st.shared.b32 [ $1 + 0 ], $2;", "b,r,r"
  func.func @copies(%x: tensor<64xf32, #small>) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64xf32, #shared, mutable>
    tilegpu.local_store %x, %buf : tensor<64xf32, #small> -> !tilegpu.memdesc<64xf32, #shared, mutable>
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<64xf32, #shared, mutable>
    return
  }
}
