"""tl.clamp, tl.zeros_like and tl.full_like on the interpreter, against
numpy (issue 17). The GPU runs the same kernels: test_gpu_clamp_like.py."""
import numpy as np

import tilec

import clamp_like_kernels as k


def expected_clamp(x, lo, hi, propagate):
    """Triton's clamp: maximum(minimum(x, hi), lo); a NaN x gives hi unless
    NaNs propagate."""
    low = np.minimum(x, hi) if propagate else np.fmin(x, hi)
    return np.maximum(low, lo) if propagate else np.fmax(low, lo)


def inputs(n=300, seed=7):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    x[::37] = np.nan
    x[5], x[6] = np.inf, -np.inf
    return x


def test_clamp_matches_its_definition():
    n = 300
    x = inputs(n)
    out = np.zeros(n, np.float32)
    nan_out = np.zeros(n, np.float32)
    fn = tilec.JITFunction(k.clamp_kernel.fn, interpret=True)
    fn[(3,)](x, out, nan_out, -1.5, 2.25, n, BLOCK=128)
    np.testing.assert_array_equal(out, expected_clamp(x, np.float32(-1.5), np.float32(2.25), False))
    np.testing.assert_array_equal(nan_out,
                                  expected_clamp(x, np.float32(-1.5), np.float32(2.25), True))
    assert np.isnan(nan_out[0]) and out[0] == np.float32(2.25)


def test_zeros_like_and_full_like():
    n = 300
    x = inputs(n)
    zeros, full = np.full(n, -7, np.float32), np.full(n, -7, np.float32)
    ints = np.full(n, -7, np.int64)
    fn = tilec.JITFunction(k.like_kernel.fn, interpret=True)
    fn[(3,)](x, zeros, full, ints, 0.5, n, BLOCK=128)
    np.testing.assert_array_equal(zeros, x)
    np.testing.assert_array_equal(full, np.full(n, 0.5, np.float32))
    np.testing.assert_array_equal(ints, 5 * np.arange(n))
