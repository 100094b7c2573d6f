// RUN: tilec-opt %s -tilegpu-to-llvm | FileCheck %s

// fp32 tanh with afn (libdevice.fast_tanhf) is llvm.tanh with afn, which
// NVPTX selects as tanh.approx.f32, one call per register; without afn,
// or in fp64, it stays a call of libdevice's accurate __nv_tanhf /
// __nv_tanh. Other math ops with afn take upstream's __nv_fast_* calls.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @approximate
  // CHECK-COUNT-2: llvm.call_intrinsic "llvm.tanh"(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
  // CHECK-NOT: llvm.call_intrinsic "llvm.tanh"
  // CHECK: llvm.call @__nv_tanhf(%{{.*}}) : (f32) -> f32
  // CHECK-NOT: llvm.call_intrinsic "llvm.tanh"
  // CHECK: llvm.call @__nv_tanh(%{{.*}}) : (f64) -> f64
  // CHECK: llvm.call @__nv_fast_expf(%{{.*}}) : (f32) -> f32
  // CHECK: llvm.return
  func.func @approximate(%x: tensor<64xf32, #blocked>, %a: f32, %c: f64,
                         %p: !tile.ptr<f32>, %q: !tile.ptr<f64>) {
    %t = math.tanh %x fastmath<afn> : tensor<64xf32, #blocked>
    %s = math.tanh %a : f32
    %w = math.tanh %c fastmath<afn> : f64
    %e = math.exp %a fastmath<afn> : f32
    %ps = tile.splat %p : tensor<64x!tile.ptr<f32>, #blocked>
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #blocked>
    %pp = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    tile.store %pp, %t : tensor<64x!tile.ptr<f32>, #blocked>
    tile.store %p, %s : !tile.ptr<f32>
    tile.store %q, %w : !tile.ptr<f64>
    tile.store %p, %e : !tile.ptr<f32>
    return
  }
}
