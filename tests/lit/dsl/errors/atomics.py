# The atomics' errors, each at the argument it is about: an unknown memory
# semantic or scope, a pointee no atomic takes, a bitwise atomic on
# floats, a first argument that is no pointer.
# RUN: not tilec compile %s -k bad_sem -s '*i32' 2>&1 | FileCheck %s --check-prefix=SEM
# RUN: not tilec compile %s -k bad_scope -s '*fp32' 2>&1 | FileCheck %s --check-prefix=SCOPE
# RUN: not tilec compile %s -k narrow -s '*i16' 2>&1 | FileCheck %s --check-prefix=NARROW
# RUN: not tilec compile %s -k narrow_cas -s '*i8' 2>&1 | FileCheck %s --check-prefix=CAS
# RUN: not tilec compile %s -k float_xor -s '*bf16' -D BLOCK=32 2>&1 | FileCheck %s --check-prefix=FLOAT
# RUN: not tilec compile %s -k not_a_pointer -s 'i64' 2>&1 | FileCheck %s --check-prefix=POINTER
import tilec.language as tl


def bad_sem(p):
    tl.atomic_add(p, 1, sem="seq_cst")
# SEM: atomics.py:[[@LINE-1]]:29: error: unknown memory semantic 'seq_cst' (expected one of 'acquire', 'release', 'acq_rel', 'relaxed')


def bad_scope(p):
    tl.atomic_xchg(p, 1.0, scope="block")
# SCOPE: atomics.py:[[@LINE-1]]:34: error: unknown memory scope 'block' (expected one of 'gpu', 'cta', 'sys')


def narrow(p):
    tl.atomic_max(p, 1)
# NARROW: atomics.py:[[@LINE-1]]:19: error: tl.atomic_max does not support i16 (integers of 32 or 64 bits only)


def narrow_cas(p):
    tl.atomic_cas(p, 0, 1)
# CAS: atomics.py:[[@LINE-1]]:19: error: tl.atomic_cas needs elements of 16, 32 or 64 bits, got i8


def float_xor(p, BLOCK: tl.constexpr):
    tl.atomic_xor(p + tl.arange(0, BLOCK), 1)
# FLOAT: atomics.py:[[@LINE-1]]:19: error: tl.atomic_xor does not support bf16 (floats take add, max, min and xchg)


def not_a_pointer(x):
    tl.atomic_or(x, 1)
# POINTER: atomics.py:[[@LINE-1]]:18: error: tl.atomic_or needs a pointer or a tensor of pointers, got
