// RUN: tilec-opt %s -tilegpu-decompose-conversions -split-input-file | FileCheck %s

// Rows to columns moves elements between warps: the conversion becomes a
// buffer filled from the tensor and read back in the new layout. The
// buffer's layout keeps one side's 8-element (16-byte) vectors lowest:
// offsets 0..7 run down a column, as the writer holds them.
#rows = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK: #[[SH:shared]] = #tilegpu.shared_linear<{rank = 2, offset = {{\[\[}}1, 0], [2, 0], [4, 0], {{.*}}]}>
  // CHECK-LABEL: func.func @transpose
  // CHECK: %[[B:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<32x32xf16, #{{.*}}>) -> !tilegpu.memdesc<32x32xf16, #[[SH]]>
  // CHECK: tilegpu.local_load %[[B]] : !tilegpu.memdesc<32x32xf16, #[[SH]]> -> tensor<32x32xf16, #{{.*}}>
  // CHECK-NOT: tilegpu.convert_layout
  func.func @transpose(%x: tensor<32x32xf16, #cols>) -> tensor<32x32xf16, #rows> {
    %c = tilegpu.convert_layout %x : tensor<32x32xf16, #cols> -> tensor<32x32xf16, #rows>
    return %c : tensor<32x32xf16, #rows>
  }
}

// -----

// Conversions within a warp stay for the lowering (register permutation,
// shuffles).
#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @within_a_warp
  // CHECK: tilegpu.convert_layout
  // CHECK-NOT: tilegpu.local_alloc
  func.func @within_a_warp(%x: tensor<4x8xf32, #a>) -> tensor<4x8xf32, #b> {
    %c = tilegpu.convert_layout %x : tensor<4x8xf32, #a> -> tensor<4x8xf32, #b>
    return %c : tensor<4x8xf32, #b>
  }
}

// -----

// A dot operand that is tl.trans of a tile (x @ W^T's W) is stored as the
// tile was, before the trans, and read through a transposed view: the
// trans disappears, and the buffer's lowest offsets are the stored tile's
// rows (W's K, which the operand's registers pair along).
#w = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#wt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opb = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // CHECK: #[[SW:shared[0-9]*]] = #tilegpu.shared_linear<{rank = 2, offset = {{\[\[}}0, 1], [0, 2],
  // CHECK-LABEL: func.func @transposed_operand
  // CHECK-NOT: tile.trans
  // CHECK: %[[B:.*]] = tilegpu.local_alloc %arg1 : (tensor<16x64xf16, #{{.*}}>) -> !tilegpu.memdesc<16x64xf16, #[[SW]]>
  // CHECK: %[[V:.*]] = tilegpu.memdesc_trans %[[B]] : !tilegpu.memdesc<16x64xf16, #[[SW]]> -> !tilegpu.memdesc<64x16xf16, #{{.*}}>
  // CHECK: tilegpu.local_load %[[V]] : {{.*}} -> tensor<64x16xf16, #{{.*}}>
  // CHECK-NOT: tile.trans
  func.func @transposed_operand(%x: tensor<16x64xf16, #opa>, %w: tensor<16x64xf16, #w>,
                                %c: tensor<16x16xf32, #mma>) -> tensor<16x16xf32, #mma> {
    %t = tile.trans %w {order = array<i32: 1, 0>} : tensor<16x64xf16, #w> -> tensor<64x16xf16, #wt>
    %b = tilegpu.convert_layout %t : tensor<64x16xf16, #wt> -> tensor<64x16xf16, #opb>
    %d = tile.dot %x, %b, %c : tensor<16x64xf16, #opa>, tensor<64x16xf16, #opb> -> tensor<16x16xf32, #mma>
    return %d : tensor<16x16xf32, #mma>
  }
}

// -----

// A transposed tile used elsewhere too keeps its trans; the operand is
// still read through the view.
#w = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#wt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opb = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // CHECK-LABEL: func.func @transposed_operand_kept
  // CHECK: %[[T:.*]] = tile.trans
  // CHECK: tilegpu.memdesc_trans
  // CHECK: return {{.*}}, %[[T]]
  func.func @transposed_operand_kept(%x: tensor<16x64xf16, #opa>, %w: tensor<16x64xf16, #w>,
                                     %c: tensor<16x16xf32, #mma>)
      -> (tensor<16x16xf32, #mma>, tensor<64x16xf16, #wt>) {
    %t = tile.trans %w {order = array<i32: 1, 0>} : tensor<16x64xf16, #w> -> tensor<64x16xf16, #wt>
    %b = tilegpu.convert_layout %t : tensor<64x16xf16, #wt> -> tensor<64x16xf16, #opb>
    %d = tile.dot %x, %b, %c : tensor<16x64xf16, #opa>, tensor<64x16xf16, #opb> -> tensor<16x16xf32, #mma>
    return %d, %t : tensor<16x16xf32, #mma>, tensor<64x16xf16, #wt>
  }
}
