// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// The pieces of Hopper's wgmma: #tilegpu.nvmma_shared buffers, the
// version-3 #tilegpu.mma accumulator and tilegpu.warp_group_dot.

#a = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#b = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
func.func @ok(%a: !tilegpu.memdesc<128x64xf16, #a>, %b: !tilegpu.memdesc<64x128xf16, #b>,
              %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #a>, !tilegpu.memdesc<64x128xf16, #b>, tensor<128x128xf32, #acc> -> tensor<128x128xf32, #acc>
  return %d : tensor<128x128xf32, #acc>
}

// -----

// expected-error @+1 {{nvmma_shared swizzleBytes must be 32, 64 or 128, got 16}}
func.func @swizzle(%a: !tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 16, elementBits = 16, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared describes 2-D tiles: order must be [1, 0] or [0, 1]}}
func.func @order(%a: !tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 1]}>>) {
  return
}

// -----

// A 128-byte swizzle needs rows of 64 f16 elements.
// expected-error @+1 {{nvmma_shared with 128-byte swizzle needs a multiple of 64 elements along dimension 1, got 32}}
func.func @narrow(%a: !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared needs a multiple of 8 rows (dimension 0), got 4}}
func.func @rows(%a: !tilegpu.memdesc<4x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{nvmma_shared of 16-bit elements holds 'f32'}}
func.func @bits(%a: !tilegpu.memdesc<64x64xf32, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{mma version 3 puts whole warpgroups (4 warps) along M: warpsPerCTA must be [4k, 1]}}
func.func @warps(%x: tensor<128x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [64, 128]}>>) {
  return
}

// -----

// expected-error @+1 {{mma version 3 has instrShape [64, N] with N a multiple of 8 from 8 to 256}}
func.func @instr(%x: tensor<128x512xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 512]}>>) {
  return
}

// -----

// Eight warps are two warpgroups: 128 rows at least.
// expected-error @+1 {{a wgmma accumulator needs 64 rows per warpgroup and whole instructions along N}}
func.func @rows_per_group(%x: tensor<64x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>) {
  return
}

// -----

// (8-bit elements in registers: wgmma's register A takes 16-bit pairs here.)
// expected-error @+1 {{dot_op of a wgmma (mma version 3) parent is operand A with kWidth 2 only}}
func.func @dot_op_of_wgmma(%x: tensor<64x32xi8, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>, kWidth = 4}>>) {
  return
}

// -----

#s = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @shapes(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<128x64xf16, #s>,
                  %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{has shapes that do not multiply: 64x64 times 128x64 into 64x64}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<128x64xf16, #s>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

#s = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#t = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @types(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<64x64xbf16, #t>,
                 %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{multiplies f16 or bf16 (one type) or f32 (as tf32) into f32, fp8 into f32, or i8 into i32; got 'f16' x 'bf16' into 'f32'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<64x64xbf16, #t>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

// fp8 in any pairing, K-major, into f32; i8 into i32; f32 (tf32) into f32.
#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>
#b8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [0, 1]}>
#a32 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [1, 0]}>
#b32 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @other_types(%a: !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, %b: !tilegpu.memdesc<64x64xf8E5M2, #b8>,
                       %ai: !tilegpu.memdesc<64x64xi8, #a8>, %bi: !tilegpu.memdesc<64x64xi8, #b8>,
                       %af: !tilegpu.memdesc<64x32xf32, #a32>, %bf: !tilegpu.memdesc<32x64xf32, #b32>,
                       %c: tensor<64x64xf32, #acc>, %ci: tensor<64x64xi32, #acc>) {
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, !tilegpu.memdesc<64x64xf8E5M2, #b8>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  %di = tilegpu.warp_group_dot %ai, %bi, %ci : !tilegpu.memdesc<64x64xi8, #a8>, !tilegpu.memdesc<64x64xi8, #b8>, tensor<64x64xi32, #acc> -> tensor<64x64xi32, #acc>
  %df = tilegpu.warp_group_dot %af, %bf, %c : !tilegpu.memdesc<64x32xf32, #a32>, !tilegpu.memdesc<32x64xf32, #b32>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>
#b8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @imprecise_i8(%a: !tilegpu.memdesc<64x64xi8, #a8>, %b: !tilegpu.memdesc<64x64xi8, #b8>,
                        %c: tensor<64x64xi32, #acc>) {
  // expected-error @+1 {{bounds the imprecise accumulation of fp8 products only (maxNumImpreciseAcc)}}
  %d = tilegpu.warp_group_dot %a, %b, %c {maxNumImpreciseAcc = 32 : i32} : !tilegpu.memdesc<64x64xi8, #a8>, !tilegpu.memdesc<64x64xi8, #b8>, tensor<64x64xi32, #acc> -> tensor<64x64xi32, #acc>
  return
}

