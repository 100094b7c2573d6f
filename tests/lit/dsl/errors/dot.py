# tl.dot and '@' check their operands as Triton does, at the user's line.
# RUN: not tilec compile %s -k k_mismatch -s '*fp16' 2>&1 | FileCheck %s --check-prefix=K
# RUN: not tilec compile %s -k small -s '*fp16' 2>&1 | FileCheck %s --check-prefix=SMALL
# RUN: not tilec compile %s -k mixed -s '*fp16,*fp32' 2>&1 | FileCheck %s --check-prefix=MIXED
# RUN: not tilec compile %s -k bad_acc -s '*fp16' 2>&1 | FileCheck %s --check-prefix=ACC
# RUN: not tilec compile %s -k bf16_out -s '*bf16' 2>&1 | FileCheck %s --check-prefix=BF16OUT
# RUN: not tilec compile %s -k precision -s '*fp32' 2>&1 | FileCheck %s --check-prefix=PREC
# RUN: not tilec compile %s -k pointer_operand -s '*fp16' 2>&1 | FileCheck %s --check-prefix=PTR
# RUN: not tilec compile %s -k int64_operands -s '*i64' 2>&1 | FileCheck %s --check-prefix=I64
# RUN: not tilec compile %s -k scalar_matmul -s 'i32' 2>&1 | FileCheck %s --check-prefix=SCALAR
# RUN: tilec compile %s -k good -s '*fp16,*fp32' --emit tile | FileCheck %s --check-prefix=GOOD
# RUN: not tilec compile %s -k fp8_out -s '*fp8e4nv' 2>&1 | FileCheck %s --check-prefix=FP8OUT
# RUN: not tilec compile %s -k fp8_mixed -s '*fp8e4nv,*fp16' 2>&1 | FileCheck %s --check-prefix=FP8MIXED
# RUN: not tilec compile %s -k fp8_good -s '*fp8e4nv,*fp8e5,*fp32' --target sm_80 2>&1 | FileCheck %s --check-prefix=FP8SM80
# RUN: tilec compile %s -k fp8_good -s '*fp8e4nv,*fp8e5,*fp32' --emit tile | FileCheck %s --check-prefix=FP8GOOD
# RUN: not tilec compile %s -k imprecise_above_k -s '*fp8e4nv' 2>&1 | FileCheck %s --check-prefix=IMPK
# RUN: not tilec compile %s -k imprecise_negative -s '*fp8e4nv' 2>&1 | FileCheck %s --check-prefix=IMPNEG
# RUN: tilec compile %s -k imprecise_good -s '*fp8e4nv,*fp16,*fp32' --emit tile | FileCheck %s --check-prefix=IMPGOOD
import tilec.language as tl


def tile(p, R: tl.constexpr, C: tl.constexpr):
    return tl.load(p + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])


def k_mismatch(p):
    a = tile(p, 32, 16)
    b = tile(p, 32, 32)
    c = tl.dot(a, b)
# K: dot.py:[[@LINE-1]]:9: error: tl.dot shapes [32, 16] and [32, 32] are not compatible: K is 16 in the first and 32 in the second


def small(p):
    c = tl.dot(tile(p, 8, 16), tile(p, 16, 16))
# SMALL: dot.py:[[@LINE-1]]:9: error: tl.dot needs M, N and K of at least 16 (tensor-core tiles), got M=8, N=16, K=16


def mixed(p, q):
    c = tile(p, 16, 16) @ tile(q, 16, 16)
# MIXED: dot.py:[[@LINE-1]]:9: error: tl.dot operands must have the same dtype, got fp16 and fp32; cast one with .to()


def bad_acc(p):
    acc = tl.zeros((16, 32), dtype=tl.float32)
    c = tl.dot(tile(p, 16, 16), tile(p, 16, 16), acc)
# ACC: dot.py:[[@LINE-1]]:50: error: the accumulator of tl.dot must be tensor<16x16xfp32> (the product's shape and type), got a tensor of type tensor<16x32xfp32>


