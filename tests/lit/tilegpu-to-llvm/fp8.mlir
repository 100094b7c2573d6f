// RUN: tilec-opt %s -split-input-file -tilegpu-to-llvm -verify-diagnostics | FileCheck %s

// fp8 registers are i8 bits. Conversions use sm_89's cvt forms, one
// register at a time: e4m3/e5m2 to f16 (exact) then f32, and f32 to fp8
// with .satfinite; constants are their bits; selects and stores move bytes.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @convert
  // CHECK-COUNT-2: llvm.inline_asm "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h" %{{.*}} : (i16) -> i32
  // CHECK: llvm.inline_asm "cvt.rn.f16x2.e5m2x2 $0, $1;", "=r,h"
  // CHECK: llvm.fpext %{{.*}} : f16 to f32
  // CHECK-COUNT-2: llvm.inline_asm "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;", "=h,f,f"
  // CHECK: llvm.mlir.constant(-64 : i8) : i8
  // CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i8
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<2xi8>, !llvm.ptr<1>
  func.func @convert(%x: tensor<64xf8E4M3FN, #blocked>, %s: f8E5M2, %c: tensor<64xi1, #blocked>,
                     %p: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32>) {
    %w = arith.extf %x : tensor<64xf8E4M3FN, #blocked> to tensor<64xf32, #blocked>
    %sw = arith.extf %s : f8E5M2 to f32
    %n = arith.truncf %w : tensor<64xf32, #blocked> to tensor<64xf8E5M2, #blocked>
    %k = arith.constant dense<-2.0> : tensor<64xf8E5M2, #blocked>
    %r = arith.select %c, %n, %k : tensor<64xi1, #blocked>, tensor<64xf8E5M2, #blocked>
    %ps = tile.splat %p : tensor<64x!tile.ptr<f8E5M2>, #blocked>
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #blocked>
    %pp = tile.addptr %ps, %i : tensor<64x!tile.ptr<f8E5M2>, #blocked>, tensor<64xi32, #blocked>
    tile.store %pp, %r : tensor<64x!tile.ptr<f8E5M2>, #blocked>
    tile.store %q, %sw : !tile.ptr<f32>
    return
  }
}

// -----

// Arithmetic left on fp8 (tile-widen-fp8 did not run) is an error.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  func.func @unwidened(%x: tensor<64xf8E4M3FN, #blocked>, %p: !tile.ptr<f8E4M3FN>) {
    // expected-error @below {{computes on fp8 values, which GPUs cannot: run tile-widen-fp8 first}}
    %y = arith.addf %x, %x : tensor<64xf8E4M3FN, #blocked>
    %ps = tile.splat %p : tensor<64x!tile.ptr<f8E4M3FN>, #blocked>
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #blocked>
    %pp = tile.addptr %ps, %i : tensor<64x!tile.ptr<f8E4M3FN>, #blocked>, tensor<64xi32, #blocked>
    tile.store %pp, %y : tensor<64x!tile.ptr<f8E4M3FN>, #blocked>
    return
  }
}

// -----

// sm_80 has no fp8 conversions: a located error before any lowering.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
  func.func @old(%x: tensor<64xf8E4M3FN, #blocked>, %p: !tile.ptr<f16>) {
    // expected-error @below {{converting fp8 values needs sm_89 or newer (the target is sm_80)}}
    %w = arith.extf %x : tensor<64xf8E4M3FN, #blocked> to tensor<64xf16, #blocked>
    %ps = tile.splat %p : tensor<64x!tile.ptr<f16>, #blocked>
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #blocked>
    %pp = tile.addptr %ps, %i : tensor<64x!tile.ptr<f16>, #blocked>, tensor<64xi32, #blocked>
    tile.store %pp, %w : tensor<64x!tile.ptr<f16>, #blocked>
    return
  }
}

// -----

// Any float converts to and from fp8 through f32: f16 widens exactly
// first, and the result of an fp8 -> bf16 conversion narrows from f32.
#blocked = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_89"} {
  // CHECK-LABEL: llvm.func @any_float
  // CHECK: llvm.fpext %{{.*}} : f16 to f32
  // CHECK: llvm.inline_asm "cvt.rn.satfinite.e4m3x2.f32
  // CHECK: llvm.inline_asm "cvt.rn.f16x2.e4m3x2
  // CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
  func.func @any_float(%h: f16, %p: !tile.ptr<bf16>) {
    %e = arith.truncf %h : f16 to f8E4M3FN
    %b = arith.extf %e : f8E4M3FN to bf16
    tile.store %p, %b : !tile.ptr<bf16>
    return
  }
}
