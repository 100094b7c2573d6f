"""Kernels of the programmatic dependent launch tests (test_grid_dependency.py)."""
import tilec
import tilec.language as tl
from tilec.language.extra.cuda import gdc_launch_dependents, gdc_wait, prefetch_l2


@tilec.jit
def slow_fill(out_ptr, n, rounds, BLOCK: tl.constexpr):
    """out[i] = i + rounds, reached one addition at a time through memory
    (`rounds` dependent round trips), so that the kernel after it on the
    stream, launched with launch_pdl, starts well before this one ends."""
    tl.extra.cuda.gdc_launch_dependents()
    tl.extra.cuda.gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, offs, mask=mask)
    for _ in range(rounds):
        tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=mask, volatile=True) + 1,
                 mask=mask)


@tilec.jit
def add_after(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[i] = x[i] * 2 + 1, reading x only after the kernel before it
    (which writes x) has ended."""
    tl.extra.cuda.gdc_launch_dependents()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.extra.cuda.gdc_wait()
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2 + 1, mask=mask)


@tilec.jit
def copy_without_waiting(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[i] = x[i] with no gdc_wait: launched with launch_pdl behind
    slow_fill it may read x before slow_fill ends (the tests' evidence that
    the launch overlapped)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, volatile=True), mask=mask)


@tilec.jit
def imported_by_name(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """gdc_wait and gdc_launch_dependents imported by name, as Triton's
    kernels may."""
    gdc_launch_dependents()
    gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@tilec.jit
def wait_with_an_argument(x_ptr):
    tl.extra.cuda.gdc_wait(x_ptr)


@tilec.jit
def unknown_extra(x_ptr):
    tl.extra.cuda.gdc_sleep()


@tilec.jit
def scale_prefetched(x_ptr, w_ptr, out_ptr, n, AHEAD: tl.constexpr, BLOCK: tl.constexpr):
    """out[i] = x[i] * w[i], each program asking the L2 for its AHEAD
    elements of w (w is not what the kernel before writes) before it waits
    for that kernel, which may write x."""
    start = tl.program_id(0) * BLOCK
    tl.extra.cuda.prefetch_l2(w_ptr + start, tl.minimum(AHEAD, n - start))
    tl.extra.cuda.gdc_wait()
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * tl.load(w_ptr + offs, mask=mask),
             mask=mask)


@tilec.jit
def prefetch_imported_by_name(w_ptr, n):
    prefetch_l2(w_ptr, n)


@tilec.jit
def prefetch_of_a_tile(w_ptr, BLOCK: tl.constexpr):
    tl.extra.cuda.prefetch_l2(w_ptr + tl.arange(0, BLOCK), BLOCK)


@tilec.jit
def prefetch_of_a_float_count(w_ptr):
    tl.extra.cuda.prefetch_l2(w_ptr, 2.5)


@tilec.jit
def prefetch_without_a_count(w_ptr):
    tl.extra.cuda.prefetch_l2(w_ptr)


@tilec.jit
def to_float(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[i] = float(x[i]) once the kernel before has ended; then the next
    kernel may start."""
    tl.extra.cuda.gdc_wait()
    tl.extra.cuda.gdc_launch_dependents()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)
