# RUN: not tilec compile %s -k k -s '*fp32,i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(ptr, n):
    acc = 0
    for i in range(n):
        acc += tl.load(ptr + i)
    tl.store(ptr, acc)
# CHECK: loop_type_change.py:[[@LINE-3]]:5: error: loop-carried variable 'acc' changes type from i32 to fp32 in the loop body; give it its final type before the loop