// -----

#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>
#b8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [0, 1]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @i8_into_f32(%a: !tilegpu.memdesc<64x64xi8, #a8>, %b: !tilegpu.memdesc<64x64xi8, #b8>,
                       %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{got 'i8' x 'i8' into 'f32'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #a8>, !tilegpu.memdesc<64x64xi8, #b8>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

// wgmma transposes 16-bit operands only: an N-major fp8 B cannot be read.
#a8 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 8, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @fp8_n_major_b(%a: !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, %b: !tilegpu.memdesc<64x64xf8E4M3FN, #a8>,
                         %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{reads 'f8E4M3FN' operands from K-major buffers only (order [1, 0] for A, [0, 1] for B)}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, !tilegpu.memdesc<64x64xf8E4M3FN, #a8>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

#b32 = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @tf32_m_major_a(%a: !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>>, %b: !tilegpu.memdesc<32x64xf32, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>>,
                          %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{reads 'f32' operands from K-major buffers only}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>>, !tilegpu.memdesc<32x64xf32, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 32, order = [0, 1]}>>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

#s = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @layout(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<64x64xf16, #s>,
                  %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{reads buffers in #tilegpu.nvmma_shared layouts}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<64x64xf16, #s>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

#s = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
func.func @accumulator(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<64x64xf16, #s>,
                       %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{accumulates in an #tilegpu.mma version 3 layout}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<64x64xf16, #s>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

// A dot leaves at most its own group in flight.
#s = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @pending(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<64x64xf16, #s>,
                   %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  %d = tilegpu.warp_group_dot %a, %b, %c {pending = 2 : i32} : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<64x64xf16, #s>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  return
}

// -----

// With pending = 1 the result is still being written when the op returns.
#s = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @read_in_flight(%a: !tilegpu.memdesc<64x64xf16, #s>, %b: !tilegpu.memdesc<64x64xf16, #s>,
                          %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{with pending = 1 has a result that is still being written when 'arith.addf' reads it}}
  %d = tilegpu.warp_group_dot %a, %b, %c {pending = 1 : i32} : !tilegpu.memdesc<64x64xf16, #s>, !tilegpu.memdesc<64x64xf16, #s>, tensor<64x64xf32, #acc> -> tensor<64x64xf32, #acc>
  %e = arith.addf %d, %d : tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
func.func @wait_layout(%c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{waits for a wgmma accumulator (an #tilegpu.mma version 3 layout)}}
  %d = tilegpu.warp_group_dot_wait %c {pending = 0 : i32} : tensor<64x64xf32, #acc>
  return
}

// -----

// A transposed view swaps the shape and the order: the same dimension of
// the data stays contiguous.
#k_last = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#k_first = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [0, 1]}>
func.func @trans_ok(%w: !tilegpu.memdesc<128x64xf16, #k_last, mutable>) {
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<128x64xf16, #k_last, mutable> -> !tilegpu.memdesc<64x128xf16, #k_first, mutable>
  return
}

// -----

#k_last = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
func.func @trans_same_order(%w: !tilegpu.memdesc<128x64xf16, #k_last>) {
  // expected-error @+1 {{the transposed view of '!tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>>' is '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [0, 1]}>>', not}}
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<128x64xf16, #k_last> -> !tilegpu.memdesc<64x128xf16, #k_last>
  return
}

// -----

#k_last = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#k_first = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [0, 1]}>
func.func @trans_mutability(%w: !tilegpu.memdesc<128x64xf16, #k_last, mutable>) {
  // expected-error @+1 {{the transposed view of}}
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<128x64xf16, #k_last, mutable> -> !tilegpu.memdesc<64x128xf16, #k_first>
  return
}

// -----

// Swizzled and linear buffers have transposed views too (mma.sync reads a
// tl.trans'd tile through one): the order, or each offset's coordinates,
// swapped.
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shared_t = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#linear = #tilegpu.shared_linear<{rank = 2, offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}>
#linear_t = #tilegpu.shared_linear<{rank = 2, offset = [[1, 0], [2, 0], [0, 1], [1, 2]]}>
func.func @trans_swizzled_and_linear(%w: !tilegpu.memdesc<64x32xf16, #shared>,
                                     %l: !tilegpu.memdesc<4x4xf16, #linear>) {
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<64x32xf16, #shared> -> !tilegpu.memdesc<32x64xf16, #shared_t>
  %u = tilegpu.memdesc_trans %l : !tilegpu.memdesc<4x4xf16, #linear> -> !tilegpu.memdesc<4x4xf16, #linear_t>
  return
}

// -----

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @trans_swizzled_order(%w: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{the transposed view of '!tilegpu.memdesc<64x64xf16, #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>' is '!tilegpu.memdesc<64x64xf16, #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>>', not}}
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<64x64xf16, #shared> -> !tilegpu.memdesc<64x64xf16, #shared>
  return
}

// -----

#linear = #tilegpu.shared_linear<{rank = 2, offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}>
func.func @trans_linear_bases(%l: !tilegpu.memdesc<4x4xf16, #linear>) {
  // expected-error @+1 {{the transposed view of}}
  %u = tilegpu.memdesc_trans %l : !tilegpu.memdesc<4x4xf16, #linear> -> !tilegpu.memdesc<4x4xf16, #linear>
  return
}

// -----

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]}>
func.func @trans_3d(%w: !tilegpu.memdesc<2x64x64xf16, #shared>) {
  // expected-error @+1 {{views one 2-D buffer (not a ring), not '!tilegpu.memdesc<2x64x64xf16}}
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<2x64x64xf16, #shared> -> !tilegpu.memdesc<2x64x64xf16, #shared>
  return
}

