# A compile-time recursion that does not end soon enough is an error at the
# call where the generator's stack runs low, not a stack overflow (it
# crashed the compiler at a depth of about 10000 in a release build, 1000
# under AddressSanitizer; found by hand while fuzzing). Where exactly it
# stops depends on the frames' sizes, so only the file is checked.
# RUN: not tilec compile %s -k rec -s '*i32' -D N=100000 2>&1 | FileCheck %s
# RUN: tilec compile %s -k rec -s '*i32' -D N=20 --emit tile | FileCheck %s --check-prefix=SHALLOW
import tilec.language as tl


def rec(x, N: tl.constexpr):
    helper(x, N)


def helper(x, N: tl.constexpr):
    if N > 0:
        helper(x, N - 1)
    tl.store(x, N)
# CHECK: deep_recursion.py:{{[0-9]+}}:{{[0-9]+}}: error: calls of @jit functions, blocks and expressions nest too deeply here ({{[0-9]+}} levels) for the stack; is a compile-time recursion missing its end?
# SHALLOW-LABEL: func.func @rec
# SHALLOW-COUNT-21: tile.store
# SHALLOW-NOT: func.func private
