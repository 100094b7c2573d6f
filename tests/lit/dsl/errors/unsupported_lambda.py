# RUN: not tilec compile %s -k k -s 'i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(n):
    f = lambda x: x + 1
# CHECK: unsupported_lambda.py:[[@LINE-1]]:9: error: 'lambda' is not supported in tilec kernels
