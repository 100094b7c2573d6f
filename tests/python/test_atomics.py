"""tl.atomic_add, atomic_max, atomic_min, atomic_and, atomic_or,
atomic_xor, atomic_xchg and atomic_cas on the interpreter, against numpy
and Python references computed on the bits; the PTX of every kernel in
atomic_kernels.py (ptxas for sm_90a and sm_80, and the instructions the
lowering promises); the located compile errors. The GPU runs the same
kernels: test_gpu_atomics.py.

The interpreter applies the lanes of one atomic in element order (each
sees the writes of the ones before it) and programs one after another,
so its old values are exact; masked-off lanes return 0 and touch nothing.
Float max and min order memory as -NaN < -inf < ... < -0.0 < +0.0 < ...
< +inf < +NaN (the GPU's integer order on the bits, split on the sign),
and a NaN value changes nothing.
"""
import math
import os
import re

import numpy as np
import pytest

import tilec
import tilec.language as tl

import atomic_kernels as k
import matmul_reference as ref

HERE = os.path.abspath(__file__)

INTS = ["int32", "uint32", "int64", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INT_OPS = ["add", "max", "min", "and", "or", "xor", "xchg"]
FLOAT_OPS = ["add", "max", "min", "xchg"]
# Every (op, dtype) tl.atomic_<op> supports.
CASES = [(op, d) for op in INT_OPS for d in INTS] + [(op, d) for op in FLOAT_OPS for d in FLOATS]
WIDTH = {"int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "int64": 64, "uint64": 64,
         "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {16: np.int16, 32: np.int32, 64: np.int64}
FLOAT_OF_WIDTH = {16: np.float16, 32: np.float32, 64: np.float64}
# The numpy type an interpreted kernel is given (bf16: its bits, reinterpreted).
NUMPY = {"int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
         "float16": np.float16, "bfloat16": np.uint16, "float32": np.float32,
         "float64": np.float64}
SIG = {"int32": "i32", "uint32": "u32", "int64": "i64", "uint64": "u64", "int16": "i16",
       "uint16": "u16", "float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
       "float64": "fp64"}


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


def interpreted(jit_fn):
    return tilec.JITFunction(jit_fn.fn, interpret=True)


# -- values as bits ---------------------------------------------------------------------------

def is_float(dtype):
    return dtype in FLOATS


def bits_dtype(dtype):
    return UINT[WIDTH[dtype]]


def numpy_arg(bits, dtype):
    """A kernel argument for the interpreter viewing the bit array `bits`
    (shared memory: the kernel's writes show in `bits`)."""
    if dtype == "bfloat16":
        return tilec.reinterpret(bits, tl.bfloat16)
    return bits.view(NUMPY[dtype])


def to_float(bits, dtype):
    """Float values (float64) of the bit array `bits` of float `dtype`."""
    bits = np.asarray(bits, bits_dtype(dtype))
    with np.errstate(invalid="ignore"):  # signaling NaNs
        if dtype == "bfloat16":
            return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return bits.view(FLOAT_OF_WIDTH[WIDTH[dtype]]).astype(np.float64)


def from_float(values, dtype):
    """float64 `values` rounded to float `dtype` (nearest even), as bits."""
    values = np.asarray(values, np.float64)
    if dtype == "bfloat16":
        f = values.astype(np.float32)
        u = f.view(np.uint32).astype(np.uint64)
        rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        # NaNs keep their sign and stay NaN (quiet)
        nan = np.isnan(f)
        rounded[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
        return rounded
    return values.astype(FLOAT_OF_WIDTH[WIDTH[dtype]]).view(bits_dtype(dtype))


def signed(bits, width):
    bits = int(bits)
    return bits - (1 << width) if bits >> (width - 1) else bits


def float_is_nan(bits, dtype):
    return math.isnan(float(to_float(np.array([bits]), dtype)[0]))


def order_key(bits, width):
    """Float max/min's order on bits: -NaN < -inf < ... < -0.0 < +0.0 <
    ... < +inf < +NaN."""
    s = signed(bits, width)
    return s if s >= 0 else s ^ ((1 << (width - 1)) - 1)


def combine(op, dtype, old, value):
    """What tl.atomic_<op> leaves in memory, on Python ints holding bits."""
    w = WIDTH[dtype]
    m = (1 << w) - 1
    old, value = int(old), int(value)
    if op == "xchg":
        return value
    if is_float(dtype):
        if op == "add":
            a = to_float(np.array([old]), dtype)[0] + to_float(np.array([value]), dtype)[0]
            return int(from_float(np.array([a]), dtype)[0])
        if float_is_nan(value, dtype):
            return old
        greater = order_key(value, w) > order_key(old, w)
        return value if (op == "max") == greater else old
    unsigned = dtype.startswith("u")
    num = (lambda b: b) if unsigned else (lambda b: signed(b, w))
    if op == "add":
        return (old + value) & m
    if op == "max":
        return value if num(value) > num(old) else old
    if op == "min":
        return value if num(value) < num(old) else old
    if op == "and":
        return old & value
    if op == "or":
        return old | value
    if op == "xor":
        return old ^ value
    raise ValueError(op)


def combine_all(op, dtype, old, values):
    return np.array([combine(op, dtype, o, v) for o, v in zip(old, values)],
                    dtype=bits_dtype(dtype))


SPECIALS_F32 = [0xFFC00000, 0xFF800000, 0xC0000000, 0xBF800000, 0x80000001, 0x80000000,
                0x00000000, 0x00000001, 0x3F800000, 0x40000000, 0x7F800000, 0x7FC00000]


def specials(dtype):
    """Bits of -NaN, -inf, -2, -1, the smallest negative subnormal, -0.0,
    +0.0, the smallest subnormal, 1, 2, +inf, +NaN (NaNs quiet)."""
    if dtype == "float16":
        return np.array([0xFE00, 0xFC00, 0xC000, 0xBC00, 0x8001, 0x8000,
                         0x0000, 0x0001, 0x3C00, 0x4000, 0x7C00, 0x7E00], np.uint16)
    if dtype == "bfloat16":
        return np.array([b >> 16 for b in SPECIALS_F32[:4]] + [0x8001, 0x8000, 0x0000, 0x0001]
                        + [b >> 16 for b in SPECIALS_F32[8:]], np.uint16)
    if dtype == "float32":
        return np.array(SPECIALS_F32, np.uint32)
    return np.array([0xFFF8000000000000, 0xFFF0000000000000, 0xC000000000000000,
                     0xBFF0000000000000, 0x8000000000000001, 0x8000000000000000, 0, 1,
                     0x3FF0000000000000, 0x4000000000000000, 0x7FF0000000000000,
                     0x7FF8000000000000], np.uint64)


def random_bits(rng, dtype, n):
    """n values of `dtype` as bits: for integers any bits (both halves of
    the unsigned range, negative signed values); for floats normal values
    of moderate size rounded to `dtype` (sums of two are exact in float64)."""
    w = WIDTH[dtype]
    if is_float(dtype):
        return from_float(rng.standard_normal(n) * 8, dtype)
    return rng.integers(0, 1 << w, n, dtype=np.uint64, endpoint=False).astype(UINT[w]) \
        if w < 64 else rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)


def rmw_inputs(op, dtype, n, seed=1):
    """(memory, values) as bits for the element-wise test: random, and for
    float max/min every pair of special values first; for and/or/xor/add
    on integers also a few values close to the wrap-around."""
    rng = np.random.default_rng(seed)
    mem = random_bits(rng, dtype, n)
    val = random_bits(rng, dtype, n)
    if is_float(dtype) and op in ("max", "min"):
        s = specials(dtype)
        pairs = len(s) * len(s)
        mem[:pairs] = np.repeat(s, len(s))
        val[:pairs] = np.tile(s, len(s))
    if is_float(dtype) and op == "xchg":
        # NaN payloads and signs move as bits
        nan = {16: 0x7E01, 32: 0x7FC00123, 64: 0x7FF8000000000123}[WIDTH[dtype]]
        val[:3] = [nan, nan | (1 << (WIDTH[dtype] - 1)), 1 << (WIDTH[dtype] - 1)]
    if not is_float(dtype):
        w = WIDTH[dtype]
        top = (1 << w) - 1
        mem[:4] = [top, 1 << (w - 1), (1 << (w - 1)) - 1, 0]
        val[:4] = [1, 1, 1, top]
    return mem, val


def expected_old(mem, n_lanes):
    """Old values of a masked element-wise atomic: mem, then 0."""
    old = np.zeros(n_lanes, mem.dtype)
    old[:mem.size] = mem
    return old


# -- element-wise atomics -----------------------------------------------------------------------

N, BLOCK = 300, 128
GRID = math.ceil(N / BLOCK)


@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("op,dtype", CASES)
def test_elementwise(op, dtype, return_old):
    mem, val = rmw_inputs(op, dtype, N)
    want = combine_all(op, dtype, mem, val)
    old0 = mem.copy()
    # 300 elements; lanes 300..383 are masked off: they touch nothing (an
    # access past the array would be an error) and return 0.
    old = np.full(GRID * BLOCK, 0x5A, bits_dtype(dtype))
    interpreted(k.rmw)[(GRID,)](numpy_arg(mem, dtype), numpy_arg(val, dtype),
                                numpy_arg(old, dtype), N, OP=op, SEM="acq_rel",
                                SCOPE="gpu", RETURN_OLD=return_old, BLOCK=BLOCK)
    np.testing.assert_array_equal(mem, want)
    if return_old:
        np.testing.assert_array_equal(old, expected_old(old0, GRID * BLOCK))
    else:
        assert np.all(old == 0x5A)
    assert not np.array_equal(want, old0) or op in ("and", "or")


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
@pytest.mark.parametrize("scope", ["cta", "gpu", "sys"])
def test_sem_and_scope_are_accepted(sem, scope):
    """Every memory semantic and scope compiles and computes the same."""
    mem, val = rmw_inputs("add", "int32", N)
    want = combine_all("add", "int32", mem, val)
    old0 = mem.copy()
    old = np.zeros(GRID * BLOCK, np.uint32)
    interpreted(k.rmw)[(GRID,)](mem.view(np.int32), val.view(np.int32), old.view(np.int32),
                                N, OP="add", SEM=sem, SCOPE=scope, RETURN_OLD=True,
                                BLOCK=BLOCK)
    np.testing.assert_array_equal(mem, want)
    np.testing.assert_array_equal(old, expected_old(old0, GRID * BLOCK))


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_float_max_min_order(op, dtype):
    """Every pair of special values: memory orders -NaN < -inf < -2 < -1 <
    -subnormal < -0.0 < +0.0 < subnormal < 1 < 2 < +inf < +NaN, and a NaN
    value leaves memory as it is."""
    s = specials(dtype)
    n = len(s) * len(s)
    # one program of 256 lanes, 144 of them live
    mem, val = np.repeat(s, len(s)), np.tile(s, len(s))
    old = np.zeros(256, bits_dtype(dtype))
    interpreted(k.rmw)[(1,)](numpy_arg(mem, dtype), numpy_arg(val, dtype),
                             numpy_arg(old, dtype), n, OP=op, SEM="acq_rel", SCOPE="gpu",
                             RETURN_OLD=True, BLOCK=256)
    want = [combine(op, dtype, o, v) for o, v in zip(np.repeat(s, len(s)), np.tile(s, len(s)))]
    np.testing.assert_array_equal(mem, np.array(want, bits_dtype(dtype)))
    np.testing.assert_array_equal(old[:n], np.repeat(s, len(s)))
    # spot checks of the order, independent of order_key
    grid = mem.reshape(len(s), len(s))  # [memory index, value index]
    neg_nan, neg_zero, pos_zero, pos_nan = 0, 5, 6, 11
    if op == "max":
        assert grid[neg_zero, pos_zero] == s[pos_zero]   # max(-0.0, +0.0) = +0.0
        assert grid[pos_zero, neg_zero] == s[pos_zero]
        assert grid[pos_nan, 10] == s[pos_nan]           # +NaN in memory stays
        assert grid[neg_nan, 1] == s[1]                   # -NaN < -inf
    else:
        assert grid[pos_zero, neg_zero] == s[neg_zero]   # min(+0.0, -0.0) = -0.0
        assert grid[neg_zero, pos_zero] == s[neg_zero]
        assert grid[neg_nan, 1] == s[neg_nan]            # -NaN in memory stays
        assert grid[pos_nan, 10] == s[10]                 # +inf < +NaN
    assert np.all(grid[:, pos_nan] == s) and np.all(grid[:, neg_nan] == s)  # NaN values


def unsigned_max_min_case(width):
    """Memory and values (as unsigned bits) whose signed and unsigned
    max/min differ, and the memory each (kind, op) leaves."""
    top = (1 << width) - 1
    high = 1 << (width - 1)
    mem0 = np.array([high, 1, top, 5], UINT[width])
    val0 = np.array([1, high, 0, 5], UINT[width])
    want = {("uint", "max"): [high, high, top, 5], ("uint", "min"): [1, 1, 0, 5],
            ("int", "max"): [1, 1, 0, 5], ("int", "min"): [high, high, top, 5]}
    return mem0, val0, want


@pytest.mark.parametrize("width", [32, 64])
def test_unsigned_max_min(width):
    """Unsigned pointers compare unsigned (umax/umin), signed ones signed."""
    mem0, val0, want = unsigned_max_min_case(width)
    for kind in ("uint", "int"):
        dtype = f"{kind}{width}"
        for op in ("max", "min"):
            mem, val = mem0.copy(), val0.copy()
            old = np.zeros(128, UINT[width])
            interpreted(k.rmw)[(1,)](numpy_arg(mem, dtype), numpy_arg(val, dtype),
                                     numpy_arg(old, dtype), 4, OP=op, SEM="relaxed",
                                     SCOPE="gpu", RETURN_OLD=True, BLOCK=128)
            np.testing.assert_array_equal(mem, np.array(want[kind, op], UINT[width]),
                                          err_msg=f"{dtype} {op}")
            np.testing.assert_array_equal(old[:4], mem0)


def test_xchg_returns_the_previous_value():
    mem = np.arange(10, dtype=np.float32)
    val = -np.arange(10, dtype=np.float32) - 0.5
    old = np.zeros(128, np.float32)
    interpreted(k.rmw)[(1,)](mem, val, old, 10, OP="xchg", SEM="acq_rel", SCOPE="sys",
                             RETURN_OLD=True, BLOCK=128)
    np.testing.assert_array_equal(mem, -np.arange(10, dtype=np.float32) - 0.5)
    np.testing.assert_array_equal(old[:10], np.arange(10, dtype=np.float32))
    assert np.all(old[10:] == 0)


def test_2d_tile():
    mem = np.arange(32, dtype=np.int32).reshape(4, 8)
    val = np.full((4, 8), 100, np.int32)
    old = np.zeros((4, 8), np.int32)
    interpreted(k.rmw_2d)[(1,)](mem, val, old, ROWS=4, COLS=8)
    np.testing.assert_array_equal(mem, np.arange(32).reshape(4, 8) + 100)
    np.testing.assert_array_equal(old, np.arange(32).reshape(4, 8))


@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_window_add(dtype, return_old):
    """Programs adding into one window: small integers, exact in every
    order; the old values are the window after the programs before."""
    grid, block = 5, 256
    rng = np.random.default_rng(4)
    vals = rng.integers(-8, 9, (grid, block)).astype(np.float64)
    window = from_float(np.arange(block) % 7, dtype)
    val_bits = from_float(vals.ravel(), dtype)
    old = np.zeros(grid * block, bits_dtype(dtype))
    interpreted(k.window_add)[(grid,)](numpy_arg(window, dtype), numpy_arg(val_bits, dtype),
                                       numpy_arg(old, dtype), RETURN_OLD=return_old,
                                       BLOCK=block)
    np.testing.assert_array_equal(to_float(window, dtype), np.arange(block) % 7 + vals.sum(0))
    if return_old:
        before = np.cumsum(np.vstack([np.zeros(block), vals[:-1]]), axis=0)
        np.testing.assert_array_equal(to_float(old, dtype).reshape(grid, block),
                                      np.arange(block) % 7 + before)
    else:
        assert np.all(old == 0)


# -- contended atomics ----------------------------------------------------------------------------

HIST_DTYPES = INTS + FLOATS


def histogram_inputs(n=1000, bins=37, seed=3):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, bins, n).astype(np.int32)
    idx[:50] = 5  # one crowded bin
    return idx, bins


def bins_start(dtype, bins):
    """Initial bin contents as bits: 10 + bin index."""
    start = 10 + np.arange(bins)
    return from_float(start, dtype) if is_float(dtype) else start.astype(bits_dtype(dtype))


def counts_as_numbers(bits, dtype):
    return to_float(bits, dtype) if is_float(dtype) else bits.view(NUMPY[dtype]).astype(np.int64)


@pytest.mark.parametrize("return_old", [True, False], ids=["old", "unused"])
@pytest.mark.parametrize("dtype", HIST_DTYPES)
def test_histogram(dtype, return_old):
    """Many lanes at one address all count; each lane's old value is the
    count before it (lanes in element order on the interpreter)."""
    idx, bins = histogram_inputs()
    n = idx.size
    hist = bins_start(dtype, bins)
    old = np.zeros(n, bits_dtype(dtype))
    interpreted(k.histogram)[(tilec.cdiv(n, 128),)](numpy_arg(hist, dtype), idx,
                                                    numpy_arg(old, dtype), n,
                                                    RETURN_OLD=return_old, BLOCK=128)
    counts = np.bincount(idx, minlength=bins)
    np.testing.assert_array_equal(counts_as_numbers(hist, dtype), 10 + np.arange(bins) + counts)
    if return_old:
        before = np.array([np.count_nonzero(idx[:i] == idx[i]) for i in range(n)])
        np.testing.assert_array_equal(counts_as_numbers(old, dtype), 10 + idx + before)
    else:
        assert np.all(old == 0)


def check_old_counts(old, idx, start):
    """The old values lanes got at each bin are start, start+1, ... in some
    order (one per lane)."""
    for b in np.unique(idx):
        got = np.sort(old[idx == b])
        np.testing.assert_array_equal(got, start[b] + np.arange(got.size), err_msg=f"bin {b}")


def test_histogram_old_values_are_a_permutation():
    """What the GPU test checks (the order there is the hardware's)."""
    idx, bins = histogram_inputs()
    hist = np.zeros(bins, np.int32)
    old = np.full(idx.size, -1, np.int32)
    interpreted(k.histogram)[(8,)](hist, idx, old, idx.size, RETURN_OLD=True, BLOCK=128)
    check_old_counts(old, idx, np.zeros(bins, np.int64))


def sequential_sum(start, values, dtype):
    """The interpreter's order: one rounding per lane, lanes in order."""
    acc = np.array([start]).astype(FLOAT_OF_WIDTH[WIDTH[dtype]])[0]
    for v in values:
        acc = (np.array([acc]) + np.array([v], acc.dtype))[0]
    return acc


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scatter_add_float(dtype):
    """Contended float adds into 8 bins, rounded once per lane in element
    order."""
    rng = np.random.default_rng(5)
    n, bins = 500, 8
    idx = rng.integers(0, bins, n).astype(np.int32)
    x = rng.standard_normal(n).astype(NUMPY[dtype])
    out = np.full(bins, 0.25, NUMPY[dtype])
    interpreted(k.scatter)[(tilec.cdiv(n, 128),)](out, idx, x, n, OP="add", BLOCK=128)
    want = np.array([sequential_sum(0.25, x[idx == b], dtype) for b in range(bins)])
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float16"])
def test_scatter_max_min(op, dtype):
    rng = np.random.default_rng(6)
    n, bins = 700, 16
    idx = rng.integers(0, bins, n).astype(np.int32)
    val = random_bits(rng, dtype, n)
    hist = random_bits(rng, dtype, bins)
    want = hist.copy()
    for i, v in zip(idx, val):
        want[i] = combine(op, dtype, want[i], v)
    interpreted(k.scatter)[(tilec.cdiv(n, 128),)](numpy_arg(hist, dtype), idx,
                                                  numpy_arg(val, dtype), n, OP=op, BLOCK=128)
    np.testing.assert_array_equal(hist, want)


@pytest.mark.parametrize("op", ["add", "max", "min"])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_reduce_into_one_address(op, dtype):
    """A scalar pointer with a tensor of values: every live lane combines
    into the one address."""
    rng = np.random.default_rng(8)
    n = 1000
    x = (rng.standard_normal(n) * 100).astype(NUMPY[dtype])
    out = np.array([3], NUMPY[dtype])
    interpreted(k.reduce_into)[(tilec.cdiv(n, 256),)](out, x, n, OP=op, BLOCK=256)
    if op == "add":
        want = np.sum(x.astype(np.int64)) + 3 if dtype == "int32" else sequential_sum(3, x, dtype)
    else:
        want = (np.max if op == "max" else np.min)(np.append(x, NUMPY[dtype](3)))
    assert out[0] == want


# -- scalar atomics -----------------------------------------------------------------------------

def test_ticket():
    """One atomic per program on a scalar pointer; its result reaches every
    lane of the program."""
    grid, block = 9, 64
    counter = np.array([100], np.int32)
    out = np.full(grid * block, -1, np.int32)
    interpreted(k.ticket)[(grid,)](counter, out, BLOCK=block)
    assert counter[0] == 100 + grid
    rows = out.reshape(grid, block)
    assert np.all(rows == rows[:, :1])
    np.testing.assert_array_equal(rows[:, 0], 100 + np.arange(grid))  # programs in order


@pytest.mark.parametrize("op", INT_OPS)
@pytest.mark.parametrize("dtype", INTS)
def test_scalar_rmw(op, dtype):
    grid = 12
    w = WIDTH[dtype]
    start = 0x0F0F if op != "min" else (1 << (w - 1)) - 1
    mem = np.array([start], bits_dtype(dtype))
    old = np.zeros(grid, bits_dtype(dtype))
    interpreted(k.scalar_rmw)[(grid,)](numpy_arg(mem, dtype), numpy_arg(old, dtype), OP=op)
    acc, olds = start, []
    for pid in range(grid):
        olds.append(acc)
        acc = combine(op, dtype, acc, pid + 1)
    assert int(mem[0]) == acc
    np.testing.assert_array_equal(old, np.array(olds, bits_dtype(dtype)))


# -- compare-and-swap -----------------------------------------------------------------------------

CAS_DTYPES = ["int16", "uint16", "int32", "uint32", "int64", "uint64",
              "float16", "bfloat16", "float32", "float64"]


def quiet_nans(bits, dtype):
    """`bits` with every NaN made quiet (its top mantissa bit set)."""
    quiet = {"float16": 0x0200, "bfloat16": 0x0040, "float32": 0x00400000,
             "float64": 0x0008000000000000}[dtype]
    bits = bits.copy()
    nan = np.isnan(to_float(bits, dtype))
    bits[nan] |= bits.dtype.type(quiet)
    return bits


def cas_inputs(dtype, n=256, seed=9):
    """memory, cmp, val as bits: every other cmp equals memory; for floats
    also -0.0 against +0.0 (different bits: no swap) and a NaN against the
    same NaN (same bits: swap)."""
    rng = np.random.default_rng(seed)
    w = WIDTH[dtype]
    mem = rng.integers(0, 1 << min(w, 62), n, dtype=np.uint64).astype(UINT[w])
    val = rng.integers(0, 1 << min(w, 62), n, dtype=np.uint64).astype(UINT[w])
    if dtype in FLOATS:
        # the interpreter holds floats as doubles: a signaling NaN comes back
        # quiet from any load, so the random bits here avoid them
        mem, val = quiet_nans(mem, dtype), quiet_nans(val, dtype)
    cmp = mem.copy()
    cmp[1::2] ^= 2
    if dtype in FLOATS:
        s = specials(dtype)
        nan, zero, neg_zero = s[11], s[6], s[5]
        mem[:4] = [neg_zero, zero, nan, nan]
        cmp[:4] = [zero, neg_zero, nan, s[0]]
    return mem, cmp, val


@pytest.mark.parametrize("dtype", CAS_DTYPES)
def test_cas(dtype):
    mem, cmp, val = cas_inputs(dtype)
    want = np.where(mem == cmp, val, mem)
    old0 = mem.copy()
    old = np.zeros_like(mem)
    interpreted(k.cas)[(2,)](numpy_arg(mem, dtype), numpy_arg(cmp, dtype),
                             numpy_arg(val, dtype), numpy_arg(old, dtype), BLOCK=128)
    np.testing.assert_array_equal(mem, want)
    np.testing.assert_array_equal(old, old0)
    if dtype in FLOATS:
        # -0.0 == +0.0 as floats but not as bits; NaN != NaN but its bits match
        np.testing.assert_array_equal(mem[:4], [old0[0], old0[1], val[2], old0[3]])


def test_cas_ticket():
    """A counter incremented by compare-and-swap retries: the programs get
    distinct tickets 0..grid-1."""
    grid = 10
    counter = np.zeros(1, np.int32)
    tickets = np.full(grid, -2, np.int32)
    interpreted(k.cas_ticket)[(grid,)](counter, tickets, grid + 1)
    assert counter[0] == grid
    np.testing.assert_array_equal(np.sort(tickets), np.arange(grid))


def test_lock_counter():
    grid = 6
    lock = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int32)
    order = np.full(grid, -1, np.int32)
    done = np.zeros(grid, np.int32)
    interpreted(k.lock_counter)[(grid,)](lock, counter, order, done, 3)
    assert lock[0] == 0 and counter[0] == grid
    assert np.all(done == 1)
    np.testing.assert_array_equal(order, np.arange(grid))


