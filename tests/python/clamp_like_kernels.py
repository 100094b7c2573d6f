"""Kernels of test_clamp_like.py (the interpreter) and test_gpu_clamp_like.py."""
import tilec
import tilec.language as tl


@tilec.jit
def clamp_kernel(x_ptr, out_ptr, nan_out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.clamp(x, lo, hi), mask=mask)
    tl.store(nan_out_ptr + offs, tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL),
             mask=mask)


@tilec.jit
def like_kernel(x_ptr, zeros_ptr, full_ptr, ints_ptr, v, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(zeros_ptr + offs, tl.zeros_like(x) + x, mask=mask)
    tl.store(full_ptr + offs, tl.full_like(x, v), mask=mask)
    tl.store(ints_ptr + offs, tl.full_like(offs, 5, dtype=tl.int64) * offs, mask=mask)
