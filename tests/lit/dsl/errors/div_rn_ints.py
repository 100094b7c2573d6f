# RUN: not tilec compile %s -k k -s '*fp32,i32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(out, a, b):
    tl.store(out, tl.div_rn(a, b))
# CHECK: div_rn_ints.py:[[@LINE-1]]:19: error: tl.div_rn needs float operands, got a value of type i32