def test_held_lock_is_not_taken():
    """With the lock held (1) no program gets in: the CAS fails every time."""
    lock = np.ones(1, np.int32)
    counter = np.zeros(1, np.int32)
    order = np.full(4, -1, np.int32)
    done = np.full(4, 7, np.int32)
    interpreted(k.lock_counter)[(4,)](lock, counter, order, done, 5)
    assert lock[0] == 1 and counter[0] == 0
    assert np.all(done == 0) and np.all(order == -1)


# -- out of bounds ---------------------------------------------------------------------------------

def test_out_of_bounds_atomic_names_the_line():
    mem = np.zeros(100, np.int32)
    val = np.zeros(128, np.int32)
    old = np.zeros(128, np.int32)
    with pytest.raises(tilec.Error) as info:
        # n = 128 > 100: lanes 100.. are live and past `ptr`
        interpreted(k.rmw)[(1,)](mem, val, old, 128, OP="add", SEM="acq_rel", SCOPE="gpu",
                                 RETURN_OLD=True, BLOCK=128)
    message = str(info.value)
    assert "out-of-bounds atomic access" in message and "'ptr'" in message, message
    assert re.search(re.escape(k.__file__) + r":\d+:\d+: error:", message), message


# -- PTX ---------------------------------------------------------------------------------------------

