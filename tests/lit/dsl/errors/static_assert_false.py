# tl.static_assert fails on every value Python deems false, and only those.
# RUN: not tilec compile %s -k zero_float -s '*fp32' 2>&1 | FileCheck %s --check-prefix=ZERO
# RUN: not tilec compile %s -k minus_zero -s '*fp32' 2>&1 | FileCheck %s --check-prefix=MINUS
# RUN: not tilec compile %s -k empty_string -s '*fp32' 2>&1 | FileCheck %s --check-prefix=EMPTY
# RUN: not tilec compile %s -k none -s '*fp32' 2>&1 | FileCheck %s --check-prefix=NONE
# RUN: not tilec compile %s -k empty_tuple -s '*fp32' 2>&1 | FileCheck %s --check-prefix=TUPLE
# RUN: not tilec compile %s -k constexpr_param -s '*fp32' -D C=0.0 2>&1 | FileCheck %s --check-prefix=PARAM
# RUN: tilec compile %s -k constexpr_param -s '*fp32' -D C=0.5 --emit tile | FileCheck %s --check-prefix=PASS
# RUN: tilec compile %s -k true_values -s '*fp32' --emit tile | FileCheck %s --check-prefix=PASS
import tilec.language as tl

def zero_float(p):
    tl.static_assert(0.0)
# ZERO: static_assert_false.py:[[@LINE-1]]:5: error: static assertion failed{{$}}

def minus_zero(p):
    tl.static_assert(-0.0, "negative zero is false")
# MINUS: static_assert_false.py:[[@LINE-1]]:5: error: static assertion failed: negative zero is false

def empty_string(p):
    tl.static_assert("")
# EMPTY: static_assert_false.py:[[@LINE-1]]:5: error: static assertion failed{{$}}

def none(p):
    tl.static_assert(None)
# NONE: static_assert_false.py:[[@LINE-1]]:5: error: static assertion failed{{$}}

def empty_tuple(p):
    tl.static_assert(())
# TUPLE: static_assert_false.py:[[@LINE-1]]:5: error: static assertion failed{{$}}

def constexpr_param(p, C: tl.constexpr):
    tl.static_assert(C, "C must be non-zero")
    tl.store(p, 1.0)
# PARAM: static_assert_false.py:[[@LINE-2]]:5: error: static assertion failed: C must be non-zero

def true_values(p):
    tl.static_assert(0.5)
    tl.static_assert(float("nan"))
    tl.static_assert("0")
    tl.static_assert((0,))
    tl.static_assert(tl.float32)
    tl.static_assert(-1)
    tl.store(p, 1.0)
# PASS: tile.store
