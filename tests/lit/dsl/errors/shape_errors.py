# Misuse of the shape builtins: each error names the call (or the argument)
# that is wrong, with Triton's rules: dims are a permutation (no negative
# entries), reshape keeps the element count in powers of two, broadcast_to
# keeps the rank, expand_dims counts negative axes in its result.
# RUN: not tilec compile %s -k permute_rank -s '*fp32' 2>&1 | FileCheck %s --check-prefix=PERMUTE_RANK
# RUN: not tilec compile %s -k permute_not_perm -s '*fp32' 2>&1 | FileCheck %s --check-prefix=PERMUTE_NOT_PERM
# RUN: not tilec compile %s -k permute_negative -s '*fp32' 2>&1 | FileCheck %s --check-prefix=PERMUTE_NEGATIVE
# RUN: not tilec compile %s -k permute_no_dims -s '*fp32' 2>&1 | FileCheck %s --check-prefix=PERMUTE_NO_DIMS
# RUN: not tilec compile %s -k trans_3d -s '*fp32' 2>&1 | FileCheck %s --check-prefix=TRANS_3D
# RUN: not tilec compile %s -k dot_t_1d -s '*fp32' 2>&1 | FileCheck %s --check-prefix=DOT_T_1D
# RUN: not tilec compile %s -k trans_scalar -s '*fp32' 2>&1 | FileCheck %s --check-prefix=TRANS_SCALAR
# RUN: not tilec compile %s -k reshape_count -s '*fp32' 2>&1 | FileCheck %s --check-prefix=RESHAPE_COUNT
# RUN: not tilec compile %s -k reshape_pow2 -s '*fp32' 2>&1 | FileCheck %s --check-prefix=RESHAPE_POW2
# RUN: not tilec compile %s -k reshape_runtime -s '*fp32,i32' 2>&1 | FileCheck %s --check-prefix=RESHAPE_RUNTIME
# RUN: not tilec compile %s -k reshape_reorder -s '*fp32,i1' 2>&1 | FileCheck %s --check-prefix=RESHAPE_REORDER
# RUN: not tilec compile %s -k reshape_scalar -s '*fp32' 2>&1 | FileCheck %s --check-prefix=RESHAPE_SCALAR
# RUN: not tilec compile %s -k broadcast_rank -s '*fp32' 2>&1 | FileCheck %s --check-prefix=BROADCAST_RANK
# RUN: not tilec compile %s -k broadcast_size -s '*fp32' 2>&1 | FileCheck %s --check-prefix=BROADCAST_SIZE
# RUN: not tilec compile %s -k expand_range -s '*fp32' 2>&1 | FileCheck %s --check-prefix=EXPAND_RANGE
# RUN: not tilec compile %s -k expand_twice -s '*fp32' 2>&1 | FileCheck %s --check-prefix=EXPAND_TWICE
# RUN: not tilec compile %s -k expand_no_axis -s '*fp32' 2>&1 | FileCheck %s --check-prefix=EXPAND_NO_AXIS
# RUN: not tilec compile %s -k unknown_keyword -s '*fp32' 2>&1 | FileCheck %s --check-prefix=UNKNOWN_KEYWORD
# RUN: not tilec compile %s -k ravel_positional -s '*fp32' 2>&1 | FileCheck %s --check-prefix=RAVEL_POSITIONAL
import tilec.language as tl


