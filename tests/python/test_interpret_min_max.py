"""Minimum, maximum and absolute value run by the CPU interpreter, against
numpy and Python: tl.minimum / tl.maximum with either NaN rule; Python's
min, max and abs of runtime scalars and tensors of integer and float types
(elementwise, as Triton has them); and the grouped program ordering of
Triton's matmul tutorial, whose `min(num_pid_m - first_pid_m, GROUP_SIZE_M)`
mixes a runtime value with a constexpr."""
import numpy as np
import pytest

import tilec
import tilec.language as tl


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE", "0")


@tilec.jit(interpret=True)
def nan_rules(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + i, tl.minimum(x, y))
    tl.store(out_ptr + N + i, tl.maximum(x, y, propagate_nan=tl.PropagateNan.NONE))
    tl.store(out_ptr + 2 * N + i, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 3 * N + i, tl.maximum(x, y, tl.PropagateNan.ALL))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_nan_rules(dtype):
    nan = np.nan
    x = np.array([1, nan, 3, nan, -0.5, 2, 7, -4], dtype)
    y = np.array([2, 5, nan, nan, -1.5, 2, -7, 4], dtype)
    n = len(x)
    out = np.zeros(4 * n, dtype)
    nan_rules[(1,)](x, y, out, N=n)
    # NONE: the number wins over NaN (numpy's fmin/fmax); ALL: NaN wins
    # (numpy's minimum/maximum).
    np.testing.assert_array_equal(out[:n], np.fmin(x, y))
    np.testing.assert_array_equal(out[n:2 * n], np.fmax(x, y))
    np.testing.assert_array_equal(out[2 * n:3 * n], np.minimum(x, y))
    np.testing.assert_array_equal(out[3 * n:], np.maximum(x, y))


# -- Python's min, max and abs on runtime values ----------------------------------

@tilec.jit(interpret=True)
def python_builtins(x_ptr, y_ptr, s, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(out_ptr + i, min(x, y))
    tl.store(out_ptr + N + i, max(x, y, s))
    tl.store(out_ptr + 2 * N + i, abs(x))
    tl.store(out_ptr + 3 * N + i, min(s, x))
    # Scalars: the first elements, loaded one by one.
    a = tl.load(x_ptr)
    b = tl.load(y_ptr)
    tl.store(out_ptr + 4 * N, min(a, b))
    tl.store(out_ptr + 4 * N + 1, max(a, b))
    tl.store(out_ptr + 4 * N + 2, abs(a))
    tl.store(out_ptr + 4 * N + 3, max(b, s, 1))


DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint32, np.float16,
          np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_python_min_max_abs(dtype):
    n = 64
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    if np.issubdtype(dtype, np.unsignedinteger):
        x = rng.integers(0, 100, n).astype(dtype)
        y = rng.integers(0, 100, n).astype(dtype)
    elif np.issubdtype(dtype, np.integer):
        x = rng.integers(-100, 100, n).astype(dtype)
        y = rng.integers(-100, 100, n).astype(dtype)
        x[0] = np.iinfo(dtype).min  # abs wraps, as numpy's does
    else:
        x = (rng.standard_normal(n) * 50).astype(dtype)
        y = (rng.standard_normal(n) * 50).astype(dtype)
    s = 3  # a runtime scalar (i32) meeting every element type
    out = np.zeros(4 * n + 4, dtype)
    python_builtins[(1,)](x, y, s, out, N=n)
    with np.errstate(over="ignore"):
        expect_abs = np.abs(x)
    np.testing.assert_array_equal(out[:n], np.minimum(x, y))
    np.testing.assert_array_equal(out[n:2 * n], np.maximum(np.maximum(x, y), dtype(s)))
    np.testing.assert_array_equal(out[2 * n:3 * n], expect_abs)
    np.testing.assert_array_equal(out[3 * n:4 * n], np.minimum(x, dtype(s)))
    np.testing.assert_array_equal(
        out[4 * n:], [min(x[0], y[0]), max(x[0], y[0]), expect_abs[0], max(y[0], s, 1)])


# -- grouped ordering (Triton's matmul tutorial) ----------------------------------

@tilec.jit(interpret=True)
def grouped_order(out_ptr, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    tl.store(out_ptr + 2 * pid, pid_m)
    tl.store(out_ptr + 2 * pid + 1, pid_n)


def grouped_order_reference(pid, M, N, block_m, block_n, group_m):
    num_pid_m = -(-M // block_m)
    num_pid_n = -(-N // block_n)
    num_pid_in_group = group_m * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * group_m
    group_size_m = min(num_pid_m - first_pid_m, group_m)
    return (first_pid_m + ((pid % num_pid_in_group) % group_size_m),
            (pid % num_pid_in_group) // group_size_m)


@pytest.mark.parametrize("M,N,block_m,block_n,group_m", [
    (1000, 700, 64, 128, 8),   # 16 x 6 tiles: whole groups
    (1000, 700, 64, 128, 3),   # 16 rows in groups of 3: the last has 1
    (130, 1000, 32, 64, 4),    # 5 x 16 tiles: the last group has 1 row
    (64, 64, 64, 64, 8),       # one tile
])
def test_grouped_ordering(M, N, block_m, block_n, group_m):
    num_pid_m = -(-M // block_m)
    num_pid_n = -(-N // block_n)
    programs = num_pid_m * num_pid_n
    out = np.full(2 * programs, -1, np.int32)
    grouped_order[(programs,)](out, M, N, BLOCK_SIZE_M=block_m, BLOCK_SIZE_N=block_n,
                               GROUP_SIZE_M=group_m)
    got = [tuple(out[2 * p:2 * p + 2]) for p in range(programs)]
    assert got == [grouped_order_reference(p, M, N, block_m, block_n, group_m)
                   for p in range(programs)]
    # Every tile once.
    assert sorted(got) == [(m, n) for m in range(num_pid_m) for n in range(num_pid_n)]