def _compile(kernel, signature, target, warps=4, **constexprs):
    return kernel.compile(signature, num_warps=warps, target=target, **constexprs).asm["ptx"]


def _sig(dtype, align=":16"):
    return f"*{SIG[dtype]}{align}"


def ptx_cases():
    """(id, kernel, signature, warps, constexprs) for every kernel of
    atomic_kernels.py in the configurations the tests run."""
    cases = []
    for op, dtype in CASES:
        p = _sig(dtype)
        for ret in (True, False):
            for block, warps in ((128, 4), (1024, 4), (16, 4)):
                cases.append((f"rmw-{op}-{dtype}-{'old' if ret else 'unused'}-{block}",
                              k.rmw, f"{p},{p},{p},i32", warps,
                              dict(OP=op, SEM="relaxed" if not ret else "acq_rel",
                                   SCOPE="gpu", RETURN_OLD=ret, BLOCK=block)))
    for sem in ("relaxed", "acquire", "release", "acq_rel"):
        for scope in ("cta", "gpu", "sys"):
            cases.append((f"rmw-add-fp32-{sem}-{scope}", k.rmw, "*fp32:16,*fp32:16,*fp32:16,i32",
                          4, dict(OP="add", SEM=sem, SCOPE=scope, RETURN_OLD=False, BLOCK=1024)))
    cases.append(("rmw_2d", k.rmw_2d, "*i32,*i32,*i32", 4, dict(ROWS=4, COLS=8)))
    cases.append(("rmw_2d-f32", k.rmw_2d, "*fp32:16,*fp32:16,*fp32:16", 4,
                  dict(ROWS=32, COLS=64)))
    for dtype in ("float16", "bfloat16", "float32"):
        for ret in (True, False):
            cases.append((f"window_add-{dtype}-{ret}", k.window_add, ",".join([_sig(dtype)] * 3),
                          4, dict(RETURN_OLD=ret, BLOCK=2048)))
    for dtype in HIST_DTYPES:
        for ret in (True, False):
            cases.append((f"histogram-{dtype}-{ret}", k.histogram,
                          f"{_sig(dtype)},*i32,{_sig(dtype)},i32", 4,
                          dict(RETURN_OLD=ret, BLOCK=128)))
    cases.append(("histogram-small", k.histogram, "*i32,*i32,*i32,i32", 4,
                  dict(RETURN_OLD=True, BLOCK=16)))
    for op in ("add", "max", "min"):
        for dtype in ("int32", "uint64", "float32", "float16", "bfloat16"):
            cases.append((f"scatter-{op}-{dtype}", k.scatter,
                          f"{_sig(dtype)},*i32,{_sig(dtype)},i32", 4, dict(OP=op, BLOCK=256)))
            cases.append((f"reduce_into-{op}-{dtype}", k.reduce_into,
                          f"{_sig(dtype)},{_sig(dtype)},i32", 4, dict(OP=op, BLOCK=1024)))
    cases.append(("ticket", k.ticket, "*i32,*i32", 4, dict(BLOCK=64)))
    for op in INT_OPS:
        for dtype in INTS:
            cases.append((f"scalar_rmw-{op}-{dtype}", k.scalar_rmw,
                          f"{_sig(dtype)},{_sig(dtype)}", 4, dict(OP=op)))
    for dtype in CAS_DTYPES:
        cases.append((f"cas-{dtype}", k.cas, ",".join([_sig(dtype)] * 4), 4, dict(BLOCK=128)))
        cases.append((f"cas-small-{dtype}", k.cas, ",".join([_sig(dtype)] * 4), 4,
                      dict(BLOCK=16)))
    cases.append(("cas_ticket", k.cas_ticket, "*i32,*i32,i32", 4, {}))
    cases.append(("lock_counter", k.lock_counter, "*i32,*i32,*i32,*i32,i32", 4, {}))
    return cases


