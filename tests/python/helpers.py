"""Kernels for the tests: a helper @jit function, a module-level constant,
and a kernel that calls the helper and uses the constant."""
import tilec
import tilec.language as tl

SCALE = 3          # a module-level int the kernel reads
OFFSET = 0.5       # a module-level float
OUT_TYPE = tl.float32


@tilec.jit
def scaled(x):
    return x * SCALE + OFFSET


@tilec.jit
def scale_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, scaled(x).to(OUT_TYPE), mask=mask)
