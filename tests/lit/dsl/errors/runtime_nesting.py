# Runtime ifs and loops nest at most 128 deep, counting those of the
# functions a helper is called from (helpers are inlined into them). A
# compile-time recursion inside a runtime 'if' nests one 'if' per call:
# 1000 of them took a minute in MLIR's canonicalizer (release build), and
# 200 overflowed the interpreter's stack under AddressSanitizer.
# RUN: not tilec compile %s -k rec -s '*i32' -D N=1000 2>&1 | FileCheck %s
# RUN: tilec compile %s -k rec -s '*i32' -D N=100 --emit tile | FileCheck %s --check-prefix=OK
import tilec.language as tl


def rec(x, N: tl.constexpr):
    helper(x, N)


def helper(x, N: tl.constexpr):
    if N > 0:
        if tl.load(x) > N:
            helper(x, N - 1)
    tl.store(x, N)
# CHECK: runtime_nesting.py:[[@LINE-3]]:9: error: runtime 'if's and loops nest more than 128 deep here (counting those of the calling functions)
# OK-LABEL: func.func @rec
# OK-COUNT-100: scf.if
# OK-NOT: func.func private