def bf16_out(p):
    c = tl.dot(tile(p, 16, 16), tile(p, 16, 16), out_dtype=tl.bfloat16)
# BF16OUT: dot.py:[[@LINE-1]]:9: error: out_dtype=bfloat16 is not supported; accumulate in float32 and cast the result with .to(tl.bfloat16)


def precision(p):
    c = tl.dot(tile(p, 16, 16), tile(p, 16, 16), input_precision="bf16x3")
# PREC: dot.py:[[@LINE-1]]:66: error: unknown input_precision 'bf16x3' (expected one of 'tf32', 'tf32x3', 'ieee')


def pointer_operand(p):
    ptrs = p + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :]
    c = tl.dot(ptrs, tile(p, 16, 16))
# PTR: dot.py:[[@LINE-1]]:16: error: the first operand of tl.dot is a tensor of pointers (tensor<16x16x*fp16>); load it first


def int64_operands(p):
    c = tl.dot(tile(p, 16, 16), tile(p, 16, 16))
# I64: dot.py:[[@LINE-1]]:9: error: tl.dot does not support i64 operands (it takes fp16, bf16, fp32, i8, fp8e4nv, fp8e5)


def scalar_matmul(n):
    c = n @ n
# SCALAR: dot.py:[[@LINE-1]]:9: error: the first operand of '@' must be a tensor, got


def good(p, q):
    acc = tl.zeros((32, 16), dtype=tl.float32)
    acc += tile(p, 32, 16) @ tile(p, 16, 16)
    tl.store(q + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :], acc)
# GOOD: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x16xf16>, tensor<16x16xf16> -> tensor<32x16xf32>


def fp8_out(p):
    c = tl.dot(tile(p, 16, 32), tile(p, 32, 16), out_dtype=tl.float16)
# FP8OUT: dot.py:[[@LINE-1]]:9: error: tl.dot of fp8 operands accumulates in float32, not in fp16


def fp8_mixed(p, q):
    c = tl.dot(tile(p, 16, 32), tile(q, 32, 16))
# FP8MIXED: dot.py:[[@LINE-1]]:9: error: tl.dot operands must have the same dtype, got fp8e4nv and fp16; cast one with .to()


def fp8_good(p, q, r):
    c = tl.dot(tile(p, 16, 32), tile(q, 32, 16))
    tl.store(r + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c)
# The two fp8 formats meet in one dot, as the tensor cores allow; sm_80 has
# no fp8 instructions.
# FP8GOOD: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2> -> tensor<16x16xf32>
# FP8SM80: dot.py:[[@LINE-5]]:9: error: tl.dot of fp8 operands needs sm_89 or newer (the target is sm_80)


def imprecise_above_k(p):
    c = tl.dot(tile(p, 16, 32), tile(p, 32, 16), max_num_imprecise_acc=64)
# IMPK: dot.py:[[@LINE-1]]:72: error: max_num_imprecise_acc (64) must be at most K (32)


def imprecise_negative(p):
    c = tl.dot(tile(p, 16, 32), tile(p, 32, 16), max_num_imprecise_acc=-1)
# IMPNEG: dot.py:[[@LINE-1]]:72: error: max_num_imprecise_acc must be a non-negative int32, got -1


def imprecise_good(p, q, r):
    # Kept on fp8 dots (how long Hopper's wgmma may sum in its own
    # accumulator), dropped on others, whose tensor cores sum in full.
    c = tl.dot(tile(p, 16, 32), tile(p, 32, 16), max_num_imprecise_acc=32)
    d = tl.dot(tile(q, 16, 16), tile(q, 16, 16), max_num_imprecise_acc=None)
    e = tl.dot(tile(q, 16, 16), tile(q, 16, 16), max_num_imprecise_acc=8)
    tl.store(r + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c + d + e)
# IMPGOOD: tile.dot {{.*}} {maxNumImpreciseAcc = 32 : i32} : tensor<16x32xf8E4M3FN>
# IMPGOOD-NOT: maxNumImpreciseAcc
