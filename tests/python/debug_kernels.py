"""Kernels of the debugging tests (test_debug.py on the CPU interpreter,
test_gpu_debug.py on the GPU, which also runs them in child processes: a
failed device assertion ends the process's CUDA context)."""
import tilec
import tilec.language as tl


@tilec.jit
def print_1d(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_print("x", x)


@tilec.jit
def print_mixed(x_ptr, i_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    i = tl.load(i_ptr + rows * N + cols)
    tl.device_print("x, i: ", x, i)
    tl.device_print("half", x.to(tl.float16), hex=True)
    tl.device_print("sum", tl.sum(i.to(tl.int32), axis=1))
    tl.device_print("scalar", tl.program_id(0) - 1)
    tl.device_print("no values")


@tilec.jit
def check_below(x_ptr, n, limit, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x < limit, "x must stay below the limit", mask=offs < n)
    tl.store(x_ptr + offs, x + 1.0, mask=offs < n)


@tilec.jit
def check_statement(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1)
    assert x != 0, "no zeros"
    tl.store(x_ptr + offs, 100 // x, mask=offs < n)


@tilec.jit
def copy_unmasked(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))
