# RUN: not tilec compile %s -k k -s '*fp32,fp32,fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(out, a, b):
    tl.store(out, tl.fdiv(a, b, ieee_rounding=1))
# CHECK: fdiv_rounding_not_bool.py:[[@LINE-1]]:47: error: ieee_rounding must be True or False
