# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr):
    x = tl.load(ptr + tl.arange(0, 16))
    if x > 0:
        tl.store(ptr, 1.0)
# CHECK: tensor_condition.py:[[@LINE-2]]:8: error: the condition of 'if' must be a scalar, got a tensor<16xi1>; use tl.where for tensors