// -----

// A ring is indexed first (memdesc_index), then viewed.
#k_last = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#k_first = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [0, 1]}>
func.func @trans_ring(%w: !tilegpu.memdesc<3x128x64xf16, #k_last, mutable>) {
  // expected-error @+1 {{views one 2-D buffer (not a ring), not}}
  %t = tilegpu.memdesc_trans %w : !tilegpu.memdesc<3x128x64xf16, #k_last, mutable> -> !tilegpu.memdesc<64x128xf16, #k_first, mutable>
  return
}

// -----

// A in registers: the accumulator's operand-A layout (kWidth 2).
#b = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
func.func @register_a_ok(%a: tensor<64x64xf16, #opa>, %b: !tilegpu.memdesc<64x128xf16, #b>,
                         %c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> {
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x64xf16, #opa>, !tilegpu.memdesc<64x128xf16, #b>, tensor<64x128xf32, #acc> -> tensor<64x128xf32, #acc>
  return %d : tensor<64x128xf32, #acc>
}

// -----

#b = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @register_a_layout(%a: tensor<64x64xf16, #blocked>, %b: !tilegpu.memdesc<64x128xf16, #b>,
                             %c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> {
  // expected-error @+1 {{takes A in registers in the layout #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>, kWidth = 2}> (its accumulator's operand A), not #tilegpu.blocked}}
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x64xf16, #blocked>, !tilegpu.memdesc<64x128xf16, #b>, tensor<64x128xf32, #acc> -> tensor<64x128xf32, #acc>
  return %d : tensor<64x128xf32, #acc>
}

// -----

#b = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #acc, kWidth = 2}>
func.func @register_a_in_flight(%a: tensor<64x64xf16, #opa>, %b: !tilegpu.memdesc<64x128xf16, #b>,
                                %c: tensor<64x128xf32, #acc>) -> tensor<64x128xf32, #acc> {
  // expected-error @+1 {{with A in registers cannot be left in flight (pending = 1)}}
  %d = tilegpu.warp_group_dot %a, %b, %c {pending = 1 : i32} : tensor<64x64xf16, #opa>, !tilegpu.memdesc<64x128xf16, #b>, tensor<64x128xf32, #acc> -> tensor<64x128xf32, #acc>
  %e = tilegpu.warp_group_dot_wait %d {pending = 0 : i32} : tensor<64x128xf32, #acc>
  return %e : tensor<64x128xf32, #acc>
}

// -----

// wgmma takes B from shared memory only, and A in registers as 16-bit pairs.
#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// expected-error @+1 {{dot_op of a wgmma (mma version 3) parent is operand A with kWidth 2 only}}
func.func @register_b(%b: tensor<64x128xf16, #tilegpu.dot_op<{opIdx = 1, parent = #acc, kWidth = 2}>>) {
  return
}

// -----

#acc = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// expected-error @+1 {{dot_op of a wgmma (mma version 3) parent is operand A with kWidth 2 only}}
func.func @register_a_tf32(%a: tensor<64x64xf32, #tilegpu.dot_op<{opIdx = 0, parent = #acc, kWidth = 1}>>) {
  return
}
