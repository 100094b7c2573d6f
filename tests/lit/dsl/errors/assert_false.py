# `assert` on a compile-time value follows Python's truth rule.
# RUN: not tilec compile %s -k zero_float -s '*fp32' 2>&1 | FileCheck %s --check-prefix=ZERO
# RUN: not tilec compile %s -k constexpr_param -s '*fp32' -D C=0.0 2>&1 | FileCheck %s --check-prefix=PARAM
# RUN: not tilec compile %s -k constexpr_param -s '*fp32' -D C= 2>&1 | FileCheck %s --check-prefix=PARAM
# RUN: tilec compile %s -k constexpr_param -s '*fp32' -D C=nan --emit tile | FileCheck %s --check-prefix=PASS
# RUN: tilec compile %s -k constexpr_param -s '*fp32' -D C=fp16 --emit tile | FileCheck %s --check-prefix=PASS
import tilec.language as tl

def zero_float(p):
    assert 0.0
# ZERO: assert_false.py:[[@LINE-1]]:5: error: assertion failed{{$}}

def constexpr_param(p, C: tl.constexpr):
    assert C, "C is false"
    tl.store(p, 1.0)
# PARAM: assert_false.py:[[@LINE-2]]:5: error: assertion failed: C is false
# PASS: tile.store
