// RUN: tilec-opt %s -tile-lower-descriptors="tensor-maps=true num-warps=4" -split-input-file | FileCheck %s

// Both operands of a dot wgmma runs, read through descriptors whose base
// is 16-byte aligned, sizes arguments, row strides arguments known
// multiples of 16 elements (32 bytes): two tensor-map arguments appended,
// each naming the arguments the launcher builds it from. A's 64-element
// rows are 128 bytes (one 128-byte swizzle column); B's 128-element rows
// are 256 bytes (two columns of a 64 x 64 box). The NaN padding of A goes
// into its map.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[AMAP:[a-z0-9]+]]: !tile.tensormap {tile.tensormap = "base=0 sizes=[a3,a5] strides=[a6,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=nan"}
// CHECK-SAME: %[[BMAP:[a-z0-9]+]]: !tile.tensormap {tile.tensormap = "base=1 sizes=[a5,a4] strides=[a7,1] box=[64,64] type=6 bytes=2 swizzle=128 fill=zero"}
// CHECK: %[[A:.*]] = tile.tensormap_load %[[AMAP]][%arg8, %arg9] : tensor<128x64xf16>
// CHECK: %[[B:.*]] = tile.tensormap_load %[[BMAP]][%arg9, %arg8] : tensor<64x128xf16>
// CHECK: tile.dot %[[A]], %[[B]]
// CHECK-NOT: tile.descriptor_load
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                  %m: i32, %n: i32, %k: i32,
                  %sa: i32 {tile.divisibility = 16 : i64}, %sb: i32 {tile.divisibility = 16 : i64},
                  %i: i32, %j: i32) {
  %one = arith.constant 1 : i64
  %m64 = arith.extsi %m : i32 to i64
  %n64 = arith.extsi %n : i32 to i64
  %k64 = arith.extsi %k : i32 to i64
  %sa64 = arith.extsi %sa : i32 to i64
  %sb64 = arith.extsi %sb : i32 to i64
  %x = tile.descriptor_load %a[%i, %j] shape(%m64, %k64) strides(%sa64, %one) {nanPadding} : !tile.ptr<f16> -> tensor<128x64xf16>
  %y = tile.descriptor_load %b[%j, %i] shape(%k64, %n64) strides(%sb64, %one) : !tile.ptr<f16> -> tensor<64x128xf16>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %x, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  return
}

// -----

