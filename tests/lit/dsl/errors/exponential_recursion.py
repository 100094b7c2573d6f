# A compile-time recursion that calls itself twice per level doubles the
# kernel at every level: at N = 30 inlining would make 2^31 copies of the
# store. The compiler refuses it at the kernel's call, before inlining
# anything (the interpreter fuzzer found N = 20 taking minutes). N = 10
# (2047 stores) compiles.
# RUN: not tilec compile %s -k rec -s '*i32' -D N=30 2>&1 | FileCheck %s
# RUN: tilec compile %s -k rec -s '*i32' -D N=10 --emit tile | FileCheck %s --check-prefix=SMALL
import tilec.language as tl


def rec(x, N: tl.constexpr):
    helper(x, N)


def helper(x, N: tl.constexpr):
    if N > 0:
        helper(x, N - 1)
        helper(x, N - 1)
    tl.store(x, N)
# CHECK: exponential_recursion.py:12:5: error: inlining the calls of kernel 'rec' would make more than 200000 operations; is a compile-time recursion calling itself more than once per level?
# SMALL-LABEL: func.func @rec
# SMALL-COUNT-2047: tile.store
