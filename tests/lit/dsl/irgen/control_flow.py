# Control flow: compile-time `if` picks a branch, runtime `if` becomes
# scf.if with results, `for` becomes scf.for with loop-carried values,
# tl.static_range unrolls.
# RUN: tilec compile %s -k sum_rows -s '*fp32:16,*fp32:16,i32,i32:16' -D BLOCK=64 --emit tile | FileCheck %s --check-prefix=FOR
# RUN: tilec compile %s -k pick -s '*fp32,i32' -D USE_TWO=True --emit tile | FileCheck %s --check-prefix=TWO
# RUN: tilec compile %s -k pick -s '*fp32,i32' -D USE_TWO=False --emit tile | FileCheck %s --check-prefix=ONE
# RUN: tilec compile %s -k unrolled -s '*i32' --emit tile | FileCheck %s --check-prefix=UNROLL
# RUN: tilec compile %s -k countdown -s '*i32,i32' --emit tile | FileCheck %s --check-prefix=DOWN
import tilec.language as tl


def sum_rows(x, out, rows, stride, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for r in range(rows):
        acc += tl.load(x + r * stride + cols)
    tl.store(out + cols, acc)
# FOR: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32>
# FOR: %[[RES:.*]] = scf.for %[[I:.*]] = %{{.*}} to %arg2 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64xf32>)  : i32 {
# FOR:   %[[V:.*]] = tile.load
# FOR:   %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : tensor<64xf32>
# FOR:   scf.yield %[[S]] : tensor<64xf32>
# FOR: tile.store %{{.*}}, %[[RES]]


def pick(out, n, USE_TWO: tl.constexpr):
    value = 1.0
    if USE_TWO:
        value = 2.0
    if n > 0:
        value = value * tl.load(out + 1)
    tl.store(out, value)
# TWO: %[[C2:.*]] = arith.constant 2.000000e+00 : f32
# TWO: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
# TWO:   %[[L:.*]] = tile.load
# TWO:   %[[M:.*]] = arith.mulf %[[L]], %[[C2]] : f32
# TWO:   scf.yield %[[M]] : f32
# TWO: } else {
# TWO:   scf.yield %[[C2]] : f32
# TWO: tile.store %arg0, %[[R]]
# ONE: arith.constant 1.000000e+00 : f32
# ONE-NOT: 2.000000e+00


def unrolled(out):
    total = 0
    for i in tl.static_range(4):
        total += i * 10
    tl.store(out, total)
# UNROLL-NOT: scf.for
# UNROLL: arith.constant 60 : i32


def countdown(out, n):
    # A negative compile-time step counts an index up and maps it back.
    last = 0
    for i in range(n, 0, -2):
        last = i
    tl.store(out, last)
# DOWN: arith.maxsi
# DOWN: scf.for
