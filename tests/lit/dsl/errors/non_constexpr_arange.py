# RUN: not tilec compile %s -k k -s '*fp32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr, n):
    offs = tl.arange(0, n)
    tl.store(ptr + offs, 1.0)
# CHECK: non_constexpr_arange.py:[[@LINE-2]]:25: error: the end of tl.arange must be a compile-time integer (a literal or a tl.constexpr), got a value of type i32
