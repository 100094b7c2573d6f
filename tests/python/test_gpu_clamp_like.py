"""tl.clamp, tl.zeros_like and tl.full_like on the GPU: the interpreter's
results (test_clamp_like.py), bit for bit, NaNs and infinities included."""
import numpy as np
import pytest

import clamp_like_kernels as k
from test_clamp_like import expected_clamp, inputs

pytestmark = pytest.mark.gpu


def test_gpu_clamp(torch_cuda):
    torch = torch_cuda
    n = 300
    x = inputs(n)
    xs = torch.from_numpy(x).cuda()
    out, nan_out = torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")
    k.clamp_kernel[(3,)](xs, out, nan_out, -1.5, 2.25, n, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(),
                                  expected_clamp(x, np.float32(-1.5), np.float32(2.25), False))
    np.testing.assert_array_equal(nan_out.cpu().numpy(),
                                  expected_clamp(x, np.float32(-1.5), np.float32(2.25), True))


def test_gpu_zeros_like_and_full_like(torch_cuda):
    torch = torch_cuda
    n = 300
    x = inputs(n)
    xs = torch.from_numpy(x).cuda()
    zeros = torch.full((n,), -7.0, device="cuda")
    full = torch.full((n,), -7.0, device="cuda")
    ints = torch.full((n,), -7, device="cuda", dtype=torch.int64)
    k.like_kernel[(3,)](xs, zeros, full, ints, 0.5, n, BLOCK=128)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(zeros.cpu().numpy(), x)
    np.testing.assert_array_equal(full.cpu().numpy(), np.full(n, 0.5, np.float32))
    np.testing.assert_array_equal(ints.cpu().numpy(), 5 * np.arange(n))
