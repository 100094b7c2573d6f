# RUN: not tilec compile %s -k k -s '*fp32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def block_of(ptr, BLOCK: tl.constexpr):
    return ptr + tl.arange(0, BLOCK)

def k(ptr, n):
    tl.store(block_of(ptr, n), 1.0)
# CHECK: constexpr_argument.py:[[@LINE-1]]:28: error: argument 'BLOCK' of 'block_of' must be a compile-time constant (it is annotated tl.constexpr), got a value of type i32
