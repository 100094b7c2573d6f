// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-insert-barriers -tilegpu-to-llvm -split-input-file | FileCheck %s

// Two warpgroups, each 64 rows of a 128 x 128 accumulator: per K step of
// 16 one m64n128k16, so 4 for K = 64. A is K-major (read as is), B is
// N-major (read transposed: the last immediate). Descriptors: A's stride is
// one 8-row pattern of 128-byte rows (1024 bytes, 64 in 16-byte units, at
// bit 32), its leading offset unused (1, bit 16), the 128-byte swizzle mode
// 1 at bit 62; B's leading offset is the distance between its two 64-column
// blocks, 64 rows x 128 bytes (512 units). Each buffer's stores end with a
// proxy fence (wgmma reads through the async proxy), before the barrier;
// wgmma.fence comes first, one commit and a wait that ties the 64
// registers last.
#a = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @k_major_a_n_major_b
  // CHECK: "fence.proxy.async.shared::cta;"
  // CHECK: "fence.proxy.async.shared::cta;"
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NOT: fence.proxy
  // CHECK: "wgmma.fence.sync.aligned;"
  // CHECK-DAG: llvm.mlir.constant(4611686293305360384 : i64)
  // CHECK-DAG: llvm.mlir.constant(4611686293338849280 : i64)
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, 1, 1, 1, 0, 1;
  // CHECK-NOT: wgmma.mma_async
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 0;"
  func.func @k_major_a_n_major_b(%x: tensor<128x64xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>,
                                 %y: tensor<64x128xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>>,
                                 %c: tensor<128x128xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<128x64xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>>) -> !tilegpu.memdesc<128x64xf16, #a>
    %b = tilegpu.local_alloc %y : (tensor<64x128xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>>) -> !tilegpu.memdesc<64x128xf16, #a>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #a>, !tilegpu.memdesc<64x128xf16, #a>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
    %ps = tile.splat %p : tensor<128x128x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<128x128x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// bf16 with K = 32: 64-byte rows, so the 64-byte swizzle (mode 2 at bit
