# propagate_nan takes a member of tl.PropagateNan, which has two.
# RUN: not tilec compile %s -k not_a_member -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=VALUE
# RUN: not tilec compile %s -k unknown_member -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=MEMBER
import tilec.language as tl


def not_a_member(out, x):
    tl.store(out, tl.maximum(x, 1.0, propagate_nan=True))
# VALUE: propagate_nan.py:[[@LINE-1]]:52: error: propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, got a bool constant


def unknown_member(out, x):
    tl.store(out, tl.maximum(x, 1.0, tl.PropagateNan.SOME))
# MEMBER: propagate_nan.py:[[@LINE-1]]:38: error: tl.PropagateNan has no member 'SOME' (it has NONE and ALL)
