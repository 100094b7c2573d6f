"""Kernels on fp8 values, shared by test_fp8.py (the interpreter) and
test_gpu_fp8.py (the GPU, against the interpreter)."""
import tilec
import tilec.language as tl


@tilec.jit
def convert(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """y = x converted to y's element type."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@tilec.jit
def arithmetic(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Operators on fp8 values, each computed in fp32 and rounded back:
    out[0:n] = x * y + x, out[n:2n] = max(x, -y) where x > y else |x|,
    out[2n:3n] = x / y."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, x * y + x, mask=mask)
    picked = tl.where(x > y, tl.maximum(x, -y), tl.abs(x))
    tl.store(out_ptr + n + offs, picked, mask=mask)
    tl.store(out_ptr + 2 * n + offs, x / y, mask=mask)


@tilec.jit
def row_reductions(x_ptr, sum_ptr, max_ptr, N: tl.constexpr):
    """Per row of an R x N fp8 matrix: the sum (in fp32) and the max (fp8)."""
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(sum_ptr + row, tl.sum(x, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))


@tilec.jit
def scaled_dot(a_ptr, b_ptr, c_ptr, scale, M, N, K,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """c = scale * (a @ b) for fp8 a (M x K) and b (K x N), possibly of
    different fp8 formats, with masked edges; c is fp32 or fp8."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    out = (acc * scale).to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def copy_select(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    """y = x (a load and a store), z = x or 0 by a select: the bytes of
    every code, NaNs and infinities included, move unchanged."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x, mask=mask)
    tl.store(z_ptr + offs, tl.where(offs >= 0, x, 0.0), mask=mask)


@tilec.jit
def literals(x_ptr, out_ptr, flags_ptr, BLOCK: tl.constexpr):
    """fp8 constants and literals: out[0:B] = full(300) + full(300) (fp8,
    saturating), out[B:2B] = x * 1000.0 (the literal enters unrounded);
    flags = x < 1000 (compared in fp32, not against a literal rounded to
    fp8)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    big = tl.full((BLOCK,), 300.0, x_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, big + big)
    tl.store(out_ptr + BLOCK + offs, x * 1000.0)
    tl.store(flags_ptr + offs, (x < 1000).to(tl.int32))


@tilec.jit
def k_major_dot(a_ptr, bt_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, IMPRECISE: tl.constexpr):
    """c = a @ bt.T for fp8 a (M x K) and bt (N x K), both K-contiguous (on
    sm_90a: wgmma), with max_num_imprecise_acc=IMPRECISE (-1: none given,
    the instruction's own accumulation throughout; -2: `acc += tl.dot(..)`,
    each product summed from zero and added in fp32)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        bt = tl.load(bt_ptr + rn[:, None] * K + (k0 + rk)[None, :],
                     mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K), other=0.0)
        if IMPRECISE == -2:
            acc += tl.dot(a, tl.trans(bt))
        elif IMPRECISE < 0:
            acc = tl.dot(a, tl.trans(bt), acc)
        else:
            acc = tl.dot(a, tl.trans(bt), acc, max_num_imprecise_acc=IMPRECISE)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