PTX_CASES = ptx_cases()


@pytest.mark.skipif(not ref.HAS_PTXAS, reason="no ptxas")
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("case", PTX_CASES, ids=[c[0] for c in PTX_CASES])
def test_ptx_assembles(tmp_path, target, case):
    _, kernel, signature, warps, constexprs = case
    ptx = _compile(kernel, signature, target, warps, **constexprs)
    assert re.search(r"\b(atom|red)\.", ptx), ptx
    ref.assert_assembles_without_spills(ptx, target, tmp_path)


def _instructions(ptx):
    return [line.strip() for line in ptx.splitlines() if re.search(r"\b(atom|red)\.", line)]


def test_ptx_red_for_unused_relaxed_result():
    ptx = _compile(k.rmw, "*i32:16,*i32:16,*i32:16,i32", "sm_90a", OP="add", SEM="relaxed",
                   SCOPE="gpu", RETURN_OLD=False, BLOCK=128)
    assert "red.relaxed.gpu.global.add.u32" in ptx and "atom." not in ptx
    # release too; acquire and acq_rel wait for the old value
    for sem, instr in (("release", "red.release.gpu"), ("acquire", "atom.acquire.gpu"),
                       ("acq_rel", "atom.acq_rel.gpu")):
        ptx = _compile(k.rmw, "*i32:16,*i32:16,*i32:16,i32", "sm_90a", OP="add", SEM=sem,
                       SCOPE="gpu", RETURN_OLD=False, BLOCK=128)
        assert instr + ".global.add.u32" in ptx, sem


