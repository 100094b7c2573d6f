// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// A layout must describe a tensor of its own rank: a 2-D tensor with a
// rank-1 blocked layout is rejected where it is written (the lowering
// would otherwise stop the process).
// expected-error @+1 {{blocked layout of rank 1 cannot describe a tensor of rank 2}}
func.func @rank_mismatch(%x: tensor<4x8xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32}}
func.func @lanes(%x: tensor<64xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout order must be a permutation of 0..1}}
func.func @order(%x: tensor<4x8xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{slice layout of rank 1 cannot describe a tensor of rank 2}}
func.func @slice_rank(%x: tensor<4x8xf32, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
  return
}

// -----

// expected-error @+1 {{slice dim 2 out of range for rank 2}}
func.func @slice_dim(%x: tensor<4xf32, #tilegpu.slice<{dim = 2, parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>) {
  return
}

// -----

// Layouts spread tensors over the module's warps, not some other number.
#eight = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @warps() {
    // expected-error @+1 {{has a tensor laid out over 8 warps in a module of 4}}
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #eight>
    return
  }
}

// -----

// expected-error @+1 {{unknown GPU target 'sm_75'}}
module attributes {tilegpu.target = "sm_75"} {
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @immutable(%x: tensor<128xf32, #blocked>) {
  %b = tilegpu.local_alloc %x : (tensor<128xf32, #blocked>) -> !tilegpu.memdesc<128xf32, #shared>
  // expected-error @+1 {{cannot store into an immutable buffer}}
  tilegpu.local_store %x, %b : tensor<128xf32, #blocked> -> !tilegpu.memdesc<128xf32, #shared>
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #tilegpu.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @shape(%x: tensor<128xf32, #blocked>) {
  // expected-error @+1 {{differ in shape or element type}}
  %b = tilegpu.local_alloc %x : (tensor<128xf32, #blocked>) -> !tilegpu.memdesc<64xf32, #shared>
  return
}

// -----

// Two offset bits that reach the same element: not a buffer layout.
// expected-error @+1 {{shared encoding must place each of the 4 elements at its own offset}}
func.func @aliasing(%b: !tilegpu.memdesc<4xf32, #tilegpu.shared_linear<{rank = 1, offset = [[1], [1]]}>>) {
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @same_layout(%p: tensor<128x!tile.ptr<f32>, #blocked>,
                       %o: tensor<128xi32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>) {
  // expected-error @+1 {{tensor operands and results must have one layout}}
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  return
}

// -----

// Every coordinate of a shared_linear layout lies inside the buffer.
// expected-error @+1 {{shared_linear offset bit 0 reaches coordinate 64 of dimension 0, past its size 32}}
func.func @outside(%b: !tilegpu.memdesc<32x32xf32, #tilegpu.shared_linear<{rank = 2, offset = [[64, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}>, mutable>) {
  return
}

// -----

// #tilegpu.linear: five lane images (32 lanes) ...
// expected-error @+1 {{linear layout needs 5 lane images (32 lanes), got 2}}
func.func @linear_lanes(%x: tensor<4xf32, #tilegpu.linear<{register = [], lane = [[1], [2]], warp = []}>>) {
  return
}

// -----

// ... of one rank ...
// expected-error @+1 {{every image of a linear layout needs 1 coordinates}}
func.func @linear_ragged(%x: tensor<4xf32, #tilegpu.linear<{register = [[1]], lane = [[2], [0, 0], [0], [0], [0]], warp = []}>>) {
  return
}

// -----

// expected-error @+1 {{linear layout of rank 1 cannot describe a tensor of rank 2}}
func.func @linear_rank(%x: tensor<4x4xf32, #tilegpu.linear<{register = [], lane = [[1], [2], [0], [0], [0]], warp = []}>>) {
  return
}

// -----

// ... inside the tensor ...
// expected-error @+1 {{linear layout: lane bit 4 reaches coordinate 16 of dimension 0, past its size 16}}
func.func @linear_outside(%x: tensor<16xf32, #tilegpu.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = []}>>) {
  return
}

// -----

// ... holding every element ...
// expected-error @+1 {{linear layout leaves elements of the tensor without a holder}}
func.func @linear_not_onto(%x: tensor<64xf32, #tilegpu.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = []}>>) {
  return
}

// -----

// ... each with one owner.
// expected-error @+1 {{linear layout images must be linearly independent}}
func.func @linear_dependent(%x: tensor<16xf32, #tilegpu.linear<{register = [[3]], lane = [[1], [2], [4], [8], [0]], warp = []}>>) {
  return
}

// -----

// The warps of a linear layout are its warp images.
#linear = #tilegpu.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64], [128]]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @linear_warps() {
    // expected-error @+1 {{has a tensor laid out over 8 warps in a module of 4}}
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #linear>
    return
  }
}
