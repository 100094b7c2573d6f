import tilec
import tilec.language as tl


@tilec.jit
def twice(x):
    return x * 2.0


@tilec.jit
def twice_plus(x, y):
    return twice(x) + y


@tilec.jit
def kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    tl.store(out_ptr + offsets, tl.exp(twice_plus(x, 1.0)))
