# RUN: not tilec compile %s -k k -s 'i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(n):
    try:
        x = n
    except Exception:
        pass
# CHECK: unsupported_try.py:[[@LINE-4]]:5: error: 'try' is not supported in tilec kernels
