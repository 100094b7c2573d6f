# Calls to @jit helpers are specialised on their compile-time arguments and
# inlined; module-level constants resolve from the file.
# RUN: tilec compile %s -k kernel -s '*fp32:16,i32:16' --emit tile | FileCheck %s
# RUN: tilec compile %s -k kernel -s '*fp32:16,i32:16' -D SCALE_FIRST=True --emit tile | FileCheck %s --check-prefix=FIRST
import tilec
import tilec.language as tl

BLOCK = 128
SCALE = 0.5


@tilec.jit
def offsets(pid, SIZE: tl.constexpr):
    return pid * SIZE + tl.arange(0, SIZE)


@tilec.jit
def scaled(x, factor):
    return x * factor


@tilec.jit
def kernel(ptr, n, SCALE_FIRST: tl.constexpr = False):
    offs = offsets(tl.program_id(0), BLOCK)
    mask = offs < n
    x = tl.load(ptr + offs, mask=mask)
    if SCALE_FIRST:
        x = scaled(x, SCALE) + 1.0
    else:
        x = scaled(x + 1.0, SCALE)
    tl.store(ptr + offs, x, mask=mask)
# CHECK-LABEL: func.func @kernel
# CHECK-NOT: call
# CHECK: tile.make_range {end = 128 : i32, start = 0 : i32}
# CHECK: arith.addf
# CHECK: arith.mulf
# CHECK-NOT: func.func private
# FIRST: arith.mulf
# FIRST: arith.addf
