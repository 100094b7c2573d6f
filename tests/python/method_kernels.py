"""Kernels of test_methods.py: Triton's tensor methods (x.sum(1),
ptr.store(v), block.advance(...))."""
import tilec
import tilec.language as tl


@tilec.jit
def row_stats(x_ptr, sum_ptr, max_ptr, arg_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    (sum_ptr + rows).store(x.exp().sum(1))
    tl.store(max_ptr + rows, tl.max(x.sigmoid(), axis=1))
    (arg_ptr + rows).store(x.argmax(axis=1))


@tilec.jit
def pointer_methods(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = x.cast(tl.float16).to(tl.float32).flip(0)
    (out_ptr + offs).atomic_add(y)


@tilec.jit
def block_advance(x_ptr, out_ptr, N: tl.constexpr):
    block = tl.make_block_ptr(x_ptr, (2 * N,), (1,), (0,), (N,), (0,))
    block = block.advance((N,))
    tl.store(out_ptr + tl.arange(0, N), tl.load(block))


@tilec.jit
def unknown_method(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), x.frobnicate())


@tilec.jit
def too_many(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr, x.sum(0, False, None, 4))