// 62, a 512-byte pattern: stride 32 units). B is K-major here (its
// contiguous dimension is K, dimension 0): read as is. One warpgroup, two
// K steps of an m64n64k16.
#a = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
#b = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#l = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#lt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @k_major_b
  // CHECK: llvm.mlir.constant(-9223371899415756800 : i64)
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 0, 0;
  // CHECK-NOT: wgmma.mma_async
  func.func @k_major_b(%x: tensor<64x32xbf16, #l>, %y: tensor<32x64xbf16, #lt>,
                       %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x32xbf16, #l>) -> !tilegpu.memdesc<64x32xbf16, #a>
    %b = tilegpu.local_alloc %y : (tensor<32x64xbf16, #lt>) -> !tilegpu.memdesc<32x64xbf16, #b>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xbf16, #a>, !tilegpu.memdesc<32x64xbf16, #b>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// pending = 1: the commit is followed by a wait that leaves this group in
// flight; warp_group_dot_wait (after the loop that chains such dots) waits
// for everything, tying the registers again.
#a = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
#b = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#l = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#lt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @in_flight
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 1;"
  // CHECK: "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},0,1,2,
  func.func @in_flight(%x: tensor<64x32xf16, #l>, %y: tensor<32x64xf16, #lt>,
                       %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x32xf16, #l>) -> !tilegpu.memdesc<64x32xf16, #a>
    %b = tilegpu.local_alloc %y : (tensor<32x64xf16, #lt>) -> !tilegpu.memdesc<32x64xf16, #b>
    %d = tilegpu.warp_group_dot %a, %b, %c {pending = 1 : i32} : !tilegpu.memdesc<64x32xf16, #a>, !tilegpu.memdesc<32x64xf16, #b>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %e = tilegpu.warp_group_dot_wait %d {pending = 0 : i32} : tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %e : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// B through a transposed view (x @ W^T): W's 64 x 32 tile is stored with
// its K dimension (dimension 1) contiguous, and the view, 32 x 64 with
// order [0, 1], is the K-major B of @k_major_b: the same descriptor, read
// as is, at the buffer's own address (the view moves nothing).
#a = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
#b = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#l = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @transposed_view_b
  // CHECK-NOT: memdesc_trans
  // CHECK: llvm.mlir.constant(-9223371899415756800 : i64)
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 0, 0;
  // CHECK-NOT: wgmma.mma_async
  func.func @transposed_view_b(%x: tensor<64x32xbf16, #l>, %w: tensor<64x32xbf16, #l>,
                               %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x32xbf16, #l>) -> !tilegpu.memdesc<64x32xbf16, #a>
    %wb = tilegpu.local_alloc %w : (tensor<64x32xbf16, #l>) -> !tilegpu.memdesc<64x32xbf16, #a>
    %b = tilegpu.memdesc_trans %wb : !tilegpu.memdesc<64x32xbf16, #a> -> !tilegpu.memdesc<32x64xbf16, #b>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xbf16, #a>, !tilegpu.memdesc<32x64xbf16, #b>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// A in registers (the accumulator's operand-A layout): per K step of 16
// each warp passes its m16k16 fragment as four 32-bit words, packed before
// wgmma.fence; B is read through its descriptor as before. No buffer, no
// barrier for A.
#b = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
#l = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @register_a
  // CHECK: "fence.proxy.async.shared::cta;"
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NOT: fence.proxy
  // CHECK-COUNT-16: llvm.bitcast {{.*}} : vector<2xf16> to i32
  // CHECK: "wgmma.fence.sync.aligned;"
  // CHECK-NOT: llvm.bitcast {{.*}} : vector<2xf16> to i32
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {$64, $65, $66, $67}, $68, 1, 1, 1, 1;
  // CHECK-NOT: wgmma.mma_async
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 0;"
  func.func @register_a(%x: tensor<64x64xf16, #opa>, %y: tensor<64x128xf16, #l>,
                        %c: tensor<64x128xf32, #acc>, %p: !tile.ptr<f32>) {
    %b = tilegpu.local_alloc %y : (tensor<64x128xf16, #l>) -> !tilegpu.memdesc<64x128xf16, #b>
    %d = tilegpu.warp_group_dot %x, %b, %c : tensor<64x64xf16, #opa>, !tilegpu.memdesc<64x128xf16, #b>, tensor<64x128xf32, #acc> -> tensor<64x128xf32, #acc>
    %ps = tile.splat %p : tensor<64x128x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x128x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// The other types, K-major both (wgmma transposes 16-bit operands only):
// every K step moves 32 bytes along a K-major row, so fp8 and i8 step by
// 32 elements (k32) and f32 by 8 (k8, read as tf32), with the descriptors
// of a 16-bit operand of the same row bytes. Floats pass scale-d and the
// two operand scales and no transpose immediates; i8 passes scale-d alone
// and accumulates in s32 registers.
#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>
#b8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [0, 1]}>
#a32 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [1, 0]}>
#b32 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#l = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#lt = #tilegpu.blocked<{sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#l32 = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#lt32 = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @fp8_pairing
  // CHECK: llvm.mlir.constant(-9223371899415756800 : i64)
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {{.*}}, $32, $33, 1, 1, 1;"
  // CHECK-NOT: wgmma.mma_async
  func.func @fp8_pairing(%x: tensor<64x64xf8E4M3FN, #l>, %y: tensor<64x64xf8E5M2, #lt>,
                         %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x64xf8E4M3FN, #l>) -> !tilegpu.memdesc<64x64xf8E4M3FN, #a8>
    %b = tilegpu.local_alloc %y : (tensor<64x64xf8E5M2, #lt>) -> !tilegpu.memdesc<64x64xf8E5M2, #b8>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, !tilegpu.memdesc<64x64xf8E5M2, #b8>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }

  // CHECK-LABEL: llvm.func @i8
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, $32, $33, 1;", "=r,
  // CHECK-NOT: wgmma.mma_async
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 0;", "=r,
  func.func @i8(%x: tensor<64x64xi8, #l>, %y: tensor<64x64xi8, #lt>,
                %c: tensor<64x64xi32, #acc>, %p: !tile.ptr<i32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x64xi8, #l>) -> !tilegpu.memdesc<64x64xi8, #a8>
    %b = tilegpu.local_alloc %y : (tensor<64x64xi8, #lt>) -> !tilegpu.memdesc<64x64xi8, #b8>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #a8>, !tilegpu.memdesc<64x64xi8, #b8>, tensor<64x64xi32, #acc> -> tensor<64x64xi32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<i32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<i32>, #acc>
    return
  }

  // 128-byte rows of 32 f32: the 128-byte swizzle, four k8 steps.
  // CHECK-LABEL: llvm.func @tf32
  // CHECK: llvm.mlir.constant(4611686293305360384 : i64)
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, $32, $33, 1, 1, 1;"
  // CHECK-NOT: wgmma.mma_async
  func.func @tf32(%x: tensor<64x32xf32, #l32>, %y: tensor<32x64xf32, #lt32>,
                  %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x32xf32, #l32>) -> !tilegpu.memdesc<64x32xf32, #a32>
    %b = tilegpu.local_alloc %y : (tensor<32x64xf32, #lt32>) -> !tilegpu.memdesc<32x64xf32, #b32>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xf32, #a32>, !tilegpu.memdesc<32x64xf32, #b32>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }
}

// -----

// fp8 with maxNumImpreciseAcc = 64 and K = 128: two runs of two k32 steps.
// Each run's first instruction overwrites its registers (scale-d 0), the
// second accumulates (1); the run is waited for and added to the
// accumulator in f32 (32 adds), and the next run's wgmma.fence follows
// those adds. Nothing is left in flight: no other commit or wait.
#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 8, order = [1, 0]}>
#b8 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 8, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#l = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#lt = #tilegpu.blocked<{sizePerThread = [16, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @promoted
  // CHECK: "wgmma.fence.sync.aligned;"
  // CHECK: m64n64k32.f32.e4m3.e4m3 {{.*}}, $32, $33, 0, 1, 1;"
  // CHECK: m64n64k32.f32.e4m3.e4m3 {{.*}}, $32, $33, 1, 1, 1;"
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 0;"
  // CHECK-COUNT-32: llvm.fadd
  // CHECK: "wgmma.fence.sync.aligned;"
  // CHECK: m64n64k32.f32.e4m3.e4m3 {{.*}}, $32, $33, 0, 1, 1;"
  // CHECK: m64n64k32.f32.e4m3.e4m3 {{.*}}, $32, $33, 1, 1, 1;"
  // CHECK: "wgmma.commit_group.sync.aligned;\0A\09wgmma.wait_group.sync.aligned 0;"
  // CHECK-COUNT-32: llvm.fadd
  // CHECK-NOT: wgmma
  // CHECK: llvm.return
  func.func @promoted(%x: tensor<64x128xf8E4M3FN, #l>, %y: tensor<128x64xf8E4M3FN, #lt>,
                      %c: tensor<64x64xf32, #acc>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %x : (tensor<64x128xf8E4M3FN, #l>) -> !tilegpu.memdesc<64x128xf8E4M3FN, #a8>
    %b = tilegpu.local_alloc %y : (tensor<128x64xf8E4M3FN, #lt>) -> !tilegpu.memdesc<128x64xf8E4M3FN, #b8>
    %d = tilegpu.warp_group_dot %a, %b, %c {maxNumImpreciseAcc = 64 : i32} : !tilegpu.memdesc<64x128xf8E4M3FN, #a8>, !tilegpu.memdesc<128x64xf8E4M3FN, #b8>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #acc>
    tile.store %ps, %d : tensor<64x64x!tile.ptr<f32>, #acc>
    return
  }
}
