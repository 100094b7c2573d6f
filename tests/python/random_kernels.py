"""Kernels of test_random.py (the interpreter, against philox_reference.py)
and test_gpu_random.py (the GPU, against the same reference and Triton)."""
import tilec
import tilec.language as tl


@tilec.jit
def random_kernel(seed, ints_ptr, uniform_ptr, normal_ptr, fourth_ptr, n,
                  ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(ints_ptr + offs, tl.randint(seed, offs, ROUNDS), mask=mask)
    tl.store(uniform_ptr + offs, tl.rand(seed, offs, ROUNDS), mask=mask)
    tl.store(normal_ptr + offs, tl.randn(seed, offs, ROUNDS), mask=mask)
    _, _, _, last = tl.randint4x(seed, offs, ROUNDS)
    tl.store(fourth_ptr + offs, last, mask=mask)


@tilec.jit
def random_wide_kernel(seed, ints_ptr, uniform_ptr, base, n, BLOCK: tl.constexpr):
    # 64-bit offsets (base past 2**32): both words of the offset count.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    wide = base + offs.to(tl.int64)
    tl.store(ints_ptr + offs, tl.randint(seed, wide), mask=mask)
    tl.store(uniform_ptr + offs, tl.rand(seed, wide), mask=mask)


@tilec.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    # Dropout with a Philox mask, kept elements scaled by 1 / (1 - p).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@tilec.jit
def umulhi_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.umulhi(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))

