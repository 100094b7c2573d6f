# One truth rule, Python's, for every compile-time test: `if`, `x if c
# else y`, `and`/`or` (which return one of their operands), `not`, bool().
# A runtime condition is compared with zero in the IR.
# RUN: tilec compile %s -k branches -s '*fp32' --emit tile 2>&1 | FileCheck %s --check-prefix=IF --implicit-check-not=WRONG
# RUN: tilec compile %s -k operands -s '*fp32' --emit tile 2>&1 | FileCheck %s --check-prefix=OPS
# RUN: tilec compile %s -k runtime -s '*fp32,fp32' --emit tile 2>&1 | FileCheck %s --check-prefix=RUNTIME
import tilec.language as tl


def branches(out):
    if 0.0:
        tl.static_print("WRONG: if 0.0 took its body")
    else:
        tl.static_print("if 0.0: else")
# IF: truthiness.py:[[@LINE-1]]: if 0.0: else
    if -0.0:
        tl.static_print("WRONG: if -0.0 took its body")
    else:
        tl.static_print("if -0.0: else")
# IF: truthiness.py:[[@LINE-1]]: if -0.0: else
    if "":
        tl.static_print("WRONG: if '' took its body")
    elif ():
        tl.static_print("WRONG: elif () took its body")
    elif None:
        tl.static_print("WRONG: elif None took its body")
    elif float("nan"):
        tl.static_print("elif nan: body")
# IF: truthiness.py:[[@LINE-1]]: elif nan: body
    if tl.float16:
        tl.static_print("if a dtype: body")
# IF: truthiness.py:[[@LINE-1]]: if a dtype: body
    tl.static_print("x if 0.0 else y:", "WRONG" if 0.0 else "else")
# IF: truthiness.py:[[@LINE-1]]: x if 0.0 else y: else
    tl.static_print("x if '' else y:", "WRONG" if "" else "else")
# IF: truthiness.py:[[@LINE-1]]: x if '' else y: else
    tl.store(out, 1.0)


def operands(out):
    tl.static_print(0.0 or 3, 0.0 and 3, "" or 2, () or None, -0.0 or 0.5)
# OPS: truthiness.py:[[@LINE-1]]: 3 0.0 2 None 0.5
    tl.static_print(not 0.0, not "", not (), not 0.5, not tl.float32)
# OPS: truthiness.py:[[@LINE-1]]: True True True False False
    tl.static_print(bool(0.0), bool(-0.0), bool(""), bool(None), bool(float("nan")))
# OPS: truthiness.py:[[@LINE-1]]: False False False False True
    tl.store(out, 1.0)


def runtime(out, f):
    if f:
        tl.store(out, 1.0)
    tl.store(out + 1, 2.0 if f else 3.0)
# RUNTIME: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
# RUNTIME: %[[C:.*]] = arith.cmpf une, %arg1, %[[Z]] : f32
# RUNTIME: scf.if %[[C]]
# RUNTIME: arith.select %[[C]]
