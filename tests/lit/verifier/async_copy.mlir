// RUN: tilec-opt %s -split-input-file -verify-diagnostics

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @index_not_a_ring(%b: !tilegpu.memdesc<32x32xf16, #shared, mutable>, %i: i32) {
  // expected-error @+1 {{indexes a ring of buffers, not}}
  %x = tilegpu.memdesc_index %b[%i] : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
  return
}

// -----

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @index_wrong_buffer(%b: !tilegpu.memdesc<3x32x32xf16, #shared, mutable>, %i: i32) {
  // expected-error @+1 {{is not one buffer of}}
  %x = tilegpu.memdesc_index %b[%i] : !tilegpu.memdesc<3x32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared>
  return
}

// -----

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// expected-error @+1 {{a ring of buffers needs at least one buffer, got 0}}
func.func @empty_ring(%b: !tilegpu.memdesc<0x32x32xf16, #shared, mutable>) {
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @copy_into_immutable(%p: tensor<32x32x!tile.ptr<f16>, #blocked>, %b: !tilegpu.memdesc<32x32xf16, #shared>) {
  // expected-error @+1 {{cannot copy into an immutable buffer}}
  tilegpu.async_copy_global_to_local %p, %b : tensor<32x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x32xf16, #shared>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @copy_wrong_elements(%p: tensor<32x32x!tile.ptr<f32>, #blocked>, %b: !tilegpu.memdesc<32x32xf16, #shared, mutable>) {
  // expected-error @+1 {{do not address the elements of}}
  tilegpu.async_copy_global_to_local %p, %b : tensor<32x32x!tile.ptr<f32>, #blocked> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @copy_into_ring(%p: tensor<32x32x!tile.ptr<f16>, #blocked>, %b: !tilegpu.memdesc<2x32x32xf16, #shared, mutable>) {
  // expected-error @+1 {{do not address the elements of}}
  tilegpu.async_copy_global_to_local %p, %b : tensor<32x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<2x32x32xf16, #shared, mutable>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @copy_mask_layout(%p: tensor<32x32x!tile.ptr<f16>, #blocked>, %m: tensor<32x32xi1, #blocked1>, %b: !tilegpu.memdesc<32x32xf16, #shared, mutable>) {
  // expected-error @+1 {{the mask must have the pointers' shape and layout}}
  tilegpu.async_copy_global_to_local %p, %b mask %m : tensor<32x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>, tensor<32x32xi1, #blocked1>
  return
}

// -----

#shared = #tilegpu.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
func.func @load_from_ring(%b: !tilegpu.memdesc<2x32x32xf16, #shared, mutable>) {
  // expected-error @+1 {{differ in shape or element type}}
  %t = tilegpu.local_load %b : !tilegpu.memdesc<2x32x32xf16, #shared, mutable> -> tensor<32x32xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
  return
}

// -----

func.func @negative_wait() {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  tilegpu.async_wait {pending = -1 : i32}
  return
}
