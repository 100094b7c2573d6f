# tl.clamp (Triton's: maximum(minimum(x, max), min) on floats, NaN policy as
# tl.minimum / tl.maximum), tl.zeros_like and tl.full_like (the input's
# shape, its dtype unless dtype= is given).
# RUN: tilec compile %s -k kernel -s '*fp32,fp32,fp32' -D BLOCK=64 --emit tile | FileCheck %s
# RUN: not tilec compile %s -k int_clamp -s '*i32' -D BLOCK=64 2>&1 | FileCheck %s --check-prefix=INT
# RUN: not tilec compile %s -k scalar_like -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=SCALAR
import tilec.language as tl


def kernel(x_ptr, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.clamp(x, lo, hi)
# CHECK: %[[LOW:.*]] = arith.minnumf %{{.*}}, %{{.*}} : tensor<64xf32>
# CHECK: arith.maxnumf %[[LOW]], %{{.*}} : tensor<64xf32>
    y = tl.clamp(y, -1.0, 1.0, propagate_nan=tl.PropagateNan.ALL)
# CHECK: %[[LOW2:.*]] = arith.minimumf %{{.*}}, %{{.*}} : tensor<64xf32>
# CHECK: arith.maximumf %[[LOW2]], %{{.*}} : tensor<64xf32>
    tl.store(x_ptr + offs, y)


# RUN: tilec compile %s -k likes -s '*fp32,*i64,*fp16,fp32' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=LIKE
def likes(x_ptr, i_ptr, h_ptr, v, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, tl.zeros_like(x))
# LIKE-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
# LIKE-DAG: %[[SEVEN:.*]] = arith.constant dense<7> : tensor<64xi64>
# LIKE: tile.store %{{.*}}, %[[ZERO]] : tensor<64x!tile.ptr<f32>>
    tl.store(i_ptr + offs, tl.full_like(offs, 7, dtype=tl.int64))
# LIKE: tile.store %{{.*}}, %[[SEVEN]] : tensor<64x!tile.ptr<i64>>
    tl.store(h_ptr + offs, tl.full_like(x.to(tl.float16), v))
# LIKE: %[[V:.*]] = arith.truncf %arg3 : f32 to f16
# LIKE: %[[VS:.*]] = tile.splat %[[V]] : tensor<64xf16>
# LIKE: tile.store %{{.*}}, %[[VS]] : tensor<64x!tile.ptr<f16>>


def int_clamp(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.clamp(tl.load(x_ptr + offs), 0, 1))
# INT: clamp_like.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.clamp clamps floating-point values, got


def scalar_like(x_ptr, v):
    tl.store(x_ptr, tl.zeros_like(v))
# SCALAR: clamp_like.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.zeros_like needs a tensor, got
