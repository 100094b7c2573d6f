# Misuses of tl.inline_asm_elementwise are located errors.
# RUN: not tilec compile %s -k asm_not_string -s '*i32' 2>&1 | FileCheck %s --check-prefix=ASM
# RUN: not tilec compile %s -k args_not_list -s '*i32' 2>&1 | FileCheck %s --check-prefix=LIST
# RUN: not tilec compile %s -k wrong_count -s '*i32' 2>&1 | FileCheck %s --check-prefix=COUNT
# RUN: not tilec compile %s -k runtime_pure -s '*i32,i32' 2>&1 | FileCheck %s --check-prefix=PURE
# RUN: not tilec compile %s -k odd_pack -s '*i32' 2>&1 | FileCheck %s --check-prefix=PACK
# RUN: not tilec compile %s -k bool_dtype -s '*i32' 2>&1 | FileCheck %s --check-prefix=DTYPE
# RUN: not tilec compile %s -k no_dtype -s '*i32' 2>&1 | FileCheck %s --check-prefix=EMPTY
# RUN: not tilec compile %s -k pointer_arg -s '*i32' 2>&1 | FileCheck %s --check-prefix=POINTER
# RUN: not tilec compile %s -k scalar_pack -s '*i32,i32' 2>&1 | FileCheck %s --check-prefix=SCALAR
# RUN: not tilec compile %s -k bad_reference -s '*i32' 2>&1 | FileCheck %s --check-prefix=REFERENCE
import tilec.language as tl


def asm_not_string(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise(3, "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
# ASM: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's asm must be a string, got

def args_not_list(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", x, dtype=tl.int32, is_pure=True, pack=1)
# LIST: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's args must be a list of tensors or numbers

def wrong_count(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x, x], dtype=tl.int32, is_pure=True, pack=1)
# COUNT: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: the constraints name 1 outputs and 1 inputs, but with pack=1 each invocation has 1 output and 2 input registers

def runtime_pure(p, n):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=n > 0, pack=1)
# PURE: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: is_pure must be a compile-time bool

def odd_pack(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("", "=r,=r,=r,r,r,r", [x], dtype=tl.int32, is_pure=True, pack=3)
# PACK: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: pack must be a power of two from 1 to 16, got 3

def bool_dtype(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("", "=r,r", [x], dtype=tl.int1, is_pure=True, pack=1)
# DTYPE: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's dtype must be integers of 8 to 64 bits or floats, got i1

def no_dtype(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("", "r", [x], dtype=(), is_pure=False, pack=1)
# EMPTY: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise must return at least one value

def pointer_arg(p):
    y = tl.inline_asm_elementwise("", "=l,l", [p + tl.arange(0, 128)], dtype=tl.int64, is_pure=True, pack=1)
# POINTER: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's args must be integers of 8 to 64 bits or floats, got *i32

def scalar_pack(p, n):
    y = tl.inline_asm_elementwise("", "=r,=r,r,r", [n], dtype=tl.int32, is_pure=True, pack=2)
# SCALAR: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: scalar operands take pack=1, got 2

def bad_reference(p):
    x = tl.load(p + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("add.s32 $0, $1, $7;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
# REFERENCE: inline_asm.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.inline_asm_elementwise's asm names operand $7, but an invocation has 2 (outputs, then inputs)