// What the launcher could not build or TMA could not copy stays a pointer
// load: a base not known aligned, a stride not known a multiple of 16
// bytes, a size computed in the kernel, a tile no dot reads, a 16 x 8 block
// (16-byte rows, fine) feeding a dot wgmma cannot run (M = 16).
// CHECK-LABEL: func.func @pointer_loads
// CHECK-NOT: tile.tensormap
// CHECK-COUNT-5: tile.load
// CHECK-NOT: tile.tensormap
func.func @pointer_loads(%a: !tile.ptr<f16>, %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                         %m: i64, %s: i64, %s16: i64 {tile.divisibility = 16 : i64}, %i: i32) {
  %one = arith.constant 1 : i64
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %y = arith.constant dense<1.0> : tensor<64x128xf16>
  %unaligned = tile.descriptor_load %a[%i, %i] shape(%m, %m) strides(%s16, %one) : !tile.ptr<f16> -> tensor<128x64xf16>
  %d0 = tile.dot %unaligned, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  %oddstride = tile.descriptor_load %b[%i, %i] shape(%m, %m) strides(%s, %one) : !tile.ptr<f16> -> tensor<128x64xf16>
  %d1 = tile.dot %oddstride, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  %twice = arith.addi %m, %m : i64
  %computed = tile.descriptor_load %b[%i, %i] shape(%twice, %m) strides(%s16, %one) : !tile.ptr<f16> -> tensor<128x64xf16>
  %d2 = tile.dot %computed, %y, %acc : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  %nodot = tile.descriptor_load %b[%i, %i] shape(%m, %m) strides(%s16, %one) : !tile.ptr<f16> -> tensor<128x64xf16>
  %small = tile.descriptor_load %b[%i, %i] shape(%m, %m) strides(%s16, %one) : !tile.ptr<f16> -> tensor<16x16xf16>
  %acc16 = arith.constant dense<0.0> : tensor<16x16xf32>
  %w = arith.constant dense<1.0> : tensor<16x16xf16>
  %d3 = tile.dot %small, %w, %acc16 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

// A block written through a descriptor whose tensor nothing else touches:
// a tensor-map argument of its own (no NaN fill: stores have none), the
// store a tile.tensormap_store of it. 64 f16 (128 bytes) per row: one
// 128-byte swizzle column, the box the whole block. The tensor's rows are
// known whole 16-byte chunks (8 f16): no run-time test.
// CHECK-LABEL: func.func @stored
// CHECK-SAME: %[[CMAP:[a-z0-9]+]]: !tile.tensormap {tile.tensormap = "base=0 sizes=[a1,a2] strides=[a3,1] box=[128,64] type=6 bytes=2 swizzle=128 fill=zero"}
// CHECK-NOT: scf.if
// CHECK: tile.tensormap_store %[[CMAP]][%arg4, %arg4], %{{.*}} : tensor<128x64xf16>
// CHECK-NOT: tile.descriptor_store
// CHECK-NOT: tile.store
func.func @stored(%c: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %m: i32,
                  %n: i32 {tile.divisibility = 8 : i64},
                  %s: i32 {tile.divisibility = 16 : i64}, %i: i32) {
  %one = arith.constant 1 : i64
  %m64 = arith.extsi %m : i32 to i64
  %n64 = arith.extsi %n : i32 to i64
  %s64 = arith.extsi %s : i32 to i64
  %v = arith.constant dense<1.0> : tensor<128x64xf16>
  tile.descriptor_store %c[%i, %i] shape(%m64, %n64) strides(%s64, %one), %v : !tile.ptr<f16>, tensor<128x64xf16>
  return
}

// -----

// TMA writes a row's end in whole 16-byte chunks. Rows of %n f32 (known a
// multiple of 2 only) may be ragged: a test of the size's low two bits at
// the entry, and each store of the tensor through pointers where it is
// true, through TMA where it is false. Both stores of one tensor share one
// test, the OR of their sizes' (the second has a width of its own): one
// launch writes the tensor one way.
// CHECK-LABEL: func.func @stored_ragged
// CHECK-DAG: arith.constant 3 : i32
// CHECK-DAG: %[[B1:.*]] = arith.andi %arg2, %{{.*}} : i32
// CHECK-DAG: %[[R1:.*]] = arith.cmpi ne, %[[B1]]
// CHECK-DAG: %[[B2:.*]] = arith.andi %arg5, %{{.*}} : i32
// CHECK-DAG: %[[R2:.*]] = arith.cmpi ne, %[[B2]]
// CHECK: %[[ANY:.*]] = arith.ori %[[R1]], %[[R2]]
// CHECK: scf.if %[[ANY]] {
// CHECK: tile.store
// CHECK: } else {
// CHECK: tile.tensormap_store
// CHECK: scf.if %[[ANY]] {
// CHECK: tile.store
// CHECK: } else {
// CHECK: tile.tensormap_store
func.func @stored_ragged(%c: !tile.ptr<f32> {tile.divisibility = 16 : i64}, %m: i32,
                         %n: i32 {tile.divisibility = 2 : i64},
                         %s: i32 {tile.divisibility = 16 : i64}, %i: i32, %n2: i32) {
  %one = arith.constant 1 : i64
  %m64 = arith.extsi %m : i32 to i64
  %n64 = arith.extsi %n : i32 to i64
  %w64 = arith.extsi %n2 : i32 to i64
  %s64 = arith.extsi %s : i32 to i64
  %v = arith.constant dense<1.0> : tensor<64x32xf32>
  tile.descriptor_store %c[%i, %i] shape(%m64, %n64) strides(%s64, %one), %v : !tile.ptr<f32>, tensor<64x32xf32>
  tile.descriptor_store %c[%i, %i] shape(%m64, %w64) strides(%s64, %one), %v : !tile.ptr<f32>, tensor<64x32xf32>
  return
}

// -----

// Rows of 70 f16 (140 bytes, a constant) are known ragged: the tensor goes
// through pointers, with no test.
// CHECK-LABEL: func.func @stored_ragged_constant
// CHECK-NOT: tile.tensormap
// CHECK-NOT: scf.if
// CHECK: tile.store
func.func @stored_ragged_constant(%c: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %m: i64,
                                  %s: i64 {tile.divisibility = 16 : i64}, %i: i32) {
  %one = arith.constant 1 : i64
  %n = arith.constant 70 : i64
  %v = arith.constant dense<1.0> : tensor<64x64xf16>
  tile.descriptor_store %c[%i, %i] shape(%m, %n) strides(%s, %one), %v : !tile.ptr<f16>, tensor<64x64xf16>
  return
}

// -----

// 8-bit elements and an i64 size: rows of whole chunks need the size's
// low four bits clear. A second tensor written once with a size not known
// and once with a constant that leaves its rows ragged (70 bytes): both
// its stores go through pointers, with no test.
// CHECK-LABEL: func.func @stored_ragged_bytes
// CHECK-DAG: %[[LOW:.*]] = arith.constant 15 : i64
// CHECK-DAG: %[[BITS:.*]] = arith.andi %arg1, %[[LOW]] : i64
// CHECK: %[[RAGGED:.*]] = arith.cmpi ne, %[[BITS]]
// CHECK-NOT: arith.andi %arg1
// CHECK: scf.if %[[RAGGED]] {
// CHECK: tile.store
// CHECK: } else {
// CHECK: tile.tensormap_store
// CHECK: }
// CHECK-NOT: scf.if
// CHECK-COUNT-2: tile.store
// CHECK-NOT: tile.tensormap_store
func.func @stored_ragged_bytes(%c: !tile.ptr<i8> {tile.divisibility = 16 : i64}, %n: i64,
                               %d: !tile.ptr<i8> {tile.divisibility = 16 : i64},
                               %s: i64 {tile.divisibility = 16 : i64}, %i: i32) {
  %one = arith.constant 1 : i64
  %seventy = arith.constant 70 : i64
  %v = arith.constant dense<1> : tensor<64x64xi8>
  tile.descriptor_store %c[%i, %i] shape(%n, %n) strides(%s, %one), %v : !tile.ptr<i8>, tensor<64x64xi8>
  tile.descriptor_store %d[%i, %i] shape(%n, %n) strides(%s, %one), %v : !tile.ptr<i8>, tensor<64x64xi8>
  tile.descriptor_store %d[%i, %i] shape(%n, %seventy) strides(%s, %one), %v : !tile.ptr<i8>, tensor<64x64xi8>
  return
}

// -----

// Stores TMA does not take: rows of 16 bytes (an unswizzled buffer); a
// tensor also read (through a descriptor: TMA's writes would not be
// ordered with the read), whose two stores then both go through pointers
// (one tensor is never written both ways); a base not known aligned; a
// three-dimensional block.
// CHECK-LABEL: func.func @pointer_stores
// CHECK-NOT: tile.tensormap
// CHECK-COUNT-5: tile.store
// CHECK-NOT: tile.tensormap
func.func @pointer_stores(%a: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                          %b: !tile.ptr<f16> {tile.divisibility = 16 : i64},
                          %u: !tile.ptr<f16>, %m: i64, %s16: i64 {tile.divisibility = 16 : i64},
                          %i: i32) {
  %one = arith.constant 1 : i64
  %narrow = arith.constant dense<1.0> : tensor<64x8xf16>
  tile.descriptor_store %a[%i, %i] shape(%m, %m) strides(%s16, %one), %narrow : !tile.ptr<f16>, tensor<64x8xf16>
  %read = tile.descriptor_load %b[%i, %i] shape(%m, %m) strides(%s16, %one) : !tile.ptr<f16> -> tensor<64x64xf16>
  tile.descriptor_store %b[%i, %i] shape(%m, %m) strides(%s16, %one), %read : !tile.ptr<f16>, tensor<64x64xf16>
  tile.descriptor_store %b[%i, %i] shape(%m, %m) strides(%s16, %one), %read : !tile.ptr<f16>, tensor<64x64xf16>
  %w = arith.constant dense<1.0> : tensor<64x64xf16>
  tile.descriptor_store %u[%i, %i] shape(%m, %m) strides(%s16, %one), %w : !tile.ptr<f16>, tensor<64x64xf16>
  %cube = arith.constant dense<1.0> : tensor<4x8x64xf16>
  tile.descriptor_store %a[%i, %i, %i] shape(%m, %m, %m) strides(%s16, %s16, %one), %cube : !tile.ptr<f16>, tensor<4x8x64xf16>
  return
}

// -----

// A kernel with an atomic could publish the block before TMA's writes
// land (another program polling a flag): its stores go through pointers.
// CHECK-LABEL: func.func @publishing
// CHECK-NOT: tile.tensormap
// CHECK: tile.store
// CHECK: tile.atomic_rmw add
func.func @publishing(%c: !tile.ptr<f16> {tile.divisibility = 16 : i64}, %flag: !tile.ptr<i32>,
                      %m: i64, %s: i64 {tile.divisibility = 16 : i64}, %i: i32) {
  %one = arith.constant 1 : i64
  %v = arith.constant dense<1.0> : tensor<64x64xf16>
  tile.descriptor_store %c[%i, %i] shape(%m, %m) strides(%s, %one), %v : !tile.ptr<f16>, tensor<64x64xf16>
  %x = arith.constant 1 : i32
  %old = tile.atomic_rmw add, %flag, %x : !tile.ptr<i32>
  return
}
