# The shape builtins and their tensor-method spellings, as they show in the
# tile IR: tl.trans / tl.permute / x.T are tile.trans, tl.reshape /
# tl.ravel are tile.reshape, tl.broadcast_to and tl.expand_dims reuse
# tile.broadcast and tile.expand_dims.
# RUN: tilec compile %s -k transposes -s '*fp32,*fp32' --emit tile | FileCheck %s --check-prefix=TRANS
# RUN: tilec compile %s -k reshapes -s '*i32,*i32' --emit tile | FileCheck %s --check-prefix=RESHAPE
# RUN: tilec compile %s -k broadcasts -s '*fp32,*fp32,fp32' --emit tile | FileCheck %s --check-prefix=BCAST
# RUN: tilec compile %s -k expands -s '*fp32,*fp32' --emit tile | FileCheck %s --check-prefix=EXPAND
import tilec.language as tl


def transposes(x, out):
    i = tl.arange(0, 512)
    t = tl.load(x + i).reshape(2, 16, 16)
    a = tl.permute(t, 2, 0, 1)       # dims as arguments
    b = tl.trans(t, (1, 2, 0))       # or as one tuple
    c = t.permute((0, 2, 1))         # tensor methods
    d = tl.trans(a, 0, 1, 2)         # the identity: no op
    m = tl.reshape(t, 32, 16)
    e = m.T + tl.trans(m) + m.trans()  # 2-D: no dims swaps the two
    tl.store(out + i, tl.ravel(d) + b.ravel() + c.ravel() + e.ravel())
# TRANS: %[[T:.*]] = tile.reshape %{{.*}} : tensor<512xf32> -> tensor<2x16x16xf32>
# TRANS-DAG: tile.trans %[[T]] {order = array<i32: 2, 0, 1>} : tensor<2x16x16xf32> -> tensor<16x2x16xf32>
# TRANS-DAG: tile.trans %[[T]] {order = array<i32: 1, 2, 0>} : tensor<2x16x16xf32> -> tensor<16x16x2xf32>
# TRANS-DAG: tile.trans %[[T]] {order = array<i32: 0, 2, 1>} : tensor<2x16x16xf32> -> tensor<2x16x16xf32>
# TRANS-DAG: %[[M:.*]] = tile.reshape %{{.*}} : tensor<512xf32> -> tensor<32x16xf32>
# TRANS-DAG: tile.trans %[[M]] {order = array<i32: 1, 0>} : tensor<32x16xf32> -> tensor<16x32xf32>
# TRANS-NOT: order = array<i32: 0, 1, 2>


def reshapes(x, out):
    # (--emit tile is canonicalized: reshapes compose, and one back to the
    # operand's shape is the operand.)
    i = tl.arange(0, 64)
    v = tl.load(x + i)
    a = tl.reshape(v, (4, 16), can_reorder=True)
    b = a.reshape(8, 8).reshape((2, 4, 8))
    c = tl.reshape(b, shape=(64,))
    tl.store(out + i, c + v.reshape(64))
    tl.store(out + 64 + i.reshape(2, 4, 8), b)
# RESHAPE: %[[V:.*]] = tile.load
# RESHAPE-NEXT: %[[B:.*]] = tile.reshape %[[V]] : tensor<64xi32> -> tensor<2x4x8xi32>
# RESHAPE: arith.addi %[[V]], %[[V]] : tensor<64xi32>
# RESHAPE: tile.store %{{.*}}, %[[B]] : tensor<2x4x8x!tile.ptr<i32>>


def broadcasts(x, out, s):
    r = tl.load(x + tl.arange(0, 16)[None, :])          # 1 x 16
    a = tl.broadcast_to(r, (8, 16))
    b = r.broadcast_to(8, 16)
    c = tl.broadcast_to(s, 8, 16)                         # a scalar: a splat
    p, q = tl.broadcast(tl.arange(0, 8)[:, None], r)      # numpy's rules
    tl.store(out + p * 16 + tl.arange(0, 16)[None, :], a + b + c + q)
# BCAST-DAG: tile.broadcast %{{.*}} : tensor<1x16xf32> -> tensor<8x16xf32>
# BCAST-DAG: tile.splat %arg2 : tensor<8x16xf32>
# BCAST-DAG: tile.broadcast %{{.*}} : tensor<8x1xi32> -> tensor<8x16xi32>


def expands(x, out):
    v = tl.load(x + tl.arange(0, 16))
    a = tl.expand_dims(v, 0)               # 1 x 16
    b = tl.expand_dims(v, -1)              # 16 x 1: counted in the result
    c = v.expand_dims((0, 2))              # 1 x 16 x 1
    d = tl.expand_dims(1.0, 0)             # a scalar becomes a 1-element tensor
    tl.store(out + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :],
             a + b + tl.reshape(c, 16, 1) + d[None, :])
# EXPAND: %[[V:.*]] = tile.load
# EXPAND-NEXT: %[[A:.*]] = tile.expand_dims %[[V]] {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
# EXPAND-NEXT: tile.expand_dims %[[V]] {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
# EXPAND-NEXT: tile.expand_dims %[[A]] {axis = 2 : i32} : tensor<1x16xf32> -> tensor<1x16x1xf32>
# EXPAND: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<1xf32> -> tensor<1x1xf32>
