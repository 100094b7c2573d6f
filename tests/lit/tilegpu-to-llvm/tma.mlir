// RUN: tilec-opt %s -tilegpu-allocate-shared -tilegpu-insert-barriers -tilegpu-to-llvm | FileCheck %s
// RUN: %if ptxas %{ tilec-opt %s -tilegpu-allocate-shared -tilegpu-insert-barriers -tilegpu-to-llvm | mlir-translate --mlir-to-llvmir | llc -march=nvptx64 -mcpu=sm_90a -mattr=+ptx86 -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin && FileCheck %s --check-prefix=PTX < %t.ptx %}

// A 64 x 128 f16 block through TMA: 256-byte rows, so two 128-byte
// swizzle columns, two copies of a 64 x 64 box (the second 64 elements
// further along the row, 64 x 128 bytes further into the buffer). Thread
// 0 initialises the barrier, announces the 16384 bytes and issues the
// copies; a barrier separates the init from everyone's wait and the waits
// from the inval. The map is a grid-constant 128-byte parameter.
#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: llvm.func @tma_block
  // CHECK-SAME: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
  // CHECK: mbarrier.init.shared::cta.b64 [$1], 1;
  // CHECK-SAME: fence.mbarrier_init.release.cluster;
  // CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;
  // CHECK: fence.proxy.async.shared::cta;
  // CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];
  // CHECK: nvvm.barrier0
  // CHECK: mbarrier.try_wait.parity.shared::cta.b64
  // CHECK: nvvm.barrier0
  // CHECK: mbarrier.inval.shared::cta.b64
  // PTX: .param .align 64 .b8 tma_block_param_0[128]
  // PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
  func.func @tma_block(%map: !tile.tensormap, %i: i32, %j: i32, %out: !tile.ptr<f16>) {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #nvmma, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.barrier_expect %b, 16384, %true : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.async_tma_copy_global_to_local %map[%i, %j] %buf, %b, %true : !tilegpu.memdesc<64x128xf16, #nvmma, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.wait_barrier %b, %c0 : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.inval_barrier %b : !tilegpu.memdesc<1xi64, #bar, mutable>
    %t = tilegpu.local_load %buf : !tilegpu.memdesc<64x128xf16, #nvmma, mutable> -> tensor<64x128xf16, #rows>
    %p = tile.splat %out : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.store %p, %t : tensor<64x128x!tile.ptr<f16>, #rows>
    return
  }
}
