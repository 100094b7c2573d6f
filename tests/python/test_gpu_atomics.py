"""The atomics on the GPU: the kernels of atomic_kernels.py against the
references of test_atomics.py (the interpreter's tests). Integers and
anything with one contributor per address are compared bit for bit; float
adds with many contributors, whose order the hardware picks, against
float64 sums with a tolerance (or exactly, where every partial sum is
exact); old values of contended atomics as sets (per address, the values
memory went through), not in order.

Also: 1M float32 values reduced into 1 and into 64 addresses; fp16/bf16
(and fp32) vector adds on aligned pointers, result used and unused; a
small tensor (16 elements in 4 warps: threads hold copies, the old values
go through shared memory) and scalar atomics whose result every thread
uses; a compare-and-swap counter and a spin lock across hundreds of
programs."""
import numpy as np
import pytest

import tilec
import tilec.language as tl

import atomic_kernels as k
from test_atomics import (CASES, CAS_DTYPES, FLOATS, HIST_DTYPES, INTS, INT_OPS, SINT,
                          UINT, WIDTH, bins_start, bits_dtype, cas_inputs, check_old_counts,
                          combine, combine_all, counts_as_numbers, expected_old,
                          from_float, histogram_inputs, random_bits, rmw_inputs,
                          specials, to_float, unsigned_max_min_case)

pytestmark = pytest.mark.gpu

# tl dtypes by the names test_atomics.py uses
TL = {"int16": tl.int16, "uint16": tl.uint16, "int32": tl.int32, "uint32": tl.uint32,
      "int64": tl.int64, "uint64": tl.uint64, "float16": tl.float16,
      "bfloat16": tl.bfloat16, "float32": tl.float32, "float64": tl.float64}


def on_gpu(torch, bits, dtype):
    """(kernel argument, tensor) holding the bit array `bits` as `dtype`
    (stored as signed integers of its width, reinterpreted)."""
    t = torch.from_numpy(np.ascontiguousarray(bits).view(SINT[WIDTH[dtype]])).cuda()
    return tilec.reinterpret(t, TL[dtype]), t


def bits_of(t, dtype):
    return t.cpu().numpy().view(UINT[WIDTH[dtype]])


def int_tensor(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


# -- element-wise ------------------------------------------------------------------------------

N = 300
# (BLOCK, num_warps): one element per thread; 8 per thread (vectors on
# sm_90 for float adds); 16 elements in 4 warps (threads hold copies: a
# used result goes through shared memory)
SHAPES = [(128, 4), (1024, 4), (16, 4)]


@pytest.mark.parametrize("block,warps", SHAPES, ids=[f"{b}x{w}w" for b, w in SHAPES])
@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("op,dtype", CASES)
def test_gpu_elementwise(torch_cuda, op, dtype, return_old, block, warps):
    torch = torch_cuda
    mem, val = rmw_inputs(op, dtype, N)
    want = combine_all(op, dtype, mem, val)
    grid = tilec.cdiv(N, block)
    mem_arg, mem_t = on_gpu(torch, mem, dtype)
    val_arg, _ = on_gpu(torch, val, dtype)
    old_arg, old_t = on_gpu(torch, np.full(grid * block, 0x5A, bits_dtype(dtype)), dtype)
    k.rmw[(grid,)](mem_arg, val_arg, old_arg, N, OP=op, SEM="acq_rel" if return_old else "relaxed",
                   SCOPE="gpu", RETURN_OLD=return_old, BLOCK=block, num_warps=warps)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, dtype), want)
    old = bits_of(old_t, dtype)
    if return_old:
        np.testing.assert_array_equal(old, expected_old(mem, grid * block))
    else:
        assert np.all(old == 0x5A)


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("scope", ["cta", "gpu", "sys"])
@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
def test_gpu_sem_and_scope(torch_cuda, sem, scope, return_old):
    torch = torch_cuda
    mem, val = rmw_inputs("add", "float32", N)
    want = combine_all("add", "float32", mem, val)
    mem_arg, mem_t = on_gpu(torch, mem, "float32")
    val_arg, _ = on_gpu(torch, val, "float32")
    old_arg, old_t = on_gpu(torch, np.zeros(1024, np.uint32), "float32")
    k.rmw[(1,)](mem_arg, val_arg, old_arg, N, OP="add", SEM=sem, SCOPE=scope,
                RETURN_OLD=return_old, BLOCK=1024)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, "float32"), want)
    if return_old:
        np.testing.assert_array_equal(bits_of(old_t, "float32"), expected_old(mem, 1024))


