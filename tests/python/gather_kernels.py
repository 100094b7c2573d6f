"""Kernels of the tl.gather tests (test_gather.py and
tests/lit/ptx/gather.test)."""
import tilec
import tilec.language as tl


@tilec.jit
def gather_1d(src_ptr, idx_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, N))
    idx = tl.load(idx_ptr + tl.arange(0, K))
    tl.store(out_ptr + tl.arange(0, K), tl.gather(src, idx, 0))


@tilec.jit
def gather_2d(src_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
              K: tl.constexpr, AXIS: tl.constexpr):
    # AXIS = 1: src [M, N], idx and out [M, K]; AXIS = 0: src [N, M],
    # idx and out [K, M].
    if AXIS == 1:
        rows = tl.arange(0, M)[:, None]
        src = tl.load(src_ptr + rows * N + tl.arange(0, N)[None, :])
        offs = rows * K + tl.arange(0, K)[None, :]
    else:
        cols = tl.arange(0, M)[None, :]
        src = tl.load(src_ptr + tl.arange(0, N)[:, None] * M + cols)
        offs = tl.arange(0, K)[:, None] * M + cols
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(src, idx, axis=AXIS))


@tilec.jit
def permute_rows(x_ptr, perm_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A permutation inside one tile: out[i] = x[perm[i]] (masked tail).
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    p = tl.load(perm_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.gather(x, p, 0), mask=offs < n)
