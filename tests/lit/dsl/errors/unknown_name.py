# RUN: not tilec compile %s -k k -s '*fp32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(out, n):
    tl.store(out, n + undefined_thing)
# CHECK: unknown_name.py:[[@LINE-1]]:23: error: name 'undefined_thing' is not defined
# CHECK-NEXT: {{^}}    tl.store(out, n + undefined_thing)
# CHECK-NEXT: {{^}}                      ^