@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_gpu_float_max_min_order(torch_cuda, op, dtype, return_old):
    torch = torch_cuda
    s = specials(dtype)
    n = len(s) * len(s)
    mem, val = np.repeat(s, len(s)), np.tile(s, len(s))
    want = np.array([combine(op, dtype, o, v) for o, v in zip(mem, val)], bits_dtype(dtype))
    mem_arg, mem_t = on_gpu(torch, mem, dtype)
    val_arg, _ = on_gpu(torch, val, dtype)
    old_arg, old_t = on_gpu(torch, np.zeros(256, bits_dtype(dtype)), dtype)
    k.rmw[(1,)](mem_arg, val_arg, old_arg, n, OP=op, SEM="acq_rel" if return_old else "relaxed",
                SCOPE="gpu", RETURN_OLD=return_old, BLOCK=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, dtype), want)
    if return_old:
        np.testing.assert_array_equal(bits_of(old_t, dtype)[:n], mem)


@pytest.mark.parametrize("width", [32, 64])
def test_gpu_unsigned_max_min(torch_cuda, width):
    torch = torch_cuda
    mem0, val0, want = unsigned_max_min_case(width)
    for kind in ("uint", "int"):
        dtype = f"{kind}{width}"
        for op in ("max", "min"):
            mem_arg, mem_t = on_gpu(torch, mem0, dtype)
            val_arg, _ = on_gpu(torch, val0, dtype)
            old_arg, old_t = on_gpu(torch, np.zeros(128, UINT[width]), dtype)
            k.rmw[(1,)](mem_arg, val_arg, old_arg, 4, OP=op, SEM="relaxed", SCOPE="gpu",
                        RETURN_OLD=True, BLOCK=128)
            torch.cuda.synchronize()
            np.testing.assert_array_equal(bits_of(mem_t, dtype),
                                          np.array(want[kind, op], UINT[width]),
                                          err_msg=f"{dtype} {op}")
            np.testing.assert_array_equal(bits_of(old_t, dtype)[:4], mem0)


@pytest.mark.parametrize("rows,cols", [(4, 8), (32, 64)])
def test_gpu_2d_tile(torch_cuda, rows, cols):
    torch = torch_cuda
    mem = torch.arange(rows * cols, device="cuda", dtype=torch.int32).reshape(rows, cols)
    val = torch.full((rows, cols), 100, device="cuda", dtype=torch.int32)
    old = torch.zeros((rows, cols), device="cuda", dtype=torch.int32)
    k.rmw_2d[(1,)](mem, val, old, ROWS=rows, COLS=cols)
    torch.cuda.synchronize()
    want = np.arange(rows * cols).reshape(rows, cols)
    np.testing.assert_array_equal(mem.cpu().numpy(), want + 100)
    np.testing.assert_array_equal(old.cpu().numpy(), want)


# -- vector adds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_gpu_vector_adds(torch_cuda, dtype, return_old):
    """BLOCK 2048 over 128 threads, n a multiple of 16, torch's aligned
    pointers: .v8.f16 / .v8.bf16 / .v4.f32 on sm_90. One contributor per
    address: bit for bit."""
    torch = torch_cuda
    n, block = 8192, 2048
    mem, val = rmw_inputs("add", dtype, n, seed=12)
    want = combine_all("add", dtype, mem, val)
    mem_arg, mem_t = on_gpu(torch, mem, dtype)
    val_arg, _ = on_gpu(torch, val, dtype)
    old_arg, old_t = on_gpu(torch, np.zeros(n, bits_dtype(dtype)), dtype)
    k.rmw[(n // block,)](mem_arg, val_arg, old_arg, n, OP="add", SEM="relaxed", SCOPE="gpu",
                         RETURN_OLD=return_old, BLOCK=block)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, dtype), want)
    if return_old:
        np.testing.assert_array_equal(bits_of(old_t, dtype), mem)


