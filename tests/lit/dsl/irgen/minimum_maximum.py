# tl.minimum / tl.maximum: floats take the non-NaN operand (minnumf /
# maxnumf) unless propagate_nan=tl.PropagateNan.ALL (minimumf / maximumf,
# max.NaN in PTX); integers compare signed or unsigned. Two compile-time
# numbers fold, NaN following the same rule.
# RUN: tilec compile %s -k floats -s '*fp32,fp32,fp32' --emit tile | FileCheck %s --check-prefix=FLOAT
# RUN: tilec compile %s -k floats -s '*fp16,fp16,fp16' --emit ptx -o %t
# RUN: FileCheck %s --input-file=%t/floats.ptx --check-prefix=PTX
# RUN: tilec compile %s -k ints -s '*i32,i32,u32' --emit tile | FileCheck %s --check-prefix=INT
# RUN: tilec compile %s -k folded -s '*fp32' --emit tile 2>&1 | FileCheck %s --check-prefix=FOLD
import tilec.language as tl
from tilec.language import PropagateNan


def floats(out, x, y):
    tl.store(out, tl.maximum(x, y))
    tl.store(out + 1, tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE))
    tl.store(out + 2, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out + 3, tl.minimum(x, y, PropagateNan.ALL))
# FLOAT: arith.maxnumf %arg1, %arg2 : f32
# FLOAT: arith.minnumf %arg1, %arg2 : f32
# FLOAT: arith.maximumf %arg1, %arg2 : f32
# FLOAT: arith.minimumf %arg1, %arg2 : f32
# PTX-DAG: max.NaN.f16
# PTX-DAG: min.NaN.f16


def ints(out, a, b):
    tl.store(out, tl.minimum(a, 3, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out + 1, tl.maximum(b, 3).to(tl.int32))
# INT: arith.minsi %arg1, %{{.*}} : i32
# INT: arith.maxui %arg2, %{{.*}} : i32


def folded(out):
    nan = float("nan")
    tl.static_print(tl.minimum(2, 1.5), tl.maximum(2, 1.5))
    tl.static_print(tl.maximum(nan, 1.0), tl.minimum(1.0, nan))
    tl.static_print(tl.maximum(nan, 1.0, tl.PropagateNan.ALL),
                    tl.minimum(1.0, nan, tl.PropagateNan.ALL))
    tl.static_print(tl.PropagateNan.ALL, tl.PropagateNan.ALL == tl.PropagateNan.NONE)
    tl.store(out, 1.0)
# FOLD: minimum_maximum.py:[[@LINE-6]]: 1.5 2
# FOLD: minimum_maximum.py:[[@LINE-6]]: 1.0 1.0
# FOLD: minimum_maximum.py:[[@LINE-6]]: nan nan
# FOLD: minimum_maximum.py:[[@LINE-5]]: PropagateNan.ALL False
