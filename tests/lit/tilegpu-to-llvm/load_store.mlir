// RUN: tilec-opt %s -tilegpu-to-llvm -split-input-file -verify-diagnostics | FileCheck %s

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // Kernels get the NVVM kernel attributes; 1024 elements over 128 threads
  // with 4 per thread are two 128-bit accesses per thread.
  // CHECK-LABEL: llvm.func @copy
  // CHECK-SAME: nvvm.kernel
  // CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
  // CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  func.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                  %y: !tile.ptr<f32> {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #blocked>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #blocked>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>, #blocked>
    %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tile.store %yp, %v : tensor<1024x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // A mask constant over runs of 16 (n divisible by 16) keeps the accesses
  // 128 bits wide, predicated in PTX; `other` fills the masked-off lanes.
  // CHECK-LABEL: llvm.func @masked
  // CHECK: llvm.inline_asm has_side_effects "{\0Amov.b32 $0, $6;{{.*}}@$4 ld.global.v4.b32 {$0, $1, $2, $3}, [ $5 + 0 ];\0A}", "=r,=r,=r,=r,b,l,r,r,r,r"
  // CHECK: llvm.inline_asm has_side_effects "@$0 st.global.v4.b32 [ $1 + 0 ], {$2, $3, $4, $5};", "b,l,r,r,r,r"
  func.func @masked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                    %n: i32 {tile.divisibility = 16 : i64}) {
    %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #blocked>
    %ns = tile.splat %n : tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #blocked>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tile.load %xp, %m, %zero : tensor<1024x!tile.ptr<f32>, #blocked>
    tile.store %xp, %v, %m : tensor<1024x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // Without alignment facts each element is its own (predicated) access.
  // CHECK-LABEL: llvm.func @unaligned
  // CHECK-COUNT-8: @$1 ld.global.b32 $0, [ $2 + 0 ];
  func.func @unaligned(%x: !tile.ptr<f32>, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #blocked>
    %ns = tile.splat %n : tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #blocked>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>, #blocked>
    %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tile.load %xp, %m : tensor<1024x!tile.ptr<f32>, #blocked>
    tile.store %xp, %v, %m : tensor<1024x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// expected-error @+1 {{tilegpu-to-llvm needs a module that went through tile-to-tilegpu}}
module {
  func.func @no_layouts() {
    return
  }
}
