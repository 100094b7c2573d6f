# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr):
    offs = tl.arange(0, 64)
    mask = tl.arange(0, 32) < 4
    tl.store(ptr + offs, 1.0, mask=mask)
# CHECK: store_bad_mask.py:[[@LINE-1]]:36: error: shape mismatch in broadcasting: [64] and [32]