@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_gpu_contended_vector_adds(torch_cuda, dtype, return_old):
    """Many programs adding vectors into one 2048-element window: small
    integers, exact in any order. Each old value is the window's value
    before one program's add: per element, the old values and the final
    value are the partial sums of the contributions in some order."""
    torch = torch_cuda
    grid, block = 64, 2048
    rng = np.random.default_rng(13)
    # 1..3 (no 0: the old values of one element are distinct); the sums
    # stay below 256, exact in bf16
    vals = rng.integers(1, 4, (grid, block)).astype(np.float64)
    start = np.arange(block) % 7
    window_arg, window_t = on_gpu(torch, from_float(start, dtype), dtype)
    val_arg, _ = on_gpu(torch, from_float(vals.ravel(), dtype), dtype)
    old_arg, old_t = on_gpu(torch, np.zeros(grid * block, bits_dtype(dtype)), dtype)
    k.window_add[(grid,)](window_arg, val_arg, old_arg, RETURN_OLD=return_old, BLOCK=block)
    torch.cuda.synchronize()
    final = start + vals.sum(0)
    np.testing.assert_array_equal(to_float(bits_of(window_t, dtype), dtype), final)
    if return_old:
        old = to_float(bits_of(old_t, dtype), dtype).reshape(grid, block)
        # old + own contribution, over all programs, sorted, is the chain of
        # partial sums: sorted olds follow each other by the contributions
        for j in range(0, block, 97):
            order = np.argsort(old[:, j], kind="stable")
            chain = old[order, j]
            assert chain[0] == start[j], j
            np.testing.assert_array_equal(chain[1:], chain[:-1] + vals[order[:-1], j],
                                          err_msg=f"element {j}")
            assert chain[-1] + vals[order[-1], j] == final[j]


# -- contended -------------------------------------------------------------------------------------

HIST_SHAPES = [(128, 4), (16, 4), (1024, 8)]


@pytest.mark.parametrize("block,warps", HIST_SHAPES, ids=[f"{b}x{w}w" for b, w in HIST_SHAPES])
@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("dtype", HIST_DTYPES)
def test_gpu_histogram(torch_cuda, dtype, return_old, block, warps):
    torch = torch_cuda
    idx, bins = histogram_inputs()
    n = idx.size
    hist_arg, hist_t = on_gpu(torch, bins_start(dtype, bins), dtype)
    old_arg, old_t = on_gpu(torch, np.zeros(n, bits_dtype(dtype)), dtype)
    k.histogram[(tilec.cdiv(n, block),)](hist_arg, int_tensor(torch, idx), old_arg, n,
                                         RETURN_OLD=return_old, BLOCK=block, num_warps=warps)
    torch.cuda.synchronize()
    counts = np.bincount(idx, minlength=bins)
    start = 10 + np.arange(bins)
    np.testing.assert_array_equal(counts_as_numbers(bits_of(hist_t, dtype), dtype),
                                  start + counts)
    old = counts_as_numbers(bits_of(old_t, dtype), dtype)
    if return_old:
        check_old_counts(old, idx, start)
    else:
        assert np.all(old == 0)


