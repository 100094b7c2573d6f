"""Minimum, maximum and absolute value run by the CPU interpreter, against
numpy: tl.minimum / tl.maximum with either NaN rule."""
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