def test_ptx_atom_for_used_result():
    ptx = _compile(k.rmw, "*fp32:16,*fp32:16,*fp32:16,i32", "sm_80", OP="add", SEM="acq_rel",
                   SCOPE="gpu", RETURN_OLD=True, BLOCK=128)
    assert "atom.acq_rel.gpu.global.add.f32" in ptx and "red." not in ptx
    ptx = _compile(k.histogram, "*u64:16,*i32:16,*u64:16,i32", "sm_80", RETURN_OLD=True,
                   BLOCK=128)
    assert "atom.acq_rel.gpu.global.add.u64" in ptx  # the defaults


@pytest.mark.parametrize("scope", ["cta", "sys"])
def test_ptx_scope(scope):
    ptx = _compile(k.rmw, "*i64:16,*i64:16,*i64:16,i32", "sm_80", OP="xor", SEM="release",
                   SCOPE=scope, RETURN_OLD=True, BLOCK=128)
    assert f"atom.release.{scope}.global.xor.b64" in ptx


@pytest.mark.parametrize("op,dtype,instr", [
    ("max", "int32", "max.s32"), ("max", "uint32", "max.u32"), ("min", "int64", "min.s64"),
    ("min", "uint64", "min.u64"), ("and", "int32", "and.b32"), ("or", "uint64", "or.b64"),
    ("xor", "int32", "xor.b32"), ("xchg", "int64", "exch.b64"), ("xchg", "float32", "exch.b32"),
    ("add", "float64", "add.f64"), ("add", "float16", "add.noftz.f16")])
