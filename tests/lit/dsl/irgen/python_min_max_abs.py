# Python's min, max and abs: of compile-time values they fold as in Python
# (a tuple's elements for one tuple argument, the first of equal values,
# NaN as Python compares it); of runtime values they are tl.minimum,
# tl.maximum (left to right, with its promotion) and tl.abs.
# RUN: tilec compile %s -k runtime -s '*i32,i32,i32,u32' -D GROUP=8 --emit tile | FileCheck %s --check-prefix=SCALAR
# RUN: tilec compile %s -k tensors -s '*fp16,*fp16' --emit tile | FileCheck %s --check-prefix=TENSOR
# RUN: tilec compile %s -k folded -s '*fp32' --emit tile 2>&1 | FileCheck %s --check-prefix=FOLD
import tilec.language as tl


def runtime(out, a, b, u, GROUP: tl.constexpr):
    tl.store(out, min(a, GROUP))
    tl.store(out + 1, max(a, b, 0))
    tl.store(out + 2, abs(a))
    tl.store(out + 3, abs(u).to(tl.int32))
    tl.store(out + 4, min(a, 2.5).to(tl.int32))
# SCALAR: arith.minsi %arg1, %c8_i32 : i32
# SCALAR: %[[AB:.*]] = arith.maxsi %arg1, %arg2 : i32
# SCALAR: arith.maxsi %[[AB]], %{{.*}} : i32
# SCALAR: math.absi %arg1 : i32
# SCALAR-NOT: math.absi
# SCALAR: %[[F:.*]] = arith.sitofp %arg1 : i32 to f32
# SCALAR: arith.minnumf %[[F]], %{{.*}} : f32


def tensors(x_ptr, out):
    i = tl.arange(0, 16)
    x = tl.load(x_ptr + i)
    tl.store(out + i, max(x, 0.0))
    tl.store(out + i, abs(x))
    tl.store(out + i[:, None] * 16 + i[None, :], min(x, x[:, None]))
# TENSOR: arith.maxnumf %{{.*}}, %{{.*}} : tensor<16xf16>
# TENSOR: math.absf %{{.*}} : tensor<16xf32>
# TENSOR: arith.minnumf %{{.*}}, %{{.*}} : tensor<16x16xf16>


def folded(out):
    tl.static_print(min(3, 1, 2), max(3, 1, 2), min((4, 2, 8)), max((5,)))
    tl.static_print(max(1, 1.0), min(1.0, 1), max(True, 1))
    tl.static_print(max(float("nan"), 1.0), max(1.0, float("nan")))
    tl.static_print(abs(-3), abs(-2.5), abs(True), abs(-0.0))
    tl.store(out, 1.0)
# FOLD: python_min_max_abs.py:[[@LINE-5]]: 1 3 2 5
# FOLD: python_min_max_abs.py:[[@LINE-5]]: 1 1.0 True
# FOLD: python_min_max_abs.py:[[@LINE-5]]: nan 1.0
# FOLD: python_min_max_abs.py:[[@LINE-5]]: 3 2.5 1 0.0
