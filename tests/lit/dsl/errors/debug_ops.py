# Misuses of the debugging builtins are located errors.
# RUN: not tilec compile %s -k bad_msg -s '*fp32' 2>&1 | FileCheck %s --check-prefix=MSG
# RUN: not tilec compile %s -k no_prefix -s '*fp32' 2>&1 | FileCheck %s --check-prefix=NOPREFIX
# RUN: not tilec compile %s -k control_char -s '*fp32' 2>&1 | FileCheck %s --check-prefix=CONTROL
# RUN: not tilec compile %s -k two_strings -s '*fp32' 2>&1 | FileCheck %s --check-prefix=TWO
# RUN: not tilec compile %s -k runtime_hex -s '*fp32,i32' 2>&1 | FileCheck %s --check-prefix=HEX
# RUN: not tilec compile %s -k static_false -s '*fp32' 2>&1 | FileCheck %s --check-prefix=STATIC
# RUN: not tilec compile %s -k string_value -s '*fp32' 2>&1 | FileCheck %s --check-prefix=STRING
import tilec.language as tl


def bad_msg(p):
    x = tl.load(p)
    tl.device_assert(x > 0, 3)
# MSG: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.device_assert's msg must be a string, got

def no_prefix(p):
    tl.device_print(tl.load(p))
# NOPREFIX: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.device_print needs a prefix string first

def control_char(p):
    tl.device_print("a\nb", tl.load(p))
# CONTROL: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.device_print's prefix must be printable ASCII

def two_strings(p):
    tl.device_print("x", "y", tl.load(p))
# TWO: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: tl.device_print takes one prefix string; put the text into it

def runtime_hex(p, n):
    tl.device_print("x", tl.load(p), hex=n > 0)
# HEX: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: hex= must be a compile-time bool

def static_false(p):
    tl.device_assert(1 == 2, "known at compile time")
# STATIC: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: assertion failed: known at compile time

def string_value(p):
    tl.device_assert(p, "a pointer is no condition")
# STRING: debug_ops.py:[[@LINE-1]]:{{[0-9]+}}: error: a pointer cannot be used as a condition
