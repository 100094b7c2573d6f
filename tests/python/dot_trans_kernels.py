"""Kernels that transpose a dot operand in registers, as Triton users write
A @ B^T (B stored N x K, tl.dot(a, tl.trans(b))) and A^T @ B (A stored
K x M, tl.dot(tl.trans(a), b)); the same storage loaded straight as
column-major tiles (A as M x K, B as K x N: the `_direct` kernels); a
one-block A @ B.T with '@' and x.T.
Shared by test_dot_trans.py (interpreter, PTX) and test_gpu_dot_trans.py."""
import tilec
import tilec.language as tl


@tilec.jit
def a_bt(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
         BK: tl.constexpr, PREC: tl.constexpr):
    # A row-major M x K, B row-major N x K: C = A @ B^T.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :],
                    mask=(rn[:, None] < N) & ((k + rk)[None, :] < K), other=0)
        acc = tl.dot(a, tl.trans(b), acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def at_b(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
         BK: tl.constexpr, PREC: tl.constexpr):
    # A row-major K x M, B row-major K x N: C = A^T @ B.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        at = tl.load(a_ptr + (k + rk)[:, None] * M + rm[None, :],
                     mask=((k + rk)[:, None] < K) & (rm[None, :] < M), other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(tl.trans(at), b, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def at_b_direct(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, PREC: tl.constexpr):
    # A stored K x M as in at_b, but loaded straight as its M x K tile
    # (column-major A, M contiguous), without tl.trans: C = A @ B.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] + (k + rk)[None, :] * M,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def a_bt_direct(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, PREC: tl.constexpr):
    # B stored N x K as in a_bt, but loaded straight as its K x N tile (K
    # contiguous), without tl.trans: C = A @ B.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        b = tl.load(b_ptr + rn[None, :] * K + (k + rk)[:, None],
                    mask=(rn[None, :] < N) & ((k + rk)[:, None] < K), other=0)
        acc += tl.dot(a, b, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def a_bt_operator(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                  BN: tl.constexpr, BK: tl.constexpr):
    # One K block (K <= BK): C = a @ b.T.
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
    b = tl.load(b_ptr + rn[:, None] * K + rk[None, :],
                mask=(rn[:, None] < N) & (rk[None, :] < K), other=0)
    c = a @ b.T
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))
