# RUN: not tilec compile %s -k k -s 'i32' 2>&1 | FileCheck %s
import tilec.language as tl

class Config:
    pass
# CHECK: unsupported_class.py:[[@LINE-2]]:1: error: 'class' is not supported in tilec kernels
