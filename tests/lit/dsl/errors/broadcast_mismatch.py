# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr):
    a = tl.arange(0, 32)[:, None] + tl.arange(0, 64)[None, :]
    b = a + tl.arange(0, 16)
    tl.store(ptr + b, 1.0)
# CHECK: broadcast_mismatch.py:[[@LINE-2]]:9: error: shape mismatch in broadcasting: [32, 64] and [16]
