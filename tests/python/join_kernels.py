"""Kernels of the tl.join / tl.interleave / tl.cat / tl.view tests
(test_join.py and tests/lit/ptx/join.test)."""
import tilec
import tilec.language as tl


@tilec.jit
def join_1d(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # out is N x 2, row-major: out[i] = (a[i], b[i]).
    i = tl.arange(0, N)
    j = tl.join(tl.load(a_ptr + i), tl.load(b_ptr + i))
    tl.store(out_ptr + i[:, None] * 2 + tl.arange(0, 2)[None, :], j)


@tilec.jit
def join_2d(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # a, b: M x N; out: M x N x 2.
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    j = tl.join(tl.load(a_ptr + rows * N + cols), tl.load(b_ptr + rows * N + cols))
    offs = (rows * N + cols)[:, :, None] * 2 + tl.arange(0, 2)[None, None, :]
    tl.store(out_ptr + offs, j)


@tilec.jit
def join_broadcast(a_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # A row vector joined with a scalar and with a column: numpy's
    # broadcasting, the number taking the tensor's dtype.
    a = tl.load(a_ptr + tl.arange(0, N))[None, :]
    col = tl.arange(0, M)[:, None].to(a.dtype)
    j = tl.join(a, col) + tl.join(a, 3)
    rows = tl.arange(0, M)[:, None]
    offs = (rows * N + tl.arange(0, N)[None, :])[:, :, None] * 2 + tl.arange(0, 2)[None, None, :]
    tl.store(out_ptr + offs, j)


@tilec.jit
def interleave_1d(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    a = tl.load(a_ptr + i)
    b = tl.load(b_ptr + i)
    tl.store(out_ptr + tl.arange(0, 2 * N), tl.interleave(a, b))


@tilec.jit
def interleave_2d(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # Interleaves along rows: out is M x 2N.
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + rows * N + cols)
    b = tl.load(b_ptr + rows * N + cols)
    tl.store(out_ptr + rows * (2 * N) + tl.arange(0, 2 * N)[None, :], tl.interleave(a, b))


@tilec.jit
def interleave_scalars(out_ptr, x, y):
    # Two runtime scalars interleave into a tensor of 2.
    tl.store(out_ptr + tl.arange(0, 2), tl.interleave(x, y))


@tilec.jit
def cat_1d(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    c = tl.cat(tl.load(a_ptr + i), tl.load(b_ptr + i), can_reorder=True)
    tl.store(out_ptr + tl.arange(0, 2 * N), c)


@tilec.jit
def cat_2d(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # Along the first dimension: out is 2M x N.
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + rows * N + cols)
    b = tl.load(b_ptr + rows * N + cols)
    c = tl.cat(a, b)
    tl.store(out_ptr + tl.arange(0, 2 * M)[:, None] * N + cols, c)


@tilec.jit
def cat_sum(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    # The use Triton's can_reorder=True is for: a reduction over both.
    i = tl.arange(0, N)
    c = tl.cat(tl.load(a_ptr + i), tl.load(b_ptr + i), can_reorder=True)
    tl.store(out_ptr, tl.sum(c, axis=0))


@tilec.jit
def view_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M * N))
    v = tl.view(x, M, N) + x.view((M, N))
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], v)


@tilec.jit
def join_pointers(a_ptr, b_ptr, N: tl.constexpr):
    # Pointers join too: one store writes 1.0 through both.
    i = tl.arange(0, N)
    p = tl.join(a_ptr + i, b_ptr + i)
    tl.store(p, tl.full((N, 2), 1.0, tl.float32))


@tilec.jit
def join_mixed_dtypes(a_ptr, b_ptr):
    i = tl.arange(0, 16)
    tl.store(a_ptr + i, tl.sum(tl.join(tl.load(a_ptr + i), tl.load(b_ptr + i)), 1))


@tilec.jit
def cat_shapes(a_ptr):
    c = tl.cat(tl.load(a_ptr + tl.arange(0, 16)), tl.load(a_ptr + tl.arange(0, 32)))
    tl.store(a_ptr + tl.arange(0, 48), c)


@tilec.jit
def cat_scalar(a_ptr):
    tl.store(a_ptr + tl.arange(0, 2), tl.cat(1.0, 2.0))


@tilec.jit
def join_none(a_ptr):
    tl.store(a_ptr + tl.arange(0, 2), tl.join(None, 2.0))


@tilec.jit
def cat_runtime_reorder(a_ptr, flag):
    x = tl.load(a_ptr + tl.arange(0, 16))
    tl.store(a_ptr + tl.arange(0, 32), tl.cat(x, x, can_reorder=flag))
