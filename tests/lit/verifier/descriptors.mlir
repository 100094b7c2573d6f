// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @sizes_per_dimension(%b: !tile.ptr<f16>, %m: i64, %s: i64, %i: i32) {
  // expected-error @+1 {{needs one size, stride and offset per dimension of the block (2), got 1, 2 and 2}}
  %t = tile.descriptor_load %b[%i, %i] shape(%m) strides(%s, %s) : !tile.ptr<f16> -> tensor<16x16xf16>
  return
}

// -----

func.func @element_type(%b: !tile.ptr<f16>, %m: i64, %s: i64, %i: i32) {
  // expected-error @+1 {{reads 'f16' but its result holds 'f32'}}
  %t = tile.descriptor_load %b[%i] shape(%m) strides(%s) : !tile.ptr<f16> -> tensor<16xf32>
  return
}

// -----

func.func @nan_needs_floats(%b: !tile.ptr<i32>, %m: i64, %s: i64, %i: i32) {
  // expected-error @+1 {{pads with NaN, which needs floats, not 'i32'}}
  %t = tile.descriptor_load %b[%i] shape(%m) strides(%s) {nanPadding} : !tile.ptr<i32> -> tensor<16xi32>
  return
}

// -----

#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @barrier_is_one_i64(%b: !tilegpu.memdesc<2xi64, #bar, mutable>) {
  // expected-error @+1 {{needs an mbarrier: one mutable i64 in shared memory}}
  tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<2xi64, #bar, mutable>
  return
}

// -----

#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @barrier_is_mutable(%b: !tilegpu.memdesc<1xi64, #bar>, %p: i32) {
  // expected-error @+1 {{needs an mbarrier: one mutable i64 in shared memory}}
  tilegpu.wait_barrier %b, %p : !tilegpu.memdesc<1xi64, #bar>
  return
}

// -----

#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma64 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
func.func @copy_layout(%map: !tile.tensormap, %buf: !tilegpu.memdesc<64x64xf16, #nvmma64, mutable>,
                       %b: !tilegpu.memdesc<1xi64, #bar, mutable>, %i: i32, %p: i1) {
  // expected-error @+1 {{moves the layout of its map's swizzle}}
  tilegpu.async_tma_copy_global_to_local %map[%i, %i] %buf, %b, %p : !tilegpu.memdesc<64x64xf16, #nvmma64, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
  return
}

// -----

#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
func.func @copy_coordinates(%map: !tile.tensormap, %buf: !tilegpu.memdesc<64x64xf16, #nvmma, mutable>,
                            %b: !tilegpu.memdesc<1xi64, #bar, mutable>, %i: i32, %p: i1) {
  // expected-error @+1 {{needs one coordinate per dimension of the buffer (2), got 1}}
  tilegpu.async_tma_copy_global_to_local %map[%i] %buf, %b, %p : !tilegpu.memdesc<64x64xf16, #nvmma, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
  return
}

// -----

#bar = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
func.func @copy_rows(%map: !tile.tensormap, %buf: !tilegpu.memdesc<512x64xf16, #nvmma, mutable>,
                     %b: !tilegpu.memdesc<1xi64, #bar, mutable>, %i: i32, %p: i1) {
  // expected-error @+1 {{copies 2-D blocks TMA can move}}
  tilegpu.async_tma_copy_global_to_local %map[%i, %i] %buf, %b, %p : !tilegpu.memdesc<512x64xf16, #nvmma, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
  return
}

// -----

func.func @store_sizes_per_dimension(%b: !tile.ptr<f16>, %m: i64, %s: i64, %i: i32, %v: tensor<16x16xf16>) {
  // expected-error @+1 {{needs one size, stride and offset per dimension of the block (2), got 2, 2 and 1}}
  tile.descriptor_store %b[%i] shape(%m, %m) strides(%s, %s), %v : !tile.ptr<f16>, tensor<16x16xf16>
  return
}

// -----

func.func @store_element_type(%b: !tile.ptr<f16>, %m: i64, %s: i64, %i: i32, %v: tensor<16xf32>) {
  // expected-error @+1 {{writes 'f16' but its value holds 'f32'}}
  tile.descriptor_store %b[%i] shape(%m) strides(%s), %v : !tile.ptr<f16>, tensor<16xf32>
  return
}

// -----

func.func @tensormap_store_offsets(%map: !tile.tensormap, %i: i32, %v: tensor<16x16xf16>) {
  // expected-error @+1 {{needs one offset per dimension of the block (2), got 1}}
  tile.tensormap_store %map[%i], %v : tensor<16x16xf16>
  return
}

// -----

#plain = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @tma_store_swizzled(%map: !tile.tensormap, %buf: !tilegpu.memdesc<64x8xf16, #plain>, %i: i32) {
  // expected-error @+1 {{writes blocks of rows of 32 bytes or more (a swizzled buffer)}}
  tilegpu.tma_store %map[%i, %i] %buf : !tilegpu.memdesc<64x8xf16, #plain>
  return
}

// -----

#nvmma64 = #tilegpu.nvmma_shared<{swizzleBytes = 64, elementBits = 16, order = [1, 0]}>
func.func @tma_store_layout(%map: !tile.tensormap, %buf: !tilegpu.memdesc<64x64xf16, #nvmma64>, %i: i32) {
  // expected-error @+1 {{moves the layout of its map's swizzle}}
  tilegpu.tma_store %map[%i, %i] %buf : !tilegpu.memdesc<64x64xf16, #nvmma64>
  return
}

// -----

#nvmma = #tilegpu.nvmma_shared<{swizzleBytes = 128, elementBits = 16, order = [1, 0]}>
func.func @tma_store_coordinates(%map: !tile.tensormap, %buf: !tilegpu.memdesc<64x64xf16, #nvmma>, %i: i32) {
  // expected-error @+1 {{needs one coordinate per dimension of the buffer (2), got 3}}
  tilegpu.tma_store %map[%i, %i, %i] %buf : !tilegpu.memdesc<64x64xf16, #nvmma>
  return
}
