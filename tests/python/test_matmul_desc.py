"""kernels/matmul.py's matmul_desc_kernel in the interpreter (CPU), which
reads descriptors through pointers, as the GPU does wherever TMA does not
apply: edges that cut through tiles, K not a multiple of the block, bias
and activation. test_gpu_tma.py runs it on sm_90a through TMA."""
import numpy as np
import pytest

import tilec

import matmul  # kernels/matmul.py


@pytest.mark.parametrize("m,n,k", [(40, 24, 50), (16, 16, 8), (33, 70, 16)])
@pytest.mark.parametrize("activation", ["", "relu"])
def test_desc_matmul_interpreted(m, n, k, activation):
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    kernel = tilec.JITFunction(matmul.matmul_desc_kernel.fn, interpret=True)
    bm = bn = bk = 16
    kernel[(tilec.cdiv(m, bm) * tilec.cdiv(n, bn),)](
        a, b, c, bias, m, n, k, k, n, n, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=2, HAS_BIAS=True, ACTIVATION=activation)
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    if activation == "relu":
        want = np.maximum(want, 0)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-3 * np.sqrt(k))
