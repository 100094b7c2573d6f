// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s

// fp32 divf with afn (the DSL's '/') is div.full.f32, one intrinsic call
// per register; without afn, or in fp64, it stays an IEEE llvm.fdiv.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @divide
  // CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.fdiv %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<afn>} : f64
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.return
  func.func @divide(%x: tensor<64xf32, #blocked>, %y: tensor<64xf32, #blocked>,
                    %a: f32, %b: f32, %c: f64, %d: f64, %p: !tile.ptr<f32>, %q: !tile.ptr<f64>) {
    %t = arith.divf %x, %y fastmath<afn> : tensor<64xf32, #blocked>
    %s = arith.divf %a, %b : f32
    %w = arith.divf %c, %d fastmath<afn> : f64
    %ps = tile.splat %p : tensor<64x!tile.ptr<f32>, #blocked>
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #blocked>
    %pp = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    tile.store %pp, %t : tensor<64x!tile.ptr<f32>, #blocked>
    tile.store %p, %s : !tile.ptr<f32>
    tile.store %q, %w : !tile.ptr<f64>
    return
  }
}
