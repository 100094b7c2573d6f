"""Kernels of the tl.histogram tests (test_histogram.py and
tests/lit/ptx/histogram.test)."""
import tilec
import tilec.language as tl


@tilec.jit
def histogram(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


@tilec.jit
def histogram_unmasked(x_ptr, out_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))
