# RUN: not tilec compile %s -k k -s 'i32' 2>&1 | FileCheck %s
import tilec.language as tl

def k(n):
    while n > 0:
        n -= 1
# CHECK: while_loop.py:[[@LINE-2]]:5: error: 'while' loops are not supported by tilec yet; use 'for ... in range(...)'
