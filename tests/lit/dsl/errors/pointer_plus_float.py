# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr):
    p = ptr + 1.5
    tl.store(p, 0.0)
# CHECK: pointer_plus_float.py:[[@LINE-2]]:9: error: cannot add a float constant to a pointer (*fp32): pointer offsets must be integers
