// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-to-llvm | FileCheck %s

// tile.gather: the source stored once into the op's scratch, row-major; a
// barrier; each result register loads src[index] from shared memory, 0
// where the index is outside [0, 256).

#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @gather
  func.func @gather(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #blocked>
    %ps = tile.splat %p : tensor<256x!tile.ptr<f32>, #blocked>
    %pp = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>, #blocked>, tensor<256xi32, #blocked>
    %qs = tile.splat %q : tensor<256x!tile.ptr<i32>, #blocked>
    %qp = tile.addptr %qs, %r : tensor<256x!tile.ptr<i32>, #blocked>, tensor<256xi32, #blocked>
    %src = tile.load %pp : tensor<256x!tile.ptr<f32>, #blocked>
    %idx = tile.load %qp : tensor<256x!tile.ptr<i32>, #blocked>
    // CHECK: llvm.store %{{.*}}, %{{.*}} : vector<2xf32>, !llvm.ptr<3>
    // CHECK: nvvm.barrier0
    // CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
    // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
    // CHECK: llvm.select
    // CHECK: llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
    // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
    // CHECK: llvm.select
    %g = tile.gather %src, %idx {axis = 0 : i32} : tensor<256xf32, #blocked>, tensor<256xi32, #blocked> -> tensor<256xf32, #blocked>
    tile.store %pp, %g : tensor<256x!tile.ptr<f32>, #blocked>
    return
  }
}
