# RUN: not tilec compile %s -k k -s '*fp32' -D BLOCK=1000 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), 1.0)
# CHECK: not_power_of_two.py:[[@LINE-1]]:20: error: tensor dimensions must be powers of two, got shape [1000]
