# The promotion rules of docs/language.md, as they show in the tile IR.
# RUN: tilec compile %s -k scale_half -s '*fp16,*fp16' --emit tile | FileCheck %s --check-prefix=HALF
# RUN: tilec compile %s -k mixed_ints -s '*i64,i32,i64' --emit tile | FileCheck %s --check-prefix=INTS
# RUN: tilec compile %s -k true_div -s '*fp32,i32,i32' --emit tile | FileCheck %s --check-prefix=DIV
# RUN: tilec compile %s -k unsigned_cmp -s '*i1,u32,u32' --emit tile | FileCheck %s --check-prefix=UCMP
# RUN: tilec compile %s -k int_float -s '*fp32,i32,fp32' --emit tile | FileCheck %s --check-prefix=INTF
# RUN: tilec compile %s -k half_bf16 -s '*fp32,fp16,bf16' --emit tile | FileCheck %s --check-prefix=HB
import tilec.language as tl


def scale_half(x, out):
    # A float literal adopts the tensor's type: the product stays fp16.
    v = tl.load(x + tl.arange(0, 16))
    tl.store(out + tl.arange(0, 16), v * 2.0)
# HALF: %[[V:.*]] = tile.load
# HALF: arith.mulf %[[V]], %{{.*}} : tensor<16xf16>


def mixed_ints(out, a, b):
    # int32 with int64: the wider wins, the narrower is sign-extended.
    tl.store(out, a + b)
# INTS: %[[A:.*]] = arith.extsi %arg1 : i32 to i64
# INTS: arith.addi %[[A]], %arg2 : i64


def true_div(out, a, b):
    # `/` of integers computes in fp32.
    tl.store(out, a / b)
# DIV-DAG: arith.sitofp %arg1 : i32 to f32
# DIV-DAG: arith.sitofp %arg2 : i32 to f32
# DIV: arith.divf


def unsigned_cmp(out, a, b):
    tl.store(out, a < b)
# UCMP: arith.cmpi ult, %arg1, %arg2 : i32


def int_float(out, i, f):
    tl.store(out, i * f)
# INTF: %[[I:.*]] = arith.sitofp %arg1 : i32 to f32
# INTF: arith.mulf %[[I]], %arg2 : f32


def half_bf16(out, h, b):
    # fp16 with bf16: neither holds the other, both go to fp32.
    tl.store(out, h + b)
# HB-DAG: arith.extf %arg1 : f16 to f32
# HB-DAG: arith.extf %arg2 : bf16 to f32
# HB: arith.addf
