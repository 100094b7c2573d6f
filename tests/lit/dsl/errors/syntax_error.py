# RUN: not tilec compile %s -k k -s 'i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(n):
    x = (n + 1
    y = 2
# CHECK: syntax_error.py:[[@LINE-2]]:9: error: '(' was never closed
# CHECK-NEXT: {{^}}    x = (n + 1
# CHECK-NEXT: {{^}}        ^
