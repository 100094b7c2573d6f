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