def permute_rank(p):
    t = tl.load(p + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(p, tl.sum(tl.permute(t, 1, 0, 2)))
# PERMUTE_RANK: shape_errors.py:[[@LINE-1]]:38: error: tl.permute(): dims (1, 0, 2) must have one entry per dimension of a tensor of type tensor<8x4xfp32>

def permute_not_perm(p):
    t = tl.load(p + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(p, tl.sum(tl.permute(t, (1, 1))))
# PERMUTE_NOT_PERM: shape_errors.py:[[@LINE-1]]:38: error: tl.permute(): dims (1, 1) must be a permutation of 0, ..., 1

def permute_negative(p):
    t = tl.load(p + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(p, tl.sum(t.permute(-1, 0)))
# PERMUTE_NEGATIVE: shape_errors.py:[[@LINE-1]]:34: error: x.permute(): dims (-1, 0) must be a permutation of 0, ..., 1

def permute_no_dims(p):
    t = tl.load(p + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(p, tl.sum(tl.permute(t)))
# PERMUTE_NO_DIMS: shape_errors.py:[[@LINE-1]]:24: error: tl.permute() needs dims, the order of the dimensions

def trans_3d(p):
    t = tl.load(p + tl.arange(0, 64)).reshape(4, 4, 4)
    tl.store(p, tl.sum(tl.trans(t)))
# TRANS_3D: shape_errors.py:[[@LINE-1]]:24: error: tl.trans() without dims swaps the dimensions of a 2-D tensor; give the order of the dimensions of a tensor of type tensor<4x4x4xfp32>

def dot_t_1d(p):
    t = tl.load(p + tl.arange(0, 64))
    tl.store(p + tl.arange(0, 64), t.T)
# DOT_T_1D: shape_errors.py:[[@LINE-1]]:36: error: x.T transposes a 2-D tensor, not a tensor of type tensor<64xfp32>; use tl.permute

def trans_scalar(p):
    tl.store(p, tl.trans(tl.load(p)))
# TRANS_SCALAR: shape_errors.py:[[@LINE-1]]:26: error: tl.trans() needs a tensor, got a value of type fp32

def reshape_count(p):
    t = tl.load(p + tl.arange(0, 64))
    tl.store(p, tl.sum(tl.reshape(t, (4, 8))))
# RESHAPE_COUNT: shape_errors.py:[[@LINE-1]]:38: error: tl.reshape() cannot change the number of elements: [64] has 64, [4, 8] has 32

def reshape_pow2(p):
    t = tl.load(p + tl.arange(0, 64))
    tl.store(p, tl.sum(t.reshape(3, 4)))
# RESHAPE_POW2: shape_errors.py:[[@LINE-1]]:34: error: tensor dimensions must be powers of two, got shape [3, 4]

def reshape_runtime(p, n):
    t = tl.load(p + tl.arange(0, 64))
    tl.store(p, tl.sum(tl.reshape(t, (n, 64))))
# RESHAPE_RUNTIME: shape_errors.py:[[@LINE-1]]:38: error: each entry of the shape of tl.reshape() must be a compile-time integer (a literal or a tl.constexpr), got a value of type i32

def reshape_reorder(p, flag):
    t = tl.load(p + tl.arange(0, 64))
    tl.store(p, tl.sum(tl.reshape(t, (8, 8), can_reorder=flag)))
# RESHAPE_REORDER: shape_errors.py:[[@LINE-1]]:58: error: can_reorder must be a compile-time boolean, got a value of type i1

def reshape_scalar(p):
    tl.store(p, tl.reshape(tl.load(p), (1,)))
# RESHAPE_SCALAR: shape_errors.py:[[@LINE-1]]:28: error: tl.reshape() needs a tensor, got a value of type fp32

def broadcast_rank(p):
    t = tl.load(p + tl.arange(0, 16))
    tl.store(p, tl.sum(tl.broadcast_to(t, (4, 16))))
# BROADCAST_RANK: shape_errors.py:[[@LINE-1]]:43: error: tl.broadcast_to() keeps the rank: [16] cannot become [4, 16] (insert dimensions with x[None, :] or tl.expand_dims)

def broadcast_size(p):
    t = tl.load(p + tl.arange(0, 16)[None, :])
    tl.store(p, tl.sum(tl.broadcast_to(t, 4, 32)))
# BROADCAST_SIZE: shape_errors.py:[[@LINE-1]]:43: error: tl.broadcast_to(): dimension 1 of size 16 cannot become 32 (only size-1 dimensions stretch): [1, 16] to [4, 32]

def expand_range(p):
    t = tl.load(p + tl.arange(0, 16))
    tl.store(p, tl.sum(tl.expand_dims(t, 2)))
# EXPAND_RANGE: shape_errors.py:[[@LINE-1]]:42: error: tl.expand_dims(): axis 2 is out of range for the rank-2 result (-2 <= axis < 2)

def expand_twice(p):
    t = tl.load(p + tl.arange(0, 16))
    tl.store(p, tl.sum(tl.expand_dims(t, (0, -3))))
# EXPAND_TWICE: shape_errors.py:[[@LINE-1]]:42: error: tl.expand_dims(): axes (0, -3) name one axis twice

def expand_no_axis(p):
    t = tl.load(p + tl.arange(0, 16))
    tl.store(p, tl.sum(t.expand_dims()))
# EXPAND_NO_AXIS: shape_errors.py:[[@LINE-1]]:24: error: x.expand_dims() missing required argument 'axis'

def unknown_keyword(p):
    t = tl.load(p + tl.arange(0, 16))
    tl.store(p, tl.sum(tl.reshape(t, (4, 4), order="F")))
# UNKNOWN_KEYWORD: shape_errors.py:[[@LINE-1]]:46: error: tl.reshape() got an unexpected keyword argument 'order'

def ravel_positional(p):
    t = tl.load(p + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(p + tl.arange(0, 32), tl.ravel(t, True))
# RAVEL_POSITIONAL: shape_errors.py:[[@LINE-1]]:48: error: tl.ravel() takes no other positional argument (keywords: can_reorder)
