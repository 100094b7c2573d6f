"""The layer norm of layer_norm_kernels.py on the interpreter: forward and
backward against float64, with the lock-protected partial sums of dw/db."""
import numpy as np

import tilec

import layer_norm_kernels as k
from layer_norm_reference import reference


def interp(kernel):
    return tilec.JITFunction(kernel.fn, interpret=True)


def test_layer_norm_forward_and_backward():
    rng = np.random.default_rng(0)
    m, n, group, eps = 24, 100, 4, 1e-5
    x = rng.standard_normal((m, n)).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dy = rng.standard_normal((m, n)).astype(np.float32)
    y, mean, rstd = np.zeros_like(x), np.zeros(m, np.float32), np.zeros(m, np.float32)
    interp(k.layer_norm_forward)[(m,)](x, y, w, b, mean, rstd, n, n, eps, BLOCK=128)
    dx = np.zeros_like(x)
    partial_dw = np.zeros((group, n), np.float32)
    partial_db = np.zeros((group, n), np.float32)
    locks = np.zeros(2 * group, np.int32)
    interp(k.layer_norm_backward_dx)[(m,)](dx, dy, x, w, mean, rstd, partial_dw, partial_db,
                                          locks, n, n, GROUP=group, BLOCK=128)
    dw, db = np.zeros(n, np.float32), np.zeros(n, np.float32)
    interp(k.layer_norm_backward_dwdb)[(4,)](partial_dw, partial_db, dw, db, group, n,
                                             BLOCK_M=4, BLOCK_N=32)
    y_ref, dx_ref, dw_ref, db_ref = reference(x, w, b, dy, eps)
    np.testing.assert_allclose(y, y_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, db_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(locks, [0] * group + [1] * group)
