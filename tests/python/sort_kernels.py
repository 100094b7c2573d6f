"""Kernels of the tl.sort tests (test_sort.py and tests/lit/ptx/sort.test)."""
import tilec
import tilec.language as tl


@tilec.jit
def sort_rows(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
              DESCENDING: tl.constexpr):
    # x and out: M x N, each row sorted.
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@tilec.jit
def sort_columns(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    # Along dim 0: each column of an M x N tile sorted.
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=0))


@tilec.jit
def sort_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A masked tail padded with +inf sorts to the end.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=float("inf"))
    tl.store(out_ptr + offs, tl.sort(x, 0), mask=offs < n)


@tilec.jit
def sort_bools(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    b = tl.load(x_ptr + offs) != 0
    tl.store(out_ptr + offs, tl.sort(b, descending=True).to(tl.int8))


@tilec.jit
def sort_pointers(x_ptr):
    p = x_ptr + tl.arange(0, 16)
    tl.store(tl.sort(p), 1.0)


@tilec.jit
def sort_runtime_descending(x_ptr, flag):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=flag))


@tilec.jit
def sort_bad_dim(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=1))