def test_ptx_native_instructions(op, dtype, instr):
    p = _sig(dtype)
    ptx = _compile(k.rmw, f"{p},{p},{p},i32", "sm_80", OP=op, SEM="acq_rel", SCOPE="gpu",
                   RETURN_OLD=True, BLOCK=128)
    assert f"atom.acq_rel.gpu.global.{instr}" in ptx, _instructions(ptx)


def test_ptx_vector_adds_on_sm90():
    for dtype, vec in (("float32", ".v4.f32"), ("float16", ".v8.f16"),
                       ("bfloat16", ".v8.bf16")):
        p = _sig(dtype)
        for ret in (True, False):
            ptx = _compile(k.rmw, f"{p},{p},{p},i32:16", "sm_90a", OP="add", SEM="relaxed",
                           SCOPE="gpu", RETURN_OLD=ret, BLOCK=2048)
            assert re.search(r"\b(red|atom)\.relaxed\.gpu\.global\.add(\.noftz)?" +
                             re.escape(vec), ptx), (dtype, ret, _instructions(ptx))
            ptx80 = _compile(k.rmw, f"{p},{p},{p},i32:16", "sm_80", OP="add", SEM="relaxed",
                             SCOPE="gpu", RETURN_OLD=ret, BLOCK=2048)
            assert not any(".v4." in i or ".v8." in i for i in _instructions(ptx80)), \
                _instructions(ptx80)
    # without alignment facts: one element per instruction
    ptx = _compile(k.rmw, "*fp32,*fp32,*fp32,i32", "sm_90a", OP="add", SEM="relaxed",
                   SCOPE="gpu", RETURN_OLD=False, BLOCK=1024)
    assert ".v4.f32" not in ptx and "red.relaxed.gpu.global.add.f32" in ptx


