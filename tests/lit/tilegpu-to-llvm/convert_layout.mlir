// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s

// A layout conversion goes through the kernel's dynamic shared memory: all
// threads write, a barrier, all threads read, a barrier. The kernel records
// how much shared memory it needs.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked}>
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 128 : i32}
// CHECK: llvm.mlir.global external @tilec_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
module attributes {tilegpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK: nvvm.barrier0
  func.func @convert(%x: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #slice>
    %c = tilegpu.convert_layout %r : tensor<32xi32, #slice> -> tensor<32xi32, #slice1>
    %e = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked>
    %xs = tile.splat %x : tensor<1x32x!tile.ptr<i32>, #blocked>
    %xp = tile.addptr %xs, %e : tensor<1x32x!tile.ptr<i32>, #blocked>, tensor<1x32xi32, #blocked>
    tile.store %xp, %e : tensor<1x32x!tile.ptr<i32>, #blocked>
    return
  }
}