def test_gpu_histogram_large(torch_cuda):
    """4M lanes into 256 int32 bins from 4096 programs."""
    torch = torch_cuda
    n, bins = 1 << 22, 256
    idx = int_tensor(torch, np.random.default_rng(24).integers(0, bins, n).astype(np.int32))
    hist = torch.zeros(bins, device="cuda", dtype=torch.int32)
    old = torch.zeros(n, device="cuda", dtype=torch.int32)
    k.histogram[(n // 1024,)](hist, idx, old, n, RETURN_OLD=True, BLOCK=1024)
    torch.cuda.synchronize()
    want = torch.bincount(idx.long(), minlength=bins).cpu().numpy()
    np.testing.assert_array_equal(hist.cpu().numpy(), want)
    # per bin, the old values are 0..count-1
    key = idx.long() * n + old.long()
    srt = torch.sort(key).values.cpu().numpy()
    b, o = srt // n, srt % n
    starts = np.concatenate([[0], np.cumsum(want)[:-1]])
    np.testing.assert_array_equal(o, np.arange(n) - starts[b])


def float_tolerance(x_abs_sum):
    # order-dependent float32 rounding, far above what 1M adds give in
    # practice and far below a lost or doubled contribution of the data
    return 1e-5 * x_abs_sum


def add_into_bins(torch, out, xs, bins, rng):
    """Atomically add xs into `bins` addresses of out (all into one through
    a scalar pointer, else scattered at random); the bin of each value."""
    n = xs.numel()
    if bins == 1:
        k.reduce_into[(n // 1024,)](out, xs, n, OP="add", BLOCK=1024)
        idx = np.zeros(n, np.int64)
    else:
        idx = rng.integers(0, bins, n).astype(np.int32)
        k.scatter[(n // 1024,)](out, int_tensor(torch, idx), xs, n, OP="add", BLOCK=1024)
    torch.cuda.synchronize()
    return idx


@pytest.mark.parametrize("bins", [1, 64])
def test_gpu_contended_float32_add(torch_cuda, bins):
    """1M random float32 values into `bins` addresses (a scalar pointer for
    one bin, a scatter for 64), against float64 sums."""
    torch = torch_cuda
    n = 1 << 20
    rng = np.random.default_rng(21)
    x = rng.standard_normal(n).astype(np.float32)
    xs = torch.from_numpy(x).cuda()
    out = torch.zeros(bins, device="cuda", dtype=torch.float32)
    idx = add_into_bins(torch, out, xs, bins, rng)
    got = out.cpu().numpy().astype(np.float64)
    want = np.bincount(idx, weights=x.astype(np.float64), minlength=bins)
    abs_sum = np.bincount(idx, weights=np.abs(x.astype(np.float64)), minlength=bins)
    assert np.all(np.abs(got - want) <= float_tolerance(abs_sum)), (got, want)
    assert not np.array_equal(got, np.zeros(bins))


@pytest.mark.parametrize("bins", [1, 64])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpu_contended_float_add_exact(torch_cuda, dtype, bins):
    """Integers 0..15 as floats: every partial sum is exact, so 1M
    contributions must add up exactly whatever the order (a lost or
    repeated update shows)."""
    torch = torch_cuda
    n = 1 << 20
    rng = np.random.default_rng(22)
    x = rng.integers(0, 16, n).astype(np.float32 if dtype == "float32" else np.float64)
    xs = torch.from_numpy(x).cuda()
    out = torch.zeros(bins, device="cuda", dtype=xs.dtype)
    idx = add_into_bins(torch, out, xs, bins, rng)
    want = np.bincount(idx, weights=x.astype(np.float64), minlength=bins)
    np.testing.assert_array_equal(out.cpu().numpy().astype(np.float64), want)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float16", "bfloat16"])
def test_gpu_scatter_max_min(torch_cuda, op, dtype):
    """Contended max/min are exact in any order."""
    torch = torch_cuda
    rng = np.random.default_rng(6)
    n, bins = 100000, 16
    idx = rng.integers(0, bins, n).astype(np.int32)
    val = random_bits(rng, dtype, n)
    hist = random_bits(rng, dtype, bins)
    want = hist.copy()
    for b in range(bins):
        for v in val[idx == b]:
            want[b] = combine(op, dtype, want[b], v)
    hist_arg, hist_t = on_gpu(torch, hist, dtype)
    val_arg, _ = on_gpu(torch, val, dtype)
    k.scatter[(tilec.cdiv(n, 256),)](hist_arg, int_tensor(torch, idx), val_arg, n, OP=op,
                                     BLOCK=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(hist_t, dtype), want)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_gpu_reduce_max_min_into_one_address(torch_cuda, op, dtype):
    torch = torch_cuda
    n = 1 << 20
    rng = np.random.default_rng(23)
    x = (rng.standard_normal(n) * 1000).astype(np.int32 if dtype == "int32" else np.float32)
    out = torch.tensor([3], device="cuda", dtype=torch.int32 if dtype == "int32" else torch.float32)
    k.reduce_into[(n // 1024,)](out, torch.from_numpy(x).cuda(), n, OP=op, BLOCK=1024)
    torch.cuda.synchronize()
    want = (np.max if op == "max" else np.min)(np.append(x, x.dtype.type(3)))
    assert out.cpu().numpy()[0] == want


# -- scalar atomics ----------------------------------------------------------------------------------

@pytest.mark.parametrize("warps", [1, 4, 8])
def test_gpu_ticket(torch_cuda, warps):
    """One scalar atomic per program, performed once (the counter moves by
    the number of programs), its result used by every thread."""
    torch = torch_cuda
    grid, block = 2000, 256
    counter = torch.tensor([100], device="cuda", dtype=torch.int32)
    out = torch.full((grid * block,), -1, device="cuda", dtype=torch.int32)
    k.ticket[(grid,)](counter, out, BLOCK=block, num_warps=warps)
    torch.cuda.synchronize()
    assert counter.item() == 100 + grid
    rows = out.cpu().numpy().reshape(grid, block)
    assert np.all(rows == rows[:, :1])
    np.testing.assert_array_equal(np.sort(rows[:, 0]), 100 + np.arange(grid))


@pytest.mark.parametrize("op", INT_OPS)
@pytest.mark.parametrize("dtype", INTS)
def test_gpu_scalar_rmw(torch_cuda, op, dtype):
    torch = torch_cuda
    grid = 1000
    w = WIDTH[dtype]
    start = 0x0F0F if op != "min" else (1 << (w - 1)) - 1
    mem_arg, mem_t = on_gpu(torch, np.array([start], bits_dtype(dtype)), dtype)
    old_arg, old_t = on_gpu(torch, np.zeros(grid, bits_dtype(dtype)), dtype)
    k.scalar_rmw[(grid,)](mem_arg, old_arg, OP=op)
    torch.cuda.synchronize()
    final = int(bits_of(mem_t, dtype)[0])
    old = [int(v) for v in bits_of(old_t, dtype)]
    if op == "xchg":
        # memory went through start and every value once
        assert sorted(old + [final]) == sorted([start] + list(range(1, grid + 1)))
        return
    acc = start
    for pid in range(grid):  # commutative: any order ends here
        acc = combine(op, dtype, acc, pid + 1)
    assert final == acc
    # the first atomic to run saw the start
    assert start in old
    if op == "add":
        # increasing partial sums: distinct, the start the smallest
        assert len(set(old)) == grid and min(old) == start
    elif op in ("max", "min", "and", "or"):
        # memory only moved towards the final value
        assert all(combine(op, dtype, o, final) == final for o in old)


# -- compare-and-swap --------------------------------------------------------------------------------

@pytest.mark.parametrize("block,warps", [(128, 4), (16, 4)], ids=["128x4w", "16x4w"])
@pytest.mark.parametrize("dtype", CAS_DTYPES)
def test_gpu_cas(torch_cuda, dtype, block, warps):
    torch = torch_cuda
    mem, cmp, val = cas_inputs(dtype)
    want = np.where(mem == cmp, val, mem)
    mem_arg, mem_t = on_gpu(torch, mem, dtype)
    cmp_arg, _ = on_gpu(torch, cmp, dtype)
    val_arg, _ = on_gpu(torch, val, dtype)
    old_arg, old_t = on_gpu(torch, np.zeros_like(mem), dtype)
    k.cas[(mem.size // block,)](mem_arg, cmp_arg, val_arg, old_arg, BLOCK=block,
                                num_warps=warps)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, dtype), want)
    np.testing.assert_array_equal(bits_of(old_t, dtype), mem)


def test_gpu_signaling_nan_bits(torch_cuda):
    """On the GPU a signaling NaN's bits compare and move as they are
    (the interpreter, holding floats as doubles, quiets them)."""
    torch = torch_cuda
    snan, other = 0x7F800001, 0xFF800123
    mem = np.array([snan, snan, 0], np.uint32)
    cmp = np.array([snan, 0x7FC00001, 0], np.uint32)
    val = np.array([other, other, snan], np.uint32)
    mem_arg, mem_t = on_gpu(torch, np.resize(mem, 128), "float32")
    cmp_arg, _ = on_gpu(torch, np.resize(cmp, 128), "float32")
    val_arg, _ = on_gpu(torch, np.resize(val, 128), "float32")
    old_arg, old_t = on_gpu(torch, np.zeros(128, np.uint32), "float32")
    k.cas[(1,)](mem_arg, cmp_arg, val_arg, old_arg, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, "float32")[:3], [other, snan, snan])
    np.testing.assert_array_equal(bits_of(old_t, "float32")[:3], mem)
    # xchg
    mem_arg, mem_t = on_gpu(torch, np.zeros(128, np.uint32), "float32")
    k.rmw[(1,)](mem_arg, val_arg, old_arg, 128, OP="xchg", SEM="relaxed", SCOPE="gpu",
                RETURN_OLD=True, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(bits_of(mem_t, "float32"), np.resize(val, 128))


TRIES = 1 << 22


@pytest.mark.parametrize("warps", [1, 4])
def test_gpu_cas_ticket(torch_cuda, warps):
    torch = torch_cuda
    grid = 512
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    tickets = torch.full((grid,), -2, device="cuda", dtype=torch.int32)
    k.cas_ticket[(grid,)](counter, tickets, TRIES, num_warps=warps)
    torch.cuda.synchronize()
    assert counter.item() == grid
    np.testing.assert_array_equal(np.sort(tickets.cpu().numpy()), np.arange(grid))


@pytest.mark.parametrize("warps", [1, 4])
def test_gpu_lock_counter(torch_cuda, warps):
    """Plain loads and stores under a lock made of atomic_cas (acquire) and
    atomic_xchg (release): no update is lost, every program got in once."""
    torch = torch_cuda
    grid = 512
    lock = torch.zeros(1, device="cuda", dtype=torch.int32)
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    order = torch.full((grid,), -1, device="cuda", dtype=torch.int32)
    done = torch.zeros(grid, device="cuda", dtype=torch.int32)
    k.lock_counter[(grid,)](lock, counter, order, done, TRIES, num_warps=warps)
    torch.cuda.synchronize()
    assert lock.item() == 0
    assert np.all(done.cpu().numpy() == 1)
    assert counter.item() == grid
    np.testing.assert_array_equal(np.sort(order.cpu().numpy()), np.arange(grid))
