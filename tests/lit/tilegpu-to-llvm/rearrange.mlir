// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s

// trans and reshape move nothing: their results' layouts are their
// operand's rearranged, so register r of the result holds the element
// register r of the operand held (the lowering checks it on the linear
// layouts). No shuffle, no shared memory.
#a = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#t = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#l = #tilegpu.linear<{register = [[1], [128]], lane = [[2], [4], [8], [16], [32]], warp = [[64], [0]]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @rearrange
  // The trans:
  // CHECK: %[[T0:.*]] = llvm.extractvalue %arg0[0]
  // CHECK: %[[T1:.*]] = llvm.extractvalue %arg0[1]
  // CHECK: %[[T2:.*]] = llvm.extractvalue %arg0[2]
  // CHECK: %[[T3:.*]] = llvm.extractvalue %arg0[3]
  // CHECK: llvm.insertvalue %[[T0]], %{{.*}}[0]
  // CHECK: llvm.insertvalue %[[T1]], %{{.*}}[1]
  // CHECK: llvm.insertvalue %[[T2]], %{{.*}}[2]
  // CHECK: llvm.insertvalue %[[T3]], %{{.*}}[3]
  // The reshape:
  // CHECK: %[[R0:.*]] = llvm.extractvalue %arg0[0]
  // CHECK: %[[R1:.*]] = llvm.extractvalue %arg0[1]
  // CHECK: %[[R2:.*]] = llvm.extractvalue %arg0[2]
  // CHECK: %[[R3:.*]] = llvm.extractvalue %arg0[3]
  // CHECK: llvm.insertvalue %[[R0]], %{{.*}}[0]
  // CHECK: llvm.insertvalue %[[R1]], %{{.*}}[1]
  // CHECK: llvm.insertvalue %[[R2]], %{{.*}}[2]
  // CHECK: llvm.insertvalue %[[R3]], %{{.*}}[3]
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: !llvm.ptr<3>
  // CHECK: llvm.return
  func.func @rearrange(%x: tensor<2x128xf32, #a>) {
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<2x128xf32, #a> -> tensor<128x2xf32, #t>
    %r = tile.reshape %x : tensor<2x128xf32, #a> -> tensor<256xf32, #l>
    return
  }
}
