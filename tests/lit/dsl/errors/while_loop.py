# A `while` loop ends only through its condition: a condition that is
# always true, a tensor condition, `while ... else`, `break` and a carried
# value that changes type are located errors.
# RUN: not tilec compile %s -k forever -s 'i32' 2>&1 | FileCheck %s --check-prefix=FOREVER
# RUN: not tilec compile %s -k tensor_cond -s '*i32' 2>&1 | FileCheck %s --check-prefix=TENSOR
# RUN: not tilec compile %s -k with_else -s 'i32' 2>&1 | FileCheck %s --check-prefix=ELSE
# RUN: not tilec compile %s -k with_break -s 'i32' 2>&1 | FileCheck %s --check-prefix=BREAK
# RUN: not tilec compile %s -k changes_type -s '*fp32,i32' 2>&1 | FileCheck %s --check-prefix=TYPE
# RUN: not tilec compile %s -k local_after -s '*i32,i32' 2>&1 | FileCheck %s --check-prefix=LOCAL
import tilec.language as tl

def forever(n):
    while True:
        n -= 1
# FOREVER: while_loop.py:[[@LINE-2]]:11: error: this 'while' condition is always true, so the loop would never end (tilec has no 'break')

def tensor_cond(p):
    x = tl.load(p + tl.arange(0, 16))
    while x > 0:
        x -= 1
# TENSOR: while_loop.py:[[@LINE-2]]:11: error: the condition of 'while' must be a scalar, got a tensor<16xi1>; reduce it first (tl.max, tl.sum)

def with_else(n):
    while n > 0:
        n -= 1
    else:
        n = 3
# ELSE: while_loop.py:[[@LINE-1]]:9: error: 'while ... else' is not supported in tilec kernels

def with_break(n):
    while n > 0:
        break
# BREAK: while_loop.py:[[@LINE-1]]:9: error: 'break' is not supported in tilec kernels; end a 'while' loop through its condition

def changes_type(p, n):
    acc = 0
    while n > 0:
        acc += tl.load(p + n)
        n -= 1
    tl.store(p, acc)
# TYPE: while_loop.py:[[@LINE-4]]:5: error: loop-carried variable 'acc' changes type from i32 to fp32 in the loop body; give it its final type before the loop

def local_after(p, n):
    while n > 0:
        last = n
        n -= 1
    tl.store(p, last)
# LOCAL: while_loop.py:[[@LINE-1]]:17: error: 'last' is assigned only inside the loop at line [[@LINE-4]] and is not visible after it
