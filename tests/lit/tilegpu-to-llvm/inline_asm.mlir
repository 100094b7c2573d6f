// RUN: tilec-opt %s -split-input-file -tilegpu-to-llvm -verify-diagnostics | FileCheck %s

// tile.inline_asm: one llvm.inline_asm per `pack` registers of the thread;
// operands narrower than 32 bits go in vectors of up to 32 bits, and
// several returned registers in a struct. Not pure: has side effects.

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @pack4
  func.func @pack4(%a: !tile.ptr<i8>, %b: !tile.ptr<f32>) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
    %ap = tile.splat %a : tensor<512x!tile.ptr<i8>, #blocked>
    %bp = tile.splat %b : tensor<512x!tile.ptr<f32>, #blocked>
    %a1 = tile.addptr %ap, %r : tensor<512x!tile.ptr<i8>, #blocked>, tensor<512xi32, #blocked>
    %b1 = tile.addptr %bp, %r : tensor<512x!tile.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %x = tile.load %a1 : tensor<512x!tile.ptr<i8>, #blocked>
    %y = tile.load %b1 : tensor<512x!tile.ptr<f32>, #blocked>
    // Four registers per thread, pack 4: one call, the i8 in one vector.
    // CHECK: llvm.insertelement {{.*}} : vector<4xi8>
    // CHECK: %[[R:.*]] = llvm.inline_asm asm_dialect = att "cvt", "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<4xi8>, f32, f32, f32, f32) -> !llvm.struct<(i32, i32, i32, i32, f32, f32, f32, f32)>
    // CHECK-NOT: llvm.inline_asm
    // CHECK-COUNT-8: llvm.extractvalue %[[R]]
    %c, %d = tile.inline_asm "cvt", "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", %x, %y
        {pure = true, pack = 4 : i32} : (tensor<512xi8, #blocked>, tensor<512xf32, #blocked>) -> (tensor<512xi32, #blocked>, tensor<512xf32, #blocked>)
    tile.store %b1, %d : tensor<512x!tile.ptr<f32>, #blocked>
    return
  }

  // CHECK-LABEL: llvm.func @halves
  func.func @halves(%a: !tile.ptr<f16>) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #blocked>
    %ap = tile.splat %a : tensor<512x!tile.ptr<f16>, #blocked>
    %a1 = tile.addptr %ap, %r : tensor<512x!tile.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
    %x = tile.load %a1 : tensor<512x!tile.ptr<f16>, #blocked>
    // Pack 2 of four registers: two calls, each f16 pair in one vector,
    // returned as one vector; with side effects (not pure).
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "add.rn.f16x2 $0, $1, $1;", "=r,r" %{{.*}} : (vector<2xf16>) -> vector<2xf16>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "add.rn.f16x2 $0, $1, $1;", "=r,r" %{{.*}} : (vector<2xf16>) -> vector<2xf16>
    // CHECK-NOT: llvm.inline_asm
    %y = tile.inline_asm "add.rn.f16x2 $0, $1, $1;", "=r,r", %x {pure = false, pack = 2 : i32} : (tensor<512xf16, #blocked>) -> tensor<512xf16, #blocked>
    tile.store %a1, %y : tensor<512x!tile.ptr<f16>, #blocked>
    return
  }
}

// -----

// One register per thread and pack 4: one invocation on the register and
// three undefined values, of whose results one is kept.
#one = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @padded
  func.func @padded(%a: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #one>
    // CHECK: %[[U:.*]] = llvm.mlir.undef : i32
    // CHECK: llvm.inline_asm asm_dialect = att "x", "=r,=r,=r,=r,r,r,r,r" %{{.*}}, %[[U]], %[[U]], %[[U]]
    // CHECK-NOT: llvm.inline_asm
    %y = tile.inline_asm "x", "=r,=r,=r,=r,r,r,r,r", %r {pure = true, pack = 4 : i32} : (tensor<128xi32, #one>) -> tensor<128xi32, #one>
    %ps = tile.splat %a : tensor<128x!tile.ptr<i32>, #one>
    %p = tile.addptr %ps, %r : tensor<128x!tile.ptr<i32>, #one>, tensor<128xi32, #one>
    tile.store %p, %y : tensor<128x!tile.ptr<i32>, #one>
    return
  }
}
