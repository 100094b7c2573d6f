"""Triton's tensor methods (issue 17): the tl functions Triton also makes
methods of a tensor take the receiver as their first argument (x.sum(1)
is tl.sum(x, 1), ptr.store(v) is tl.store(ptr, v), block.advance(...) is
tl.advance(block, ...)); on the interpreter against numpy, and their
errors."""
import numpy as np
import pytest

import tilec

import method_kernels as k


def interpreted(fn):
    return tilec.JITFunction(fn.fn, interpret=True)


def test_reductions_and_math_as_methods():
    x = np.random.default_rng(0).standard_normal((8, 32)).astype(np.float32)
    s, m = np.zeros(8, np.float32), np.zeros(8, np.float32)
    a = np.zeros(8, np.int32)
    interpreted(k.row_stats)[(1,)](x, s, m, a, M=8, N=32)
    np.testing.assert_allclose(s, np.exp(x.astype(np.float64)).sum(1), rtol=1e-5)
    np.testing.assert_allclose(m, (1 / (1 + np.exp(-x.astype(np.float64)))).max(1), rtol=1e-6)
    np.testing.assert_array_equal(a, x.argmax(1))


def test_pointer_methods():
    x = np.arange(64, dtype=np.float32) / 8
    out = np.ones(64, np.float32)
    interpreted(k.pointer_methods)[(1,)](x, out, N=64)
    np.testing.assert_array_equal(out, 1 + x[::-1])


def test_block_pointer_advance_method():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(32, np.float32)
    interpreted(k.block_advance)[(1,)](x, out, N=32)
    np.testing.assert_array_equal(out, x[32:])


@pytest.mark.parametrize("kernel,message", [
    (k.unknown_method, r"method_kernels.py:\d+:\d+: error: a tensor of type tensor<16xfp32> "
                       r"has no attribute 'frobnicate'"),
    (k.too_many, r"x.sum\(\) takes at most 3 arguments, got 4"),
])
def test_errors(kernel, message):
    with pytest.raises(tilec.Error, match=message):
        kernel.compile("*fp32")