def test_ptx_float_max_is_sign_split():
    for dtype, w in (("float32", 32), ("float64", 64)):
        p = _sig(dtype)
        ptx = _compile(k.rmw, f"{p},{p},{p},i32", "sm_80", OP="max", SEM="acq_rel",
                       SCOPE="gpu", RETURN_OLD=True, BLOCK=128)
        assert f"atom.acq_rel.gpu.global.max.s{w}" in ptx
        assert f"atom.acq_rel.gpu.global.min.u{w}" in ptx
        ptx = _compile(k.rmw, f"{p},{p},{p},i32", "sm_80", OP="min", SEM="relaxed",
                       SCOPE="gpu", RETURN_OLD=False, BLOCK=128)
        assert f"red.relaxed.gpu.global.min.s{w}" in ptx
        assert f"red.relaxed.gpu.global.max.u{w}" in ptx


@pytest.mark.parametrize("op,dtype,target", [
    ("max", "float16", "sm_90a"), ("min", "bfloat16", "sm_90a"), ("xchg", "float16", "sm_80"),
    ("add", "bfloat16", "sm_80")])
def test_ptx_16_bit_compare_swap_loop(op, dtype, target):
    p = _sig(dtype)
    ptx = _compile(k.rmw, f"{p},{p},{p},i32", target, OP=op, SEM="relaxed", SCOPE="gpu",
                   RETURN_OLD=False, BLOCK=128)
    assert "atom.relaxed.gpu.global.cas.b16" in ptx, _instructions(ptx)


