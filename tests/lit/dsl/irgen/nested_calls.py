# @jit helpers that call helpers, from inside a runtime 'if', from a
# 'return' and from an unrolled tl.static_range: each call pushes a frame
# while the caller's is in use (a frame that moved when the stack of frames
# grew was used after it was freed; AddressSanitizer, make test-asan).
# RUN: tilec compile %s -k kernel -s '*i32,i32' -D STEPS=2 --emit tile | FileCheck %s
import tilec.language as tl


def leaf(x):
    return x + 1


def middle(x):
    return leaf(x) * 3


def outer(x):
    return middle(leaf(x))


def kernel(ptr, n, STEPS: tl.constexpr):
    v = tl.load(ptr)
    if v > n:
        v = outer(v)
    else:
        v = middle(v)
    for i in tl.static_range(STEPS):
        v = outer(v)
    tl.store(ptr, v)
# CHECK-LABEL: func.func @kernel
# CHECK: %[[V:.*]] = tile.load %arg0
# CHECK: %[[C:.*]] = arith.cmpi sgt, %[[V]], %arg1
# CHECK: scf.if %[[C]] -> (i32) {
# CHECK:   arith.addi %[[V]], %c2_i32
# CHECK:   arith.muli
# CHECK:   scf.yield
# CHECK: } else {
# CHECK:   arith.addi %[[V]], %c1_i32
# CHECK:   arith.muli
# CHECK:   scf.yield
# CHECK: }
# CHECK-COUNT-2: arith.addi {{.*}}, %c2_i32
# CHECK: tile.store
# CHECK-NOT: func.func private
