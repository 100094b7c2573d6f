"""Kernels for test_deterministic.py: what deterministic=True accepts and
what it refuses (each refusal's line is found by its marker comment)."""
import tilec
import tilec.language as tl


@tilec.jit
def fixed_split_sum(x_ptr, out_ptr, n, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    # One partial sum per SPLIT elements: the split is a constexpr, the
    # end a runtime size. Accepted.
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    start = pid * SPLIT
    for i in range(start, tl.minimum(start + SPLIT, n), BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc))


@tilec.jit
def grid_stride_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):  # REFUSED
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc))


@tilec.jit
def atomic_float_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x))  # REFUSED


@tilec.jit
def atomic_int_count(x_ptr, count_ptr, n, BLOCK: tl.constexpr):
    # Integer atomics are exact in any order: accepted.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(count_ptr, tl.sum((x > 0).to(tl.int32)))


@tilec.jit
def _accumulate(x_ptr, start, end, step, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(start, end, step):  # REFUSED
        acc += tl.load(x_ptr + i + tl.arange(0, BLOCK))
    return acc


@tilec.jit
def helper_runtime_step(x_ptr, out_ptr, n, step, BLOCK: tl.constexpr):
    # The helper is inlined first: its loop is refused at its own line.
    acc = _accumulate(x_ptr, 0, n, step, BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


@tilec.jit
def while_grid_sum(x_ptr, out_ptr, n):
    i = tl.program_id(0)
    s = 0.0
    while i < n:  # REFUSED
        s += tl.load(x_ptr + i)
        i += tl.num_programs(0)
    tl.store(out_ptr + tl.program_id(0), s)


@tilec.jit
def row_sum(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    # One program per row, strided by a runtime size (an address, which
    # orders nothing): accepted.
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, n, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc))
