# RUN: not tilec compile %s -k k -s '*fp32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def f(x):
    return f(x)

def k(ptr, n):
    tl.store(ptr, f(n))
# CHECK: recursion.py:[[@LINE-4]]:12: error: recursive call to 'f' is not supported
