# RUN: not tilec compile %s -k k -s '*fp33,i32' 2>&1 | FileCheck %s
# RUN: not tilec compile %s -k k -s '*fp32' 2>&1 | FileCheck %s --check-prefix=COUNT
import tilec.language as tl

def k(ptr, n):
    tl.store(ptr, n)
# CHECK: error: signature entry 1 ('*fp33'): unknown type '*fp33'
# COUNT: bad_signature.py:[[@LINE-3]]:5: error: the signature has 1 entries but kernel 'k' has 2 non-constexpr parameters (ptr, n)