def test_ptx_shares_scalar_result_through_shared_memory():
    ptx = _compile(k.ticket, "*i32,*i32", "sm_90a", BLOCK=64)
    assert "atom.acq_rel.gpu.global.add.u32" in ptx
    assert "st.shared" in ptx and "bar.sync" in ptx and "ld.shared" in ptx
    # a tensor atomic with one element per thread shares nothing
    ptx = _compile(k.rmw, "*i32:16,*i32:16,*i32:16,i32", "sm_90a", OP="add", SEM="acq_rel",
                   SCOPE="gpu", RETURN_OLD=True, BLOCK=128)
    assert "bar.sync" not in ptx


def test_ptx_atomics_run_once_per_element():
    """16 elements over 128 threads: each element's atomic is predicated
    on the one thread that owns it (the old values are shared)."""
    ptx = _compile(k.histogram, "*i32,*i32,*i32,i32", "sm_90a", RETURN_OLD=True, BLOCK=16)
    assert len(re.findall(r"atom\.acq_rel\.gpu\.global\.add\.u32", ptx)) == 1
    assert "bar.sync" in ptx


# -- located errors ---------------------------------------------------------------------------------

@tilec.jit
def bad_sem(p):
    tl.atomic_add(p, 1, sem="seq_cst")


@tilec.jit
def bad_scope(p):
    tl.atomic_max(p, 1, scope="device")


@tilec.jit
def cas_bad_sem(p):
    tl.atomic_cas(p, 0, 1, sem="strong")


@tilec.jit
def narrow(p):
    tl.atomic_add(p, 1)


@tilec.jit
def narrow_cas(p):
    tl.atomic_cas(p, 0, 1)


@tilec.jit
def float_and(p):
    tl.atomic_and(p + tl.arange(0, 16), 1)


@tilec.jit
def not_a_pointer(x):
    tl.atomic_add(x, 1)


@tilec.jit
def pointer_value(p):
    tl.atomic_xchg(p, p)


def _error(kernel, signature):
    with pytest.raises(tilec.Error) as info:
        kernel.compile(signature, target="sm_90a")
    return str(info.value)


def _located(message, needle, column_of):
    """`message` is an error at the line of `needle` in this file, column
    of `column_of` within that line."""
    line, col = (0, 0)
    with open(HERE) as f:
        for i, text in enumerate(f, 1):
            if needle in text:
                line, col = i, text.find(column_of) + 1
                break
    assert f"{HERE}:{line}:{col}: error:" in message, message


def test_unknown_sem():
    m = _error(bad_sem, "*i32")
    assert "unknown memory semantic 'seq_cst'" in m, m
    _located(m, 'sem="seq_cst")', '"seq_cst"')


def test_unknown_scope():
    m = _error(bad_scope, "*i32")
    assert "unknown memory scope 'device'" in m, m
    _located(m, 'scope="device")', '"device"')


def test_unknown_sem_of_cas():
    m = _error(cas_bad_sem, "*i64")
    assert "unknown memory semantic 'strong'" in m, m
    _located(m, 'sem="strong")', '"strong"')


@pytest.mark.parametrize("dtype", ["i8", "i16", "u8", "u16", "i1"])
def test_narrow_integer_pointer(dtype):
    m = _error(narrow, f"*{dtype}")
    assert "tl.atomic_add does not support" in m and "integers of 32 or 64 bits only" in m, m
    _located(m, "tl.atomic_add(p, 1)\n", "p, 1")


@pytest.mark.parametrize("dtype", ["i8", "u8", "i1", "fp8e4nv"])
def test_narrow_cas(dtype):
    m = _error(narrow_cas, f"*{dtype}")
    assert "tl.atomic_cas needs elements of 16, 32 or 64 bits" in m, m
    _located(m, "tl.atomic_cas(p, 0, 1)\n", "p, 0")


@pytest.mark.parametrize("dtype", ["fp32", "fp16", "bf16", "fp64"])
def test_bitwise_on_floats(dtype):
    m = _error(float_and, f"*{dtype}")
    assert "tl.atomic_and does not support" in m and "floats take add, max, min and xchg" in m, m
    _located(m, "tl.atomic_and(p + tl.arange", "p + tl")


@pytest.mark.parametrize("signature", ["i32", "fp32"])
def test_first_argument_must_be_a_pointer(signature):
    m = _error(not_a_pointer, signature)
    assert "tl.atomic_add needs a pointer or a tensor of pointers" in m, m
    _located(m, "tl.atomic_add(x, 1)", "x, 1")


def test_value_cannot_be_a_pointer():
    m = _error(pointer_value, "*i32")
    assert "'val' cannot be a pointer" in m, m
    _located(m, "tl.atomic_xchg(p, p)", "p)")


def test_interpreter_reports_errors_too():
    with pytest.raises(tilec.Error, match="unknown memory semantic 'seq_cst'"):
        interpreted(bad_sem)[(1,)](np.zeros(1, np.int32))
