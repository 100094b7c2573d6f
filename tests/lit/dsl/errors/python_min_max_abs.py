# Python's min, max and abs in a kernel: each misuse is a located error.
# RUN: not tilec compile %s -k no_arguments -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=NONE
# RUN: not tilec compile %s -k one_tensor -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=TENSOR
# RUN: not tilec compile %s -k one_scalar -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=SCALAR
# RUN: not tilec compile %s -k empty_tuple -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=EMPTY
# RUN: not tilec compile %s -k keyword -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=KEYWORD
# RUN: not tilec compile %s -k pointer -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=POINTER
# RUN: not tilec compile %s -k string -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=STRING
# RUN: not tilec compile %s -k abs_pointer -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=ABSPTR
# RUN: not tilec compile %s -k abs_string -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=ABSSTR
# RUN: not tilec compile %s -k abs_two -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=ABSTWO
# RUN: not tilec compile %s -k abs_none -s '*fp32,fp32' 2>&1 | FileCheck %s --check-prefix=ABSNONE
import tilec.language as tl


def no_arguments(out, a):
    tl.store(out, min())
# NONE: python_min_max_abs.py:[[@LINE-1]]:19: error: min() expected at least 1 argument, got 0


def one_tensor(out, a):
    x = tl.load(out + tl.arange(0, 16))
    tl.store(out, max(x))
# TENSOR: python_min_max_abs.py:[[@LINE-1]]:23: error: max() of one tensor is not a reduction: use tl.max(x, axis) to reduce it, or max(x, y) for the elementwise maximum


def one_scalar(out, a):
    tl.store(out, min(a))
# SCALAR: python_min_max_abs.py:[[@LINE-1]]:23: error: min() needs two or more values, or a tuple; got only a value of type fp32


def empty_tuple(out, a):
    tl.store(out, max(()))
# EMPTY: python_min_max_abs.py:[[@LINE-1]]:23: error: max() arg is an empty sequence


def keyword(out, a):
    tl.store(out, min(a, 1.0, key=None))
# KEYWORD: python_min_max_abs.py:[[@LINE-1]]:31: error: min() got an unexpected keyword argument 'key'


def pointer(out, a):
    tl.store(out, max(out, a))
# POINTER: python_min_max_abs.py:[[@LINE-1]]:19: error: max() needs numbers, got a value of type *fp32 and a value of type fp32


def string(out, a):
    tl.store(out, min("a", a))
# STRING: python_min_max_abs.py:[[@LINE-1]]:19: error: min() needs numbers or tensors, got a string and a value of type fp32


def abs_pointer(out, a):
    tl.store(out, abs(out + tl.arange(0, 4)))
# ABSPTR: python_min_max_abs.py:[[@LINE-1]]:23: error: bad operand for abs(): a tensor of type tensor<4x*fp32>


def abs_string(out, a):
    tl.store(out, abs("-1"))
# ABSSTR: python_min_max_abs.py:[[@LINE-1]]:23: error: bad operand for abs(): a string


def abs_two(out, a):
    tl.store(out, abs(a, a))
# ABSTWO: python_min_max_abs.py:[[@LINE-1]]:19: error: abs() takes at most 1 arguments, got 2


def abs_none(out, a):
    tl.store(out, abs())
# ABSNONE: python_min_max_abs.py:[[@LINE-1]]:19: error: abs() missing required argument 'x'
