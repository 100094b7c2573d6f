# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), 1.0)
# CHECK: missing_constexpr.py:[[@LINE-2]]:12: error: no value given for constexpr parameter 'BLOCK'
